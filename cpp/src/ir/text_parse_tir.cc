// Text-format parser for tensor IR: primfn signatures, statements and scalar expressions.
#include <limits>
#include <optional>

#include "text_parser.h"

namespace tessera::text {

namespace {

/// Binding strength of infix operators (C precedence); 0 for other tokens.
int InfixPrecedence(const Token& tok, tir::BinaryOp* op) {
  if (tok.kind != TokKind::kPunct) return 0;
  static const struct {
    const char* text;
    int prec;
    tir::BinaryOp op;
  } kOps[] = {
      {"||", 1, tir::BinaryOp::kOr}, {"&&", 2, tir::BinaryOp::kAnd}, {"==", 3, tir::BinaryOp::kEQ},
      {"!=", 3, tir::BinaryOp::kNE}, {"<", 4, tir::BinaryOp::kLT},   {"<=", 4, tir::BinaryOp::kLE},
      {">", 4, tir::BinaryOp::kGT},  {">=", 4, tir::BinaryOp::kGE},  {"+", 5, tir::BinaryOp::kAdd},
      {"-", 5, tir::BinaryOp::kSub}, {"*", 6, tir::BinaryOp::kMul},  {"/", 6, tir::BinaryOp::kDiv},
  };
  for (const auto& o : kOps) {
    if (tok.text == o.text) {
      *op = o.op;
      return o.prec;
    }
  }
  return 0;
}

bool IsNonFiniteIdent(const Token& tok) {
  if (tok.kind != TokKind::kIdent) return false;
  std::string_view s = tok.text;
  if (s.substr(0, 3) != "inf" && s.substr(0, 3) != "nan") return false;
  std::string_view suffix = s.substr(3);
  return suffix.empty() || suffix == "f" || suffix == "f16" || suffix == "f32" || suffix == "f64" ||
         suffix == "bf16";
}

}  // namespace

tir::Buffer Parser::ParseBufferDecl() {
  const Token& name = ExpectKind(TokKind::kLocal, "a buffer like %A: Buffer[(10), float32]");
  ExpectPunct(":");
  ExpectIdent("Buffer");
  ExpectPunct("[");
  std::vector<int64_t> shape = ParseShape();
  ExpectPunct(",");
  DType dtype = ParseDTypeToken();
  ExpectPunct("]");
  tir::Buffer buffer = Located(name, [&] { return tir::MakeBuffer(name.value, shape, dtype); });
  tir_buffers_.Bind(name.value, buffer);
  return buffer;
}

tir::Var Parser::ParseTirVarDecl() {
  const Token& name = ExpectKind(TokKind::kLocal, "a variable like %i");
  ExpectPunct(":");
  DType dtype = ParseDTypeToken();
  return tir::MakeVar(name.value, dtype);
}

tir::PrimFunc Parser::ParsePrimFuncRest(const Token& start) {
  DepthGuard guard(this);
  tir_buffers_.Push();
  std::vector<tir::Buffer> params;
  Attrs attrs;
  ExpectPunct("(");
  while (!IsPunct(")")) {
    if (AtAttr()) {
      std::string key = ParseAttrKey();
      Next();  // '='
      attrs.Set(key, ParseAttrValue());
    } else if (Peek().kind == TokKind::kLocal) {
      params.push_back(ParseBufferDecl());
    } else {
      Expected("a buffer like %A: Buffer[(10), float32] or an attribute key=value");
    }
    if (!AcceptPunct(",")) break;
  }
  ExpectPunct(")");
  ExpectPunct("->");
  ExpectPunct("(");
  int num_outputs = 0;
  while (!IsPunct(")")) {
    params.push_back(ParseBufferDecl());
    ++num_outputs;
    if (!AcceptPunct(",")) break;
  }
  ExpectPunct(")");
  ExpectPunct("{");
  tir::Stmt body = ParseStmtBlock();
  tir_buffers_.Pop();
  return Located(start, [&] {
    return tir::MakePrimFunc(std::move(params), num_outputs, std::move(body), std::move(attrs));
  });
}

tir::Stmt Parser::ParseStmtBlock() {
  std::vector<tir::Stmt> stmts;
  while (!AcceptPunct("}")) {
    if (Peek().kind == TokKind::kEnd) Expected("'}'");
    stmts.push_back(ParseStmt());
  }
  return tir::MakeSeq(std::move(stmts));
}

tir::Stmt Parser::ParseStmt() {
  DepthGuard guard(this);
  const Token& tok = Peek();
  if (IsIdent("for")) return ParseFor();
  if (IsIdent("block")) return ParseTirBlock();
  if (IsIdent("allocate")) {
    Next();
    tir_buffers_.Push();
    tir::Buffer buffer = ParseBufferDecl();
    bool zero_fill = true;
    if (IsIdent("uninitialized")) {
      Next();
      zero_fill = false;
    }
    ExpectPunct("{");
    tir::Stmt body = ParseStmtBlock();
    tir_buffers_.Pop();
    return tir::MakeAllocate(std::move(buffer), std::move(body), zero_fill);
  }
  if (IsIdent("prefetch") && Peek(1).kind == TokKind::kLocal) {
    Next();
    const Token& name = Peek();
    tir::Buffer buffer = LookupBuffer(Next());
    std::vector<tir::PrimExpr> indices = ParseIndices(buffer);
    ExpectPunct(";");
    return Located(name, [&] { return tir::MakePrefetch(buffer, std::move(indices)); });
  }
  if (IsIdent("if")) {
    Next();
    ExpectPunct("(");
    tir::PrimExpr cond = ParsePrimExpr();
    ExpectPunct(")");
    ExpectPunct("{");
    tir::Stmt then_case = ParseStmtBlock();
    tir::Stmt else_case;
    if (IsIdent("else")) {
      Next();
      if (IsIdent("if")) {
        else_case = ParseStmt();
      } else {
        ExpectPunct("{");
        else_case = ParseStmtBlock();
      }
    }
    return Located(tok, [&] { return tir::MakeIfThenElse(cond, then_case, else_case); });
  }
  if (tok.kind == TokKind::kLocal && IsPunct("[", 1)) {
    tir::Buffer buffer = LookupBuffer(Next());
    std::vector<tir::PrimExpr> indices = ParseIndices(buffer);
    ExpectPunct("=");
    tir::PrimExpr value = ParsePrimExpr();
    ExpectPunct(";");
    return Located(tok, [&] { return tir::MakeStore(buffer, value, std::move(indices)); });
  }
  Expected("a statement (for, block, allocate, if, prefetch, or a store like %B[%i] = ...;)");
}

tir::Stmt Parser::ParseFor() {
  Next();  // for
  tir::Var var = ParseTirVarDecl();
  ExpectIdent("in");
  tir::PrimExpr min = ParsePrimExpr();
  ExpectPunct("+:");
  tir::PrimExpr extent = ParsePrimExpr();
  tir::ForKind kind = tir::ForKind::kSerial;
  if (!IsPunct("{")) {
    const Token& k =
        ExpectKind(TokKind::kIdent, "a loop kind (serial, parallel, vectorized, unrolled)");
    if (k.text == "serial")
      kind = tir::ForKind::kSerial;
    else if (k.text == "parallel")
      kind = tir::ForKind::kParallel;
    else if (k.text == "vectorized")
      kind = tir::ForKind::kVectorized;
    else if (k.text == "unrolled")
      kind = tir::ForKind::kUnrolled;
    else
      FailAt(k, "unknown loop kind '" + std::string(k.text) +
                    "' (valid: serial, parallel, vectorized, unrolled)");
  }
  ExpectPunct("{");
  tir_vars_.Push();
  tir_vars_.Bind(var->name, var);
  tir::Stmt body = ParseStmtBlock();
  tir_vars_.Pop();
  return tir::MakeFor(std::move(var), std::move(min), std::move(extent), kind, std::move(body));
}

tir::Stmt Parser::ParseTirBlock() {
  Next();  // block
  const Token& name = ExpectKind(TokKind::kString, "a block name string");
  ExpectPunct("(");
  std::vector<tir::IterVar> iter_vars;
  while (!IsPunct(")")) {
    tir::IterVar iv;
    iv.var = ParseTirVarDecl();
    ExpectIdent("in");
    iv.dom.min = ParsePrimExpr();
    ExpectPunct("+:");
    iv.dom.extent = ParsePrimExpr();
    if (IsIdent("spatial")) {
      iv.kind = tir::IterKind::kSpatial;
    } else if (IsIdent("reduce")) {
      iv.kind = tir::IterKind::kReduce;
    } else {
      Expected("'spatial' or 'reduce'");
    }
    Next();
    ExpectPunct("=");
    iv.binding = ParsePrimExpr();
    iter_vars.push_back(std::move(iv));
    if (!AcceptPunct(",")) break;
  }
  ExpectPunct(")");
  // Iteration variables are visible in regions and the body, not in other bindings.
  tir_vars_.Push();
  for (const auto& iv : iter_vars) tir_vars_.Bind(iv.var->name, iv.var);
  std::vector<tir::BufferRegion> reads = ParseRegions("reads");
  std::vector<tir::BufferRegion> writes = ParseRegions("writes");
  ExpectPunct("{");
  tir::Stmt init;
  if (IsIdent("init") && IsPunct("{", 1)) {
    Next();
    Next();
    init = ParseStmtBlock();
  }
  tir::Stmt body = ParseStmtBlock();
  tir_vars_.Pop();
  return tir::MakeBlock(name.value, std::move(iter_vars), std::move(reads), std::move(writes),
                        std::move(init), std::move(body));
}

std::vector<tir::BufferRegion> Parser::ParseRegions(const char* keyword) {
  ExpectIdent(keyword);
  ExpectPunct("(");
  std::vector<tir::BufferRegion> regions;
  while (!IsPunct(")")) {
    const Token& tok = ExpectKind(TokKind::kLocal, "a buffer region like %A[%i, 0 +: 16]");
    tir::BufferRegion region;
    region.buffer = LookupBuffer(tok);
    ExpectPunct("[");
    while (!IsPunct("]")) {
      const Token& at = Peek();
      tir::Range range;
      range.min = ParsePrimExpr();
      if (AcceptPunct("+:"))
        range.extent = ParsePrimExpr();
      else
        range.extent = Located(at, [&] { return tir::IntImm(1, range.min->dtype); });
      region.region.push_back(std::move(range));
      if (!AcceptPunct(",")) break;
    }
    ExpectPunct("]");
    if (region.region.size() != region.buffer->shape.size())
      FailAt(tok,
             "region of buffer '%" + tok.value + "' has " + std::to_string(region.region.size()) +
                 " range(s) but the buffer has rank " + std::to_string(region.buffer->shape.size()),
             ErrorKind::kType);
    regions.push_back(std::move(region));
    if (!AcceptPunct(",")) break;
  }
  ExpectPunct(")");
  return regions;
}

tir::Buffer Parser::LookupBuffer(const Token& tok) {
  const tir::Buffer* b = tir_buffers_.Find(tok.value);
  if (!b) FailAt(tok, "undefined buffer '%" + tok.value + "'");
  return *b;
}

std::vector<tir::PrimExpr> Parser::ParseIndices(const tir::Buffer& buffer) {
  ExpectPunct("[");
  std::vector<tir::PrimExpr> indices;
  while (!IsPunct("]")) {
    indices.push_back(ParsePrimExpr());
    if (!AcceptPunct(",")) break;
  }
  ExpectPunct("]");
  return indices;
}

// ---- scalar expressions --------------------------------------------------------------

tir::PrimExpr Parser::ParsePrimExpr(int min_prec) {
  DepthGuard guard(this);
  tir::PrimExpr lhs = ParsePrimUnary();
  while (true) {
    tir::BinaryOp op;
    int prec = InfixPrecedence(Peek(), &op);
    if (prec == 0 || prec < min_prec) return lhs;
    const Token& op_tok = Next();
    tir::PrimExpr rhs = ParsePrimExpr(prec + 1);
    lhs = Located(op_tok, [&] { return tir::MakeBinary(op, lhs, rhs); });
  }
}

tir::PrimExpr Parser::ParsePrimUnary() {
  DepthGuard guard(this);
  const Token& tok = Peek();
  if (AcceptPunct("!")) {
    tir::PrimExpr a = ParsePrimUnary();
    return Located(tok, [&] { return tir::MakeNot(a); });
  }
  if (IsPunct("-")) {
    if (Peek(1).kind == TokKind::kNumber || IsNonFiniteIdent(Peek(1))) {
      Next();
      return ParsePrimLiteral(true);
    }
    Next();
    tir::PrimExpr a = ParsePrimUnary();
    return Located(tok, [&] {
      tir::PrimExpr zero =
          IsFloat(a->dtype) ? tir::FloatImm(0, a->dtype) : tir::IntImm(0, a->dtype);
      return tir::MakeBinary(tir::BinaryOp::kSub, zero, a);
    });
  }
  return ParsePrimPrimary();
}

tir::PrimExpr Parser::ParsePrimLiteral(bool negative) {
  const Token& tok = Peek();
  NumberLit lit = ClassifyNumber(tok);
  tir::PrimExpr e;
  if (IsFloat(lit.dtype))
    e = tir::FloatImm(ParseFloatLiteral(tok, lit, negative, false), lit.dtype);
  else
    e = tir::IntImm(ParseIntLiteral(tok, lit, negative), lit.dtype);
  Next();
  return e;
}

tir::PrimExpr Parser::ParsePrimPrimary() {
  const Token& tok = Peek();
  if (tok.kind == TokKind::kNumber || (IsNonFiniteIdent(tok) && !IsPunct("(", 1)))
    return ParsePrimLiteral(false);
  if (IsIdent("True") || IsIdent("False")) {
    Next();
    return tir::IntImm(tok.text == "True" ? 1 : 0, DType::kBool);
  }
  if (tok.kind == TokKind::kLocal) {
    Next();
    if (IsPunct("[")) {
      tir::Buffer buffer = LookupBuffer(tok);
      std::vector<tir::PrimExpr> indices = ParseIndices(buffer);
      return Located(tok, [&] { return tir::MakeLoad(buffer, std::move(indices)); });
    }
    const tir::Var* v = tir_vars_.Find(tok.value);
    if (!v) FailAt(tok, "undefined variable '%" + tok.value + "'");
    return *v;
  }
  if (AcceptPunct("(")) {
    tir::PrimExpr e = ParsePrimExpr();
    ExpectPunct(")");
    return e;
  }
  if (tok.kind == TokKind::kIdent && IsPunct("(", 1)) {
    std::string name(tok.text);
    Next();
    Next();
    std::vector<tir::PrimExpr> args;
    while (!IsPunct(")")) {
      args.push_back(ParsePrimExpr());
      if (!AcceptPunct(",")) break;
    }
    ExpectPunct(")");
    static const std::pair<const char*, tir::BinaryOp> kCalls[] = {
        {"floordiv", tir::BinaryOp::kFloorDiv},
        {"floormod", tir::BinaryOp::kFloorMod},
        {"min", tir::BinaryOp::kMin},
        {"max", tir::BinaryOp::kMax},
    };
    const tir::BinaryOp* binary = nullptr;
    for (const auto& [n, op] : kCalls)
      if (name == n) binary = &op;
    std::optional<DType> cast = ParseDType(name);
    size_t want = binary ? 2 : name == "select" ? 3 : cast ? 1 : args.size();
    if (args.size() != want)
      FailAt(tok,
             "'" + name + "' takes " + std::to_string(want) + " argument(s), got " +
                 std::to_string(args.size()),
             ErrorKind::kType);
    return Located(tok, [&]() -> tir::PrimExpr {
      if (binary) return tir::MakeBinary(*binary, args[0], args[1]);
      if (name == "select") return tir::MakeSelect(args[0], args[1], args[2]);
      if (cast) return tir::MakeCast(*cast, args[0]);
      return tir::MakeIntrinsic(name, args);
    });
  }
  Expected("a scalar expression");
}

}  // namespace tessera::text
