// Text-format parser: the token cursor and its errors, number literals, types and
// attribute values.
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "text_parser.h"

namespace tessera::text {

namespace {
constexpr int kMaxDepth = 512;

std::string ValidDTypes() {
  std::string valid;
  for (int i = 0; i <= static_cast<int>(DType::kBool); ++i)
    valid += std::string(valid.empty() ? "" : ", ") + DTypeName(static_cast<DType>(i));
  return valid;
}

}  // namespace

bool IsNonFiniteName(std::string_view s) {
  if (s.substr(0, 3) != "inf" && s.substr(0, 3) != "nan") return false;
  std::string_view suffix = s.substr(3);
  return suffix.empty() || suffix == "f" || suffix == "f16" || suffix == "f32" || suffix == "f64" ||
         suffix == "bf16";
}

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

}  // namespace tessera::text
