// Private: the recursive-descent parser of the text format. Graph functions and module
// structure are parsed in parser.cc, literals, types and attributes in
// text_parse_values.cc, metadata in text_parse_meta.cc, tensor IR (primfn) in
// text_parse_tir.cc.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tessera/ir/module.h"
#include "tessera/ir/tir.h"
#include "tessera/support/error.h"
#include "text_lexer.h"

namespace tessera::text {

/// "inf", "nanf16", ...: the spellings of non-finite literals (an identifier token).
bool IsNonFiniteName(std::string_view s);

/// Names bound in nested scopes; inner bindings shadow outer ones until popped.
template <typename T>
class ScopedNames {
 public:
  void Push() { scopes_.emplace_back(); }
  void Pop() {
    for (const auto& name : scopes_.back()) {
      auto it = map_.find(name);
      it->second.pop_back();
      if (it->second.empty()) map_.erase(it);
    }
    scopes_.pop_back();
  }
  void Bind(const std::string& name, T value) {
    map_[name].push_back(std::move(value));
    scopes_.back().push_back(name);
  }
  const T* Find(const std::string& name) const {
    auto it = map_.find(name);
    return it == map_.end() ? nullptr : &it->second.back();
  }
  void Clear() {
    map_.clear();
    scopes_.clear();
  }

 private:
  std::unordered_map<std::string, std::vector<T>> map_;
  std::vector<std::vector<std::string>> scopes_;
};

/// A numeric literal token split into its value text and dtype.
struct NumberLit {
  std::string_view digits;  ///< mantissa and exponent, without sign or suffix
  DType dtype;
  bool float_syntax;  ///< has '.' or an exponent, or is inf/nan
  bool is_inf = false, is_nan = false;
};

/// Parses one text (module or expression). Not reusable across texts.
class Parser {
 public:
  Parser(std::string_view text, std::string_view source);
  /// A whole module (see ParseModule in parser.h).
  IRModule ParseModule();
  /// A block of graph bindings ending in an expression, up to the end of the text.
  Expr ParseStandaloneExpr();

 private:
  // ---- tokens and errors (parser.cc) ----
  const Token& Peek(size_t k = 0) const;
  const Token& Next();
  bool IsPunct(std::string_view p, size_t k = 0) const;
  bool IsIdent(std::string_view name, size_t k = 0) const;
  bool AcceptPunct(std::string_view p);
  const Token& ExpectPunct(std::string_view p);
  const Token& ExpectKind(TokKind kind, const char* what);
  void ExpectIdent(std::string_view name);
  [[noreturn]] void Expected(const std::string& what) const;
  [[noreturn]] void FailAt(const Token& tok, const std::string& message,
                           ErrorKind kind = ErrorKind::kParse) const;
  std::string Where(const Token& tok) const;
  /// Runs `fn`, re-throwing any tessera::Error with `tok`'s location in front.
  template <typename F>
  auto Located(const Token& tok, F&& fn) -> decltype(fn()) {
    try {
      return fn();
    } catch (const Error& e) {
      throw Error(e.kind(), Where(tok) + e.what());
    }
  }
  /// Guards recursion depth so that hostile nesting fails cleanly.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser* p);
    ~DepthGuard() { --p_->depth_; }

   private:
    Parser* p_;
  };

  // ---- shared pieces (parser.cc) ----
  DType ParseDTypeToken();
  std::vector<int64_t> ParseShape();
  Type ParseType();
  AttrValue ParseAttrValue();
  std::string ParseAttrKey();
  bool AtAttr() const;
  NumberLit ClassifyNumber(const Token& tok);
  int64_t ParseIntLiteral(const Token& tok, const NumberLit& lit, bool negative);
  double ParseFloatLiteral(const Token& tok, const NumberLit& lit, bool negative, bool as_float);
  int64_t ParseSmallInt(const char* what);

  // ---- graph level (parser.cc) ----
  void ParseHeader(IRModule* mod);
  Function ParseFunctionRest(const Token& start);
  /// Bindings and lets ending in an expression, up to `}` (consumed) or the end of text.
  Expr ParseBlock(bool braced);
  Expr ParseExpr();
  Expr ParsePrimary();
  Expr ParseCallRest(const Token& at, Expr callee, const OpDef* def);
  Expr ParseLiteralConstant(bool negative);
  Expr ParseMeta();
  void LoadMetadata();
  GlobalVar ReferGlobal(const Token& tok);

  // ---- tensor level (text_parse_tir.cc) ----
  tir::PrimFunc ParsePrimFuncRest(const Token& start);
  tir::Buffer ParseBufferDecl();
  tir::Var ParseTirVarDecl();
  tir::Stmt ParseStmtBlock();
  tir::Stmt ParseStmt();
  tir::Stmt ParseFor();
  tir::Stmt ParseTirBlock();
  std::vector<tir::BufferRegion> ParseRegions(const char* keyword);
  tir::PrimExpr ParsePrimExpr(int min_prec = 0);
  tir::PrimExpr ParsePrimUnary();
  tir::PrimExpr ParsePrimPrimary();
  tir::PrimExpr ParsePrimLiteral(bool negative);
  tir::Buffer LookupBuffer(const Token& tok);
  std::vector<tir::PrimExpr> ParseIndices(const tir::Buffer& buffer);

  std::string_view text_;
  std::string source_;
  LexResult lex_;
  size_t pos_ = 0;
  int depth_ = 0;

  ScopedNames<Expr> locals_;
  std::vector<std::pair<std::string, Token>> global_refs_;
  std::vector<Constant> meta_;
  bool meta_loaded_ = false;

  ScopedNames<tir::Var> tir_vars_;
  ScopedNames<tir::Buffer> tir_buffers_;
};

}  // namespace tessera::text
