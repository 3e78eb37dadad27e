// Text-format parser: module structure, types, attributes, literals, metadata and graph
// functions (tensor-level primfns are in text_parse_tir.cc).
#include "tessera/ir/parser.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "tessera/support/base64.h"
#include "tessera/ir/op.h"
#include "text_parser.h"

namespace tessera {

namespace text {

namespace {
constexpr int kMaxDepth = 512;

std::string ValidDTypes() {
  std::string valid;
  for (int i = 0; i <= static_cast<int>(DType::kBool); ++i)
    valid += std::string(valid.empty() ? "" : ", ") + DTypeName(static_cast<DType>(i));
  return valid;
}

/// "inf", "nanf16", ...: the spellings of non-finite literals (an identifier token).
bool IsNonFiniteName(std::string_view s) {
  if (s.substr(0, 3) != "inf" && s.substr(0, 3) != "nan") return false;
  std::string_view suffix = s.substr(3);
  return suffix.empty() || suffix == "f" || suffix == "f16" || suffix == "f32" || suffix == "f64" ||
         suffix == "bf16";
}
}  // namespace

Parser::Parser(std::string_view text, std::string_view source)
    : text_(text), source_(source), lex_(Lex(text, source)) {}

// ---- tokens and errors -------------------------------------------------------------

const Token& Parser::Peek(size_t k) const {
  size_t i = pos_ + k;
  return lex_.tokens[i < lex_.tokens.size() ? i : lex_.tokens.size() - 1];
}

const Token& Parser::Next() {
  const Token& tok = lex_.tokens[pos_];
  if (tok.kind != TokKind::kEnd) ++pos_;
  return tok;
}

bool Parser::IsPunct(std::string_view p, size_t k) const {
  const Token& t = Peek(k);
  return t.kind == TokKind::kPunct && t.text == p;
}

bool Parser::IsIdent(std::string_view name, size_t k) const {
  const Token& t = Peek(k);
  return t.kind == TokKind::kIdent && t.text == name;
}

bool Parser::AcceptPunct(std::string_view p) {
  if (!IsPunct(p)) return false;
  Next();
  return true;
}

const Token& Parser::ExpectPunct(std::string_view p) {
  if (!IsPunct(p)) Expected("'" + std::string(p) + "'");
  return Next();
}

const Token& Parser::ExpectKind(TokKind kind, const char* what) {
  if (Peek().kind != kind) Expected(what);
  return Next();
}

void Parser::ExpectIdent(std::string_view name) {
  if (!IsIdent(name)) Expected("'" + std::string(name) + "'");
  Next();
}

std::string Parser::Where(const Token& tok) const {
  return source_ + ":" + std::to_string(tok.line) + ":" + std::to_string(tok.col) + ": ";
}

void Parser::Expected(const std::string& what) const {
  FailAt(Peek(), "expected " + what + ", got " + TokenDisplay(Peek()));
}

void Parser::FailAt(const Token& tok, const std::string& message, ErrorKind kind) const {
  throw Error(kind, Where(tok) + message);
}

Parser::DepthGuard::DepthGuard(Parser* p) : p_(p) {
  if (++p_->depth_ > kMaxDepth)
    p_->FailAt(p_->Peek(), "nesting is deeper than " + std::to_string(kMaxDepth) + " levels");
}

// ---- literals ------------------------------------------------------------------------

NumberLit Parser::ClassifyNumber(const Token& tok) {
  NumberLit lit;
  std::string_view suffix;
  if (tok.kind == TokKind::kIdent) {
    lit.digits = tok.text.substr(0, 3);
    suffix = tok.text.substr(3);
    lit.is_inf = lit.digits == "inf";
    lit.is_nan = !lit.is_inf;
    lit.float_syntax = true;
  } else {
    lit.digits = tok.text.substr(0, tok.suffix);
    suffix = tok.text.substr(tok.suffix);
    lit.float_syntax = lit.digits.find_first_of(".eE") != std::string_view::npos;
  }
  static const std::pair<const char*, DType> kSuffixes[] = {
      {"f", DType::kFloat32},   {"f32", DType::kFloat32},   {"f16", DType::kFloat16},
      {"f64", DType::kFloat64}, {"bf16", DType::kBFloat16}, {"i8", DType::kInt8},
      {"i32", DType::kInt32},   {"i64", DType::kInt64},     {"u8", DType::kUInt8},
  };
  if (suffix.empty()) {
    lit.dtype = lit.float_syntax ? DType::kFloat32 : DType::kInt32;
    return lit;
  }
  for (const auto& [s, dtype] : kSuffixes) {
    if (suffix != s) continue;
    lit.dtype = dtype;
    if (lit.float_syntax && !IsFloat(dtype))
      FailAt(tok, "literal '" + std::string(tok.text) + "' is not an integer but has the " +
                      DTypeName(dtype) + " suffix '" + std::string(suffix) + "'");
    return lit;
  }
  FailAt(tok, "unknown suffix '" + std::string(suffix) + "' of literal '" + std::string(tok.text) +
                  "' (valid: f, f16, f32, f64, bf16, i8, i32, i64, u8)");
}

int64_t Parser::ParseIntLiteral(const Token& tok, const NumberLit& lit, bool negative) {
  uint64_t magnitude = 0;
  auto res = std::from_chars(lit.digits.data(), lit.digits.data() + lit.digits.size(), magnitude);
  std::string shown = (negative ? "-" : "") + std::string(tok.text);
  if (res.ec != std::errc() || res.ptr != lit.digits.data() + lit.digits.size())
    FailAt(tok, "integer literal '" + shown + "' is out of range");
  int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  switch (lit.dtype) {
    case DType::kInt8:
      lo = -128, hi = 127;
      break;
    case DType::kUInt8:
      lo = 0, hi = 255;
      break;
    case DType::kInt32:
      lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
      break;
    default:
      break;
  }
  // The most negative value has magnitude -(lo + 1) + 1, computed without overflow.
  uint64_t limit =
      negative ? (lo == 0 ? 0 : static_cast<uint64_t>(-(lo + 1)) + 1) : static_cast<uint64_t>(hi);
  if (magnitude > limit)
    FailAt(tok, "integer literal '" + shown + "' is out of range for " + DTypeName(lit.dtype));
  if (!negative) return static_cast<int64_t>(magnitude);
  return magnitude == 0 ? 0 : -static_cast<int64_t>(magnitude - 1) - 1;
}

double Parser::ParseFloatLiteral(const Token& tok, const NumberLit& lit, bool negative,
                                 bool as_float) {
  double value;
  if (lit.is_inf) {
    value = std::numeric_limits<double>::infinity();
  } else if (lit.is_nan) {
    value = std::numeric_limits<double>::quiet_NaN();
  } else {
    const char* begin = lit.digits.data();
    const char* end = begin + lit.digits.size();
    std::from_chars_result res;
    if (as_float) {
      float f = 0;
      res = std::from_chars(begin, end, f);
      value = f;
    } else {
      res = std::from_chars(begin, end, value);
    }
    if (res.ec == std::errc::result_out_of_range)
      FailAt(tok, "float literal '" + std::string(tok.text) + "' is out of range for " +
                      (as_float ? "float32" : "float64"));
    if (res.ec != std::errc() || res.ptr != end)
      FailAt(tok, "malformed float literal '" + std::string(tok.text) + "'");
  }
  return negative ? -value : value;
}

int64_t Parser::ParseSmallInt(const char* what) {
  const Token& tok = Peek();
  if (tok.kind != TokKind::kNumber) Expected(what);
  NumberLit lit = ClassifyNumber(tok);
  if (lit.float_syntax || (lit.dtype != DType::kInt32 && lit.dtype != DType::kInt64))
    Expected(what);
  lit.dtype = DType::kInt64;
  int64_t v = ParseIntLiteral(tok, lit, false);
  Next();
  return v;
}

// ---- types and attributes ------------------------------------------------------------

DType Parser::ParseDTypeToken() {
  const Token& tok = ExpectKind(TokKind::kIdent, "a dtype like float32");
  auto dtype = ParseDType(tok.text);
  if (!dtype)
    FailAt(tok, "unknown dtype '" + std::string(tok.text) + "' (valid: " + ValidDTypes() + ")",
           ErrorKind::kValue);
  return *dtype;
}

std::vector<int64_t> Parser::ParseShape() {
  ExpectPunct("(");
  std::vector<int64_t> shape;
  while (!IsPunct(")")) {
    shape.push_back(ParseSmallInt("a dimension (a non-negative integer)"));
    if (!AcceptPunct(",")) break;
  }
  ExpectPunct(")");
  return shape;
}

Type Parser::ParseType() {
  DepthGuard guard(this);
  const Token& tok = Peek();
  if (IsIdent("Tensor")) {
    Next();
    ExpectPunct("[");
    std::vector<int64_t> shape = ParseShape();
    ExpectPunct(",");
    DType dtype = ParseDTypeToken();
    ExpectPunct("]");
    return Located(tok, [&] { return Type(MakeTensorType(shape, dtype)); });
  }
  if (IsIdent("fn")) {
    Next();
    ExpectPunct("(");
    std::vector<Type> args;
    while (!IsPunct(")")) {
      args.push_back(ParseType());
      if (!AcceptPunct(",")) break;
    }
    ExpectPunct(")");
    ExpectPunct("->");
    Type ret = ParseType();
    return MakeFuncType(std::move(args), std::move(ret));
  }
  if (IsPunct("(")) {
    Next();
    std::vector<Type> fields;
    while (!IsPunct(")")) {
      fields.push_back(ParseType());
      if (!AcceptPunct(",")) break;
    }
    ExpectPunct(")");
    return MakeTupleType(std::move(fields));
  }
  if (tok.kind == TokKind::kIdent && ParseDType(tok.text)) {
    Next();
    return MakeTensorType({}, *ParseDType(tok.text));
  }
  Expected("a type like Tensor[(1, 3), float32]");
}

bool Parser::AtAttr() const {
  TokKind k = Peek().kind;
  return (k == TokKind::kIdent || k == TokKind::kString) && IsPunct("=", 1);
}

std::string Parser::ParseAttrKey() {
  const Token& tok = Next();
  return tok.kind == TokKind::kString ? tok.value : std::string(tok.text);
}

AttrValue Parser::ParseAttrValue() {
  DepthGuard guard(this);
  const Token& tok = Peek();
  if (AcceptPunct("[")) {
    std::vector<AttrValue> items;
    while (!IsPunct("]")) {
      items.push_back(ParseAttrValue());
      if (!AcceptPunct(",")) break;
    }
    ExpectPunct("]");
    return AttrValue(std::move(items));
  }
  bool negative = false;
  if (IsPunct("-") && (Peek(1).kind == TokKind::kNumber ||
                       (Peek(1).kind == TokKind::kIdent && IsNonFiniteName(Peek(1).text)))) {
    Next();
    negative = true;
  }
  const Token& num = Peek();
  if (num.kind == TokKind::kNumber || (num.kind == TokKind::kIdent && IsNonFiniteName(num.text))) {
    NumberLit lit = ClassifyNumber(num);
    AttrValue v;
    if (lit.float_syntax || IsFloat(lit.dtype)) {
      v = AttrValue(ParseFloatLiteral(num, lit, negative, false));
    } else {
      lit.dtype = DType::kInt64;
      v = AttrValue(ParseIntLiteral(num, lit, negative));
    }
    Next();
    return v;
  }
  if (tok.kind == TokKind::kString) {
    Next();
    return AttrValue(tok.value);
  }
  if (IsIdent("True") || IsIdent("False")) {
    Next();
    return AttrValue(tok.text == "True");
  }
  if (IsIdent("None")) {
    Next();
    return AttrValue();
  }
  Expected("an attribute value (number, string, True, False, None or [...])");
}

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

// ---- module structure ----------------------------------------------------------------

void Parser::ParseHeader(IRModule* mod) {
  ExpectPunct("#[");
  if (IsIdent("version")) {
    Next();
    ExpectPunct("=");
    ExpectKind(TokKind::kString, "a version string");
  } else if (IsIdent("attrs")) {
    Next();
    ExpectPunct("(");
    while (!IsPunct(")")) {
      if (!AtAttr()) Expected("a module attribute key=value");
      std::string key = ParseAttrKey();
      Next();  // '='
      *mod = mod->WithAttr(key, ParseAttrValue());
      if (!AcceptPunct(",")) break;
    }
    ExpectPunct(")");
  } else {
    Expected("'version' or 'attrs' after '#['");
  }
  ExpectPunct("]");
}

IRModule Parser::ParseModule() {
  LoadMetadata();
  IRModule attrs_holder;
  auto node = MakeNode<IRModuleNode>();
  auto check_new = [&](const Token& at, const std::string& name) {
    for (const auto& [n, g] : node->functions)
      if (n == name) FailAt(at, "function @" + name + " is defined twice");
  };
  while (Peek().kind != TokKind::kEnd) {
    const Token& tok = Peek();
    if (IsPunct("#[")) {
      ParseHeader(&attrs_holder);
    } else if (IsIdent("def") || IsIdent("primfn")) {
      bool prim = IsIdent("primfn");
      Next();
      const Token& name = ExpectKind(TokKind::kGlobal, "a function name like @main");
      check_new(name, name.value);
      BaseFunc f;
      if (prim)
        f = ParsePrimFuncRest(name);
      else
        f = ParseFunctionRest(name);
      node->functions.emplace_back(name.value, std::move(f));
    } else if (IsIdent("fn")) {
      Next();
      check_new(tok, "main");
      node->functions.emplace_back("main", ParseFunctionRest(tok));
    } else {
      Expected("'def', 'primfn' or 'fn'");
    }
  }
  node->attrs = attrs_holder.attrs();
  for (const auto& [name, tok] : global_refs_) {
    bool found = false;
    for (const auto& [n, g] : node->functions) found = found || n == name;
    if (!found) FailAt(tok, "undefined global function '@" + name + "'");
  }
  return IRModule(Ref<const IRModuleNode>(std::move(node)));
}

Expr Parser::ParseStandaloneExpr() {
  LoadMetadata();
  if (IsIdent("primfn")) {
    const Token& tok = Next();
    if (Peek().kind == TokKind::kGlobal) Next();
    Expr f = ParsePrimFuncRest(tok);
    if (Peek().kind != TokKind::kEnd) Expected("end of input");
    return f;
  }
  return ParseBlock(false);
}

// ---- graph functions -----------------------------------------------------------------

Function Parser::ParseFunctionRest(const Token& start) {
  DepthGuard guard(this);
  ExpectPunct("(");
  locals_.Push();
  std::vector<Var> params;
  Attrs attrs;
  while (!IsPunct(")")) {
    if (Peek().kind == TokKind::kLocal) {
      const Token& name = Next();
      Type type;
      if (AcceptPunct(":")) type = ParseType();
      Var v = MakeVar(name.value, type);
      params.push_back(v);
      locals_.Bind(name.value, v);
    } else if (AtAttr()) {
      std::string key = ParseAttrKey();
      Next();  // '='
      attrs.Set(key, ParseAttrValue());
    } else {
      Expected("a parameter like %x: Tensor[(1), float32] or an attribute key=value");
    }
    if (!AcceptPunct(",")) break;
  }
  ExpectPunct(")");
  Type ret;
  if (AcceptPunct("->")) ret = ParseType();
  ExpectPunct("{");
  Expr body = ParseBlock(true);
  locals_.Pop();
  return MakeFunction(std::move(params), std::move(body), std::move(ret), std::move(attrs));
}

Expr Parser::ParseBlock(bool braced) {
  DepthGuard guard(this);
  locals_.Push();
  std::vector<std::pair<Var, Expr>> lets;
  Expr tail;
  while (true) {
    if (IsIdent("let")) {
      Next();
      const Token& name = ExpectKind(TokKind::kLocal, "a variable like %x after 'let'");
      Type type;
      if (AcceptPunct(":")) type = ParseType();
      ExpectPunct("=");
      Expr value = ParseExpr();
      ExpectPunct(";");
      Var v = MakeVar(name.value, type);
      locals_.Bind(name.value, v);
      lets.emplace_back(std::move(v), std::move(value));
      continue;
    }
    if (Peek().kind == TokKind::kLocal && IsPunct("=", 1)) {
      std::string name = Next().value;
      Next();
      Expr value = ParseExpr();
      ExpectPunct(";");
      locals_.Bind(name, std::move(value));
      continue;
    }
    tail = ParseExpr();
    if (braced)
      ExpectPunct("}");
    else if (Peek().kind != TokKind::kEnd)
      Expected("end of input");
    break;
  }
  locals_.Pop();
  for (size_t i = lets.size(); i-- > 0;)
    tail = MakeLet(std::move(lets[i].first), std::move(lets[i].second), std::move(tail));
  return tail;
}

GlobalVar Parser::ReferGlobal(const Token& tok) {
  global_refs_.emplace_back(tok.value, tok);
  return MakeGlobalVar(tok.value);
}

Expr Parser::ParseExpr() {
  DepthGuard guard(this);
  Expr e = ParsePrimary();
  while (true) {
    if (IsPunct(".")) {
      Next();
      const Token& idx_tok = Peek();
      int64_t index = ParseSmallInt("a tuple index after '.'");
      if (index > std::numeric_limits<int32_t>::max())
        FailAt(idx_tok, "tuple index " + std::to_string(index) + " is too large");
      e = MakeTupleGetItem(e, static_cast<int>(index));
    } else if (IsPunct("(")) {
      e = ParseCallRest(Peek(), e, nullptr);
    } else {
      return e;
    }
  }
}

Expr Parser::ParsePrimary() {
  const Token& tok = Peek();
  switch (tok.kind) {
    case TokKind::kLocal: {
      const Expr* e = locals_.Find(tok.value);
      if (!e) FailAt(tok, "undefined variable '%" + tok.value + "'");
      Next();
      return *e;
    }
    case TokKind::kGlobal:
      Next();
      return ReferGlobal(tok);
    case TokKind::kNumber:
      return ParseLiteralConstant(false);
    case TokKind::kPunct:
      if (IsPunct("-") && (Peek(1).kind == TokKind::kNumber ||
                           (Peek(1).kind == TokKind::kIdent && IsNonFiniteName(Peek(1).text)))) {
        Next();
        return ParseLiteralConstant(true);
      }
      if (IsPunct("(")) {
        Next();
        if (AcceptPunct(")")) return MakeTuple({});
        Expr first = ParseExpr();
        if (AcceptPunct(")")) return first;
        if (!IsPunct(",")) Expected("',' or ')'");
        std::vector<Expr> fields{first};
        while (AcceptPunct(",") && !IsPunct(")")) fields.push_back(ParseExpr());
        ExpectPunct(")");
        return MakeTuple(std::move(fields));
      }
      if (IsPunct("{")) {
        Next();
        return ParseBlock(true);
      }
      break;
    case TokKind::kIdent: {
      if (tok.text == "fn") {
        Next();
        return ParseFunctionRest(tok);
      }
      if (tok.text == "True" || tok.text == "False") {
        Next();
        return MakeConstant(NDArray::Scalar(tok.text == "True" ? 1 : 0, DType::kBool));
      }
      if (tok.text == "meta" && IsPunct("[", 1)) return ParseMeta();
      if (IsNonFiniteName(tok.text) && !OpRegistry::Global().Find(tok.text))
        return ParseLiteralConstant(false);
      if (tok.text == "let")
        FailAt(tok, "'let' may only start a statement of a block; wrap it in { ... }");
      const OpDef* def = OpRegistry::Global().Find(tok.text);
      if (!def) FailAt(tok, "unknown op '" + std::string(tok.text) + "'", ErrorKind::kNotFound);
      Next();
      Op op = OpRegistry::Global().GetOp(def->name);
      if (IsPunct("(")) return ParseCallRest(tok, op, def);
      return op;
    }
    default:
      break;
  }
  Expected("an expression");
}

Expr Parser::ParseCallRest(const Token& at, Expr callee, const OpDef* def) {
  ExpectPunct("(");
  std::vector<Expr> args;
  Attrs attrs;
  std::vector<Type> type_args;
  bool call_tir = def && def->name == kCallTirOp;
  while (!IsPunct(")")) {
    if (AtAttr()) {
      const Token& key_tok = Peek();
      std::string key = ParseAttrKey();
      Next();  // '='
      if (key == "type_args") {
        ExpectPunct("[");
        while (!IsPunct("]")) {
          type_args.push_back(ParseType());
          if (!AcceptPunct(",")) break;
        }
        ExpectPunct("]");
      } else {
        if (attrs.Has(key)) FailAt(key_tok, "attribute '" + key + "' is given twice");
        if (def) {
          bool known = false;
          std::string valid;
          for (const auto& f : def->attrs) {
            known = known || f.name == key;
            valid += (valid.empty() ? "" : ", ") + f.name;
          }
          if (!known)
            FailAt(key_tok,
                   "op '" + def->name + "': unknown attribute '" + key + "'" +
                       (valid.empty() ? " (it takes no attributes)" : " (valid: " + valid + ")"),
                   ErrorKind::kValue);
        }
        attrs.Set(key, ParseAttrValue());
      }
    } else if (call_tir && args.size() == 2) {
      type_args.push_back(ParseType());
    } else {
      args.push_back(ParseExpr());
    }
    if (!AcceptPunct(",")) break;
  }
  ExpectPunct(")");
  if (def)
    return Located(at, [&] {
      return Expr(MakeOpCall(def->name, std::move(args), attrs, std::move(type_args)));
    });
  return MakeCall(std::move(callee), std::move(args), std::move(attrs), std::move(type_args));
}

}  // namespace text

IRModule ParseModule(std::string_view text, std::string_view source_name) {
  return text::Parser(text, source_name).ParseModule();
}

Expr ParseExpr(std::string_view text, std::string_view source_name) {
  return text::Parser(text, source_name).ParseStandaloneExpr();
}

}  // namespace tessera
