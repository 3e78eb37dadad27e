// The text form of index maps: IndexMap::Parse and ToString, and the Python-style printer
// of index and predicate expressions.
#include <cctype>
#include <sstream>
#include <unordered_set>

#include "index_text.h"
#include "tessera/ir/printer.h"
#include "tessera/layout/index_map.h"
#include "tessera/support/error.h"

namespace tessera::layout {
namespace detail {
namespace {

using tir::BinaryNode;
using tir::BinaryOp;
using tir::PrimExpr;

// Python's precedence, loosest first.
enum Level { kOr = 1, kAnd, kNot, kCompare, kSum, kProduct, kUnary, kAtom };

Level LevelOf(const PrimExpr& e) {
  if (auto* b = e.as<BinaryNode>()) {
    switch (b->op) {
      case BinaryOp::kOr:
        return kOr;
      case BinaryOp::kAnd:
        return kAnd;
      case BinaryOp::kAdd:
      case BinaryOp::kSub:
        return kSum;
      case BinaryOp::kMul:
      case BinaryOp::kDiv:
      case BinaryOp::kFloorDiv:
      case BinaryOp::kFloorMod:
        return kProduct;
      case BinaryOp::kMin:
      case BinaryOp::kMax:
        return kAtom;
      default:
        return kCompare;
    }
  }
  if (e.as<tir::NotNode>()) return kNot;
  if (auto* imm = e.as<tir::IntImmNode>(); imm && imm->value < 0) return kUnary;
  return kAtom;
}

const char* OpText(BinaryOp op) {
  switch (op) {
    case BinaryOp::kFloorDiv:
      return "//";
    case BinaryOp::kFloorMod:
      return "%";
    case BinaryOp::kAnd:
      return "and";
    case BinaryOp::kOr:
      return "or";
    default:
      return tir::BinaryOpName(op);
  }
}

void Print(const PrimExpr& e, std::ostringstream& os);

/// Prints `e` in parentheses when its level is below `min_level`.
void PrintAt(const PrimExpr& e, int min_level, std::ostringstream& os) {
  bool paren = LevelOf(e) < min_level;
  if (paren) os << '(';
  Print(e, os);
  if (paren) os << ')';
}

void Print(const PrimExpr& e, std::ostringstream& os) {
  if (auto* imm = e.as<tir::IntImmNode>()) {
    if (imm->dtype == DType::kBool)
      os << (imm->value ? "True" : "False");
    else
      os << imm->value;
  } else if (auto* v = e.as<tir::VarNode>()) {
    os << v->name;
  } else if (auto* n = e.as<tir::NotNode>()) {
    os << "not ";
    PrintAt(n->a, kNot, os);
  } else if (auto* b = e.as<BinaryNode>()) {
    Level level = LevelOf(e);
    if (level == kAtom) {  // min / max
      os << tir::BinaryOpName(b->op) << '(';
      Print(b->a, os);
      os << ", ";
      Print(b->b, os);
      os << ')';
      return;
    }
    // Left-associative: the right operand needs parentheses at its own level too;
    // comparisons chain in Python, so neither side may be a comparison.
    PrintAt(b->a, level == kCompare ? kCompare + 1 : level, os);
    os << ' ' << OpText(b->op) << ' ';
    PrintAt(b->b, level + 1, os);
  } else {
    os << PrintPrimExpr(e);
  }
}

// ---- Parser --------------------------------------------------------------------------

enum class Tok { kIdent, kInt, kPunct, kEnd };

struct Token {
  Tok kind;
  std::string text;
  size_t pos;
};

class LambdaParser {
 public:
  explicit LambdaParser(const std::string& text) : text_(text) { Lex(); }

  ParsedLambda Parse() {
    ParsedLambda out;
    if (!IsIdent("lambda")) Fail("expected 'lambda'");
    ++at_;
    std::unordered_set<std::string> seen;
    while (Peek().kind == Tok::kIdent) {
      const Token& t = Peek();
      if (IsKeyword(t.text)) Fail("'" + t.text + "' cannot name a variable");
      if (!seen.insert(t.text).second) Fail("repeated variable '" + t.text + "'");
      out.params.push_back(tir::MakeVar(t.text));
      ++at_;
      if (!IsPunct(",")) break;
      ++at_;
    }
    params_ = &out.params;
    Expect(":");
    if (IsTupleBody()) {
      ++at_;  // '('
      while (!IsPunct(")")) {
        out.outputs.push_back(ParseSum());
        if (IsPunct(",")) {
          ++at_;
        } else if (!IsPunct(")")) {
          Fail("expected ',' or ')'");
        }
      }
      ++at_;
    } else {
      out.outputs.push_back(ParseSum());
    }
    if (Peek().kind != Tok::kEnd) Fail("unexpected text after the outputs");
    return out;
  }

 private:
  static bool IsKeyword(const std::string& s) {
    return s == "lambda" || s == "floordiv" || s == "floormod";
  }

