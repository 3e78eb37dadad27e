// Text-format parser: the metadata section (large constants as base64 JSON) and the
// constants that refer to it or are written inline.
#include <cstring>

#include <nlohmann/json.hpp>

#include "tessera/support/base64.h"
#include "text_parser.h"

namespace tessera::text {

// ---- metadata ------------------------------------------------------------------------

void Parser::LoadMetadata() {
  if (!lex_.has_metadata || meta_loaded_) return;
  meta_loaded_ = true;
  size_t start = lex_.metadata_offset;
  std::string where = LocationPrefix(text_, source_, start - 11);
  std::string_view json_text = text_.substr(start);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text.begin(), json_text.end());
  } catch (const nlohmann::json::exception& e) {
    size_t byte = 0;
    if (auto* pe = dynamic_cast<const nlohmann::json::parse_error*>(&e)) byte = pe->byte;
    std::string msg = e.what();
    size_t cut = msg.find("column");
    cut = cut == std::string::npos ? msg.find("] ") : msg.find(": ", cut);
    if (cut != std::string::npos) msg = msg.substr(cut + 2);
    size_t offset = start + (byte > 0 ? byte - 1 : 0);
    throw Error(ErrorKind::kParse,
                LocationPrefix(text_, source_, offset) + "malformed metadata JSON: " + msg);
  }
  auto fail = [&](const std::string& msg) {
    throw Error(ErrorKind::kParse, where + "malformed metadata: " + msg);
  };
  if (!j.is_object()) fail("expected a JSON object like {\"Constant\": [...]}");
  auto it = j.find("Constant");
  if (it == j.end()) return;
  if (!it->is_array()) fail("'Constant' must be an array");
  for (size_t i = 0; i < it->size(); ++i) {
    const auto& c = (*it)[i];
    std::string at = "Constant[" + std::to_string(i) + "]";
    if (!c.is_object()) fail(at + " must be an object with dtype, shape and data");
    auto dt = c.find("dtype");
    if (dt == c.end() || !dt->is_string()) fail(at + ": 'dtype' must be a string");
    auto dtype = ParseDType(dt->get<std::string>());
    if (!dtype) fail(at + ": unknown dtype '" + dt->get<std::string>() + "'");
    auto sh = c.find("shape");
    if (sh == c.end() || !sh->is_array())
      fail(at + ": 'shape' must be an array of non-negative integers");
    std::vector<int64_t> shape;
    uint64_t count = 1;
    for (const auto& d : *sh) {
      if (!d.is_number_integer() || (d.is_number_integer() && d.get<int64_t>() < 0))
        fail(at + ": 'shape' must be an array of non-negative integers");
      int64_t v = d.get<int64_t>();
      shape.push_back(v);
      if (v != 0 && count > (uint64_t{1} << 48) / static_cast<uint64_t>(v))
        count = ~uint64_t{0};
      else
        count *= static_cast<uint64_t>(v);
    }
    auto da = c.find("data");
    if (da == c.end() || !da->is_string()) fail(at + ": 'data' must be a base64 string");
    std::string bytes, error;
    if (!base64::Decode(da->get<std::string>(), &bytes, &error))
      fail(at + ": 'data' is not valid base64: " + error);
    uint64_t want = count == ~uint64_t{0} ? count : count * DTypeBytes(*dtype);
    if (bytes.size() != want)
      fail(at + ": 'data' holds " + std::to_string(bytes.size()) + " bytes but " +
           DTypeName(*dtype) + ShapeToString(shape) + " needs " +
           (count == ~uint64_t{0} ? std::string("more") : std::to_string(want)));
    NDArray arr = NDArray::Empty(shape, *dtype);
    if (!bytes.empty()) std::memcpy(arr.data(), bytes.data(), bytes.size());
    meta_.push_back(MakeConstant(arr));
  }
}

Expr Parser::ParseMeta() {
  const Token& meta_tok = Next();
  ExpectPunct("[");
  const Token& kind = ExpectKind(TokKind::kIdent, "'Constant'");
  if (kind.text != "Constant" && kind.text != "relay.Constant")
    FailAt(kind, "unsupported metadata kind '" + std::string(kind.text) + "' (expected Constant)");
  ExpectPunct("]");
  ExpectPunct("[");
  const Token& idx_tok = Peek();
  int64_t index = ParseSmallInt("a metadata index");
  ExpectPunct("]");
  if (!lex_.has_metadata)
    FailAt(meta_tok, "meta[Constant][" + std::to_string(index) +
                         "] is used but the text has no #[metadata] section");
  if (index >= static_cast<int64_t>(meta_.size()))
    FailAt(idx_tok, "meta[Constant][" + std::to_string(index) +
                        "] is out of range: the metadata holds " + std::to_string(meta_.size()) +
                        " constant(s)");
  return meta_[index];
}

Expr Parser::ParseLiteralConstant(bool negative) {
  const Token& tok = Peek();
  NumberLit lit = ClassifyNumber(tok);
  NDArray arr = NDArray::Empty({}, lit.dtype);
  if (IsFloat(lit.dtype)) {
    arr.SetFloat(0, ParseFloatLiteral(tok, lit, negative, lit.dtype != DType::kFloat64));
  } else {
    arr.SetInt(0, ParseIntLiteral(tok, lit, negative));
  }
  Next();
  return MakeConstant(arr);
}

}  // namespace tessera::text