  void Lex() {
    size_t i = 0;
    while (i < text_.size()) {
      char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t s = i;
        while (i < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '_'))
          ++i;
        tokens_.push_back({Tok::kIdent, text_.substr(s, i - s), s});
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        size_t s = i;
        while (i < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i]))) ++i;
        tokens_.push_back({Tok::kInt, text_.substr(s, i - s), s});
      } else if (c == '/' && i + 1 < text_.size() && text_[i + 1] == '/') {
        tokens_.push_back({Tok::kPunct, "//", i});
        i += 2;
      } else if (std::string("+-*%(),:").find(c) != std::string::npos) {
        tokens_.push_back({Tok::kPunct, std::string(1, c), i});
        ++i;
      } else {
        at_ = tokens_.size();
        tokens_.push_back({Tok::kPunct, std::string(1, c), i});
        Fail(std::string("unexpected character '") + c + "'");
      }
    }
    tokens_.push_back({Tok::kEnd, "", text_.size()});
  }

  const Token& Peek() const { return tokens_[at_]; }
  bool IsPunct(const char* p) const { return Peek().kind == Tok::kPunct && Peek().text == p; }
  bool IsIdent(const char* s) const { return Peek().kind == Tok::kIdent && Peek().text == s; }

  [[noreturn]] void Fail(const std::string& what) const {
    const Token& t = tokens_[std::min(at_, tokens_.size() - 1)];
    throw Error(ErrorKind::kParse,
                "index map text \"" + text_ + "\": " + what + " at position " +
                    std::to_string(t.pos) +
                    (t.kind == Tok::kEnd ? " (end of text)" : " (found '" + t.text + "')"));
  }

  void Expect(const char* p) {
    if (!IsPunct(p)) Fail(std::string("expected '") + p + "'");
    ++at_;
  }

  /// Whether the body is `( ... )` holding a tuple: the parenthesis closes at the end and
  /// encloses a top-level comma or nothing.
  bool IsTupleBody() const {
    if (!IsPunct("(")) return false;
    int depth = 0;
    bool comma = false;
    for (size_t k = at_; k < tokens_.size(); ++k) {
      const Token& t = tokens_[k];
      if (t.kind != Tok::kPunct) continue;
      if (t.text == "(") {
        ++depth;
      } else if (t.text == ")") {
        if (--depth == 0) return tokens_[k + 1].kind == Tok::kEnd && (comma || k == at_ + 1);
      } else if (t.text == "," && depth == 1) {
        comma = true;
      }
    }
    return false;
  }

  PrimExpr ParseSum() {
    PrimExpr e = ParseProduct();
    while (IsPunct("+") || IsPunct("-")) {
      BinaryOp op = Peek().text == "+" ? BinaryOp::kAdd : BinaryOp::kSub;
      ++at_;
      e = tir::MakeBinary(op, e, ParseProduct());
    }
    return e;
  }

  PrimExpr ParseProduct() {
    PrimExpr e = ParseUnary();
    while (IsPunct("*") || IsPunct("//") || IsPunct("%")) {
      BinaryOp op = Peek().text == "*"    ? BinaryOp::kMul
                    : Peek().text == "//" ? BinaryOp::kFloorDiv
                                          : BinaryOp::kFloorMod;
      ++at_;
      e = tir::MakeBinary(op, e, ParseUnary());
    }
    return e;
  }

  PrimExpr ParseUnary() {
    if (!IsPunct("-")) return ParseAtom();
    ++at_;
    PrimExpr e = ParseUnary();
    if (auto* imm = e.as<tir::IntImmNode>()) return tir::IntImm(-imm->value);
    return tir::MakeBinary(BinaryOp::kMul, e, tir::IntImm(-1));
  }

  PrimExpr ParseAtom() {
    const Token& t = Peek();
    if (t.kind == Tok::kInt) {
      int64_t v = 0;
      for (char c : t.text)
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v))
          Fail("integer out of range");
      ++at_;
      return tir::IntImm(v);
    }
    if (IsPunct("(")) {
      ++at_;
      PrimExpr e = ParseSum();
      Expect(")");
      return e;
    }
    if (t.kind == Tok::kIdent && (t.text == "floordiv" || t.text == "floormod")) {
      BinaryOp op = t.text == "floordiv" ? BinaryOp::kFloorDiv : BinaryOp::kFloorMod;
      ++at_;
      Expect("(");
      PrimExpr a = ParseSum();
      Expect(",");
      PrimExpr b = ParseSum();
      Expect(")");
      return tir::MakeBinary(op, a, b);
    }
    if (t.kind == Tok::kIdent) {
      for (const tir::Var& v : *params_)
        if (v->name == t.text) {
          ++at_;
          return v;
        }
      Fail("unknown variable '" + t.text + "'");
    }
    Fail("expected an index expression");
  }

  const std::string& text_;
  std::vector<Token> tokens_;
  size_t at_ = 0;
  const std::vector<tir::Var>* params_ = nullptr;
};

}  // namespace

std::string IndexExprText(const tir::PrimExpr& expr) {
  if (!expr.defined()) return "(null)";
  std::ostringstream os;
  Print(expr, os);
  return os.str();
}

ParsedLambda ParseLambda(const std::string& text) {
  return LambdaParser(text).Parse();
}

}  // namespace detail

std::string IndexExprToString(const tir::PrimExpr& expr) {
  return detail::IndexExprText(expr);
}

IndexMap IndexMap::Parse(const std::string& text) {
  detail::ParsedLambda parsed = detail::ParseLambda(text);
  return IndexMap(std::move(parsed.params), std::move(parsed.outputs));
}

std::string IndexMap::ToString() const {
  std::ostringstream os;
  os << "lambda";
  for (size_t k = 0; k < initial_.size(); ++k) os << (k ? ", " : " ") << initial_[k]->name;
  os << ": (";
  for (size_t k = 0; k < final_.size(); ++k)
    os << (k ? ", " : "") << detail::IndexExprText(final_[k]);
  if (final_.size() == 1) os << ',';
  os << ')';
  return os.str();
}

}  // namespace tessera::layout
