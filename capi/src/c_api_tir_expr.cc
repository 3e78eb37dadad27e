// The C API of tensor-level IR scalar expressions and buffers: builders, field getters,
// printing, and the names of binary operators and loop kinds.
#include <string>

#include "c_api_tir_internal.h"
#include "tessera/c_api.h"
#include "tessera/ir/printer.h"

using namespace tessera::capi;
using namespace tessera::capi::tirc;

namespace {

constexpr const char* kExpr = "a scalar expression";
constexpr TsBinaryOp kLastBinaryOp = TS_BINARY_OR;

/// The C++ operator of a C one (TS_BINARY_* mirror BinaryOp's order).
BinaryOp BinaryOpFromC(TsBinaryOp op, const char* where) {
  if (static_cast<int>(op) < 0 || static_cast<int>(op) > static_cast<int>(kLastBinaryOp))
    TS_THROW(kValue) << where << ": " << static_cast<int>(op) << " is not a TsBinaryOp";
  return static_cast<BinaryOp>(op);
}

/// The scalar expressions behind borrowed handles; `what` names an entry.
std::vector<PrimExpr> Exprs(const TsPrimExpr* items, size_t count, const std::string& what) {
  return NodesOf<PrimExprNode>(items, count, what, kExpr);
}

}  // namespace

static_assert(static_cast<int>(BinaryOp::kOr) == TS_BINARY_OR, "TsBinaryOp mirrors BinaryOp");
static_assert(static_cast<int>(ForKind::kUnrolled) == TS_FOR_UNROLLED, "TsForKind mirrors ForKind");
static_assert(static_cast<int>(tessera::TypeIndex::kIntrinsic) -
                          static_cast<int>(tessera::TypeIndex::kIntImm) ==
                      TS_PRIM_EXPR_INTRINSIC &&
                  static_cast<int>(tessera::TypeIndex::kBufferLoad) -
                          static_cast<int>(tessera::TypeIndex::kIntImm) ==
                      TS_PRIM_EXPR_BUFFER_LOAD,
              "TsPrimExprKind mirrors the order of the scalar expression type indices");

extern "C" {

// ---- Enumerations ----------------------------------------------------------------------

const char* TsBinaryOpGetName(TsBinaryOp op) {
  if (static_cast<int>(op) < 0 || static_cast<int>(op) > static_cast<int>(kLastBinaryOp))
    return nullptr;
  return BinaryOpName(static_cast<BinaryOp>(op));
}

const char* TsForKindGetName(TsForKind kind) {
  if (static_cast<int>(kind) < 0 || static_cast<int>(kind) > static_cast<int>(TS_FOR_UNROLLED))
    return nullptr;
  return ForKindName(static_cast<ForKind>(kind));
}

TsStatus TsForKindFromName(TsStringRef name, TsForKind* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    std::string text = StringOf(name, "TsForKindFromName: name");
    for (ForKind k :
         {ForKind::kSerial, ForKind::kParallel, ForKind::kVectorized, ForKind::kUnrolled})
      if (text == ForKindName(k)) {
        *out = static_cast<TsForKind>(k);
        return;
      }
    TS_THROW(kValue) << "unknown loop kind '" << text
                     << "' (valid: serial, parallel, vectorized, unrolled)";
  });
}

// ---- Scalar expressions: builders ----------------------------------------------------------

TsStatus TsPrimExprIntImmCreate(int64_t value, TsDType dtype, TsPrimExpr* out) {
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = Give<TsPrimExpr>(IntImm(value, DTypeFromC(dtype, "TsPrimExprIntImmCreate"))); });
}

TsStatus TsPrimExprFloatImmCreate(double value, TsDType dtype, TsPrimExpr* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    *out = Give<TsPrimExpr>(FloatImm(value, DTypeFromC(dtype, "TsPrimExprFloatImmCreate")));
  });
}

TsStatus TsPrimExprVarCreate(TsStringRef name, TsDType dtype, TsPrimExpr* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    *out = Give<TsPrimExpr>(MakeVar(StringOf(name, "TsPrimExprVarCreate: name"),
                                    DTypeFromC(dtype, "TsPrimExprVarCreate")));
  });
}

TsStatus TsPrimExprBinaryCreate(TsBinaryOp op, TsPrimExpr a, TsPrimExpr b, TsPrimExpr* out) {
  TS_REQUIRE(a);
  TS_REQUIRE(b);
  TS_REQUIRE(out);
  return Guard([&] {
    const char* where = "TsPrimExprBinaryCreate";
    *out = Give<TsPrimExpr>(MakeBinary(BinaryOpFromC(op, where),
                                       Node<PrimExprNode>(a, where, "a", kExpr),
                                       Node<PrimExprNode>(b, where, "b", kExpr)));
  });
}

TsStatus TsPrimExprNotCreate(TsPrimExpr a, TsPrimExpr* out) {
  TS_REQUIRE(a);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = Give<TsPrimExpr>(MakeNot(Node<PrimExprNode>(a, "TsPrimExprNotCreate", "a", kExpr)));
  });
}

TsStatus TsPrimExprSelectCreate(TsPrimExpr cond, TsPrimExpr true_value, TsPrimExpr false_value,
                                TsPrimExpr* out) {
  TS_REQUIRE(cond);
  TS_REQUIRE(true_value);
  TS_REQUIRE(false_value);
  TS_REQUIRE(out);
  return Guard([&] {
    const char* where = "TsPrimExprSelectCreate";
    *out =
        Give<TsPrimExpr>(MakeSelect(Node<PrimExprNode>(cond, where, "cond", kExpr),
                                    Node<PrimExprNode>(true_value, where, "true_value", kExpr),
                                    Node<PrimExprNode>(false_value, where, "false_value", kExpr)));
  });
}

TsStatus TsPrimExprCastCreate(TsDType dtype, TsPrimExpr value, TsPrimExpr* out) {
  TS_REQUIRE(value);
  TS_REQUIRE(out);
  return Guard([&] {
    const char* where = "TsPrimExprCastCreate";
    *out = Give<TsPrimExpr>(
        MakeCast(DTypeFromC(dtype, where), Node<PrimExprNode>(value, where, "value", kExpr)));
  });
}

TsStatus TsPrimExprBufferLoadCreate(TsBuffer buffer, const TsPrimExpr* indices, size_t num_indices,
                                    TsPrimExpr* out) {
  const char* where = "TsPrimExprBufferLoadCreate";
  TS_REQUIRE(buffer);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = Give<TsPrimExpr>(MakeLoad(Node<BufferNode>(buffer, where, "buffer", "a buffer"),
                                     Exprs(indices, num_indices, std::string(where) + ": index")));
  });
}

TsStatus TsPrimExprIntrinsicCreate(TsStringRef name, const TsPrimExpr* args, size_t num_args,
                                   TsPrimExpr* out) {
  const char* where = "TsPrimExprIntrinsicCreate";
  TS_REQUIRE(out);
  return Guard([&] {
    *out =
        Give<TsPrimExpr>(MakeIntrinsic(StringOf(name, std::string(where) + ": name"),
                                       Exprs(args, num_args, std::string(where) + ": argument")));
  });
}

// ---- Scalar expressions: inspection ----------------------------------------------------------

TsStatus TsPrimExprGetKind(TsPrimExpr expr, TsPrimExprKind* out) {
  return Field<PrimExprNode>(
      expr, out, __func__, "expr", kExpr, [](const PrimExprNode& e, TsPrimExprKind& o) {
        o = static_cast<TsPrimExprKind>(static_cast<int>(e.type_index()) -
                                        static_cast<int>(tessera::TypeIndex::kIntImm));
      });
}

TsStatus TsPrimExprGetDType(TsPrimExpr expr, TsDType* out) {
  return Field<PrimExprNode>(expr, out, __func__, "expr", kExpr,
                             [](const PrimExprNode& e, TsDType& o) { o = DTypeToC(e.dtype); });
}

TsStatus TsPrimExprPrint(TsPrimExpr expr, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(expr);
  TS_REQUIRE(callback);
  return Guard([&] {
    Emit(tessera::PrintPrimExpr(Node<PrimExprNode>(expr, "TsPrimExprPrint", "expr", kExpr)),
         callback, user_data);
  });
}

TsPrimExpr TsPrimExprRetain(TsPrimExpr expr) {
  return Retain(expr);
}

void TsPrimExprDestroy(TsPrimExpr expr) {
  Drop(expr);
}

TsStatus TsPrimExprIntImmGetValue(TsPrimExpr expr, int64_t* out) {
  return Field<IntImmNode>(expr, out, __func__, "expr", "an integer literal",
                           [](const IntImmNode& e, int64_t& o) { o = e.value; });
}

TsStatus TsPrimExprFloatImmGetValue(TsPrimExpr expr, double* out) {
  return Field<FloatImmNode>(expr, out, __func__, "expr", "a float literal",
                             [](const FloatImmNode& e, double& o) { o = e.value; });
}

TsStatus TsPrimExprVarGetName(TsPrimExpr expr, TsStringRef* out) {
  return Field<VarNode>(expr, out, __func__, "expr", "a variable",
                        [](const VarNode& e, TsStringRef& o) { o = RefOf(e.name); });
}

TsStatus TsPrimExprBinaryGetOp(TsPrimExpr expr, TsBinaryOp* out) {
  return Field<BinaryNode>(
      expr, out, __func__, "expr", "a binary expression",
      [](const BinaryNode& e, TsBinaryOp& o) { o = static_cast<TsBinaryOp>(e.op); });
}

TsStatus TsPrimExprBinaryGetA(TsPrimExpr expr, TsPrimExpr* out) {
  return Field<BinaryNode>(expr, out, __func__, "expr", "a binary expression",
                           [](const BinaryNode& e, TsPrimExpr& o) { o = Give<TsPrimExpr>(e.a); });
}

TsStatus TsPrimExprBinaryGetB(TsPrimExpr expr, TsPrimExpr* out) {
  return Field<BinaryNode>(expr, out, __func__, "expr", "a binary expression",
                           [](const BinaryNode& e, TsPrimExpr& o) { o = Give<TsPrimExpr>(e.b); });
}

TsStatus TsPrimExprNotGetA(TsPrimExpr expr, TsPrimExpr* out) {
  return Field<NotNode>(expr, out, __func__, "expr", "a not expression",
                        [](const NotNode& e, TsPrimExpr& o) { o = Give<TsPrimExpr>(e.a); });
}

TsStatus TsPrimExprSelectGetCondition(TsPrimExpr expr, TsPrimExpr* out) {
  return Field<SelectNode>(
      expr, out, __func__, "expr", "a select",
      [](const SelectNode& e, TsPrimExpr& o) { o = Give<TsPrimExpr>(e.cond); });
}

TsStatus TsPrimExprSelectGetTrueValue(TsPrimExpr expr, TsPrimExpr* out) {
  return Field<SelectNode>(
      expr, out, __func__, "expr", "a select",
      [](const SelectNode& e, TsPrimExpr& o) { o = Give<TsPrimExpr>(e.true_value); });
}

TsStatus TsPrimExprSelectGetFalseValue(TsPrimExpr expr, TsPrimExpr* out) {
  return Field<SelectNode>(
      expr, out, __func__, "expr", "a select",
      [](const SelectNode& e, TsPrimExpr& o) { o = Give<TsPrimExpr>(e.false_value); });
}

TsStatus TsPrimExprCastGetValue(TsPrimExpr expr, TsPrimExpr* out) {
  return Field<CastNode>(expr, out, __func__, "expr", "a cast",
                         [](const CastNode& e, TsPrimExpr& o) { o = Give<TsPrimExpr>(e.value); });
}

TsStatus TsPrimExprBufferLoadGetBuffer(TsPrimExpr expr, TsBuffer* out) {
  return Field<BufferLoadNode>(
      expr, out, __func__, "expr", "a buffer load",
      [](const BufferLoadNode& e, TsBuffer& o) { o = Give<TsBuffer>(e.buffer); });
}

TsStatus TsPrimExprBufferLoadGetNumIndices(TsPrimExpr expr, size_t* out) {
  return AccessNumIndices<BufferLoadNode>(expr, out, __func__, "expr", "a buffer load");
}

TsStatus TsPrimExprBufferLoadGetIndex(TsPrimExpr expr, size_t index, TsPrimExpr* out) {
  return AccessIndex<BufferLoadNode>(expr, index, out, __func__, "expr", "a buffer load");
}

TsStatus TsPrimExprIntrinsicGetName(TsPrimExpr expr, TsStringRef* out) {
  return Field<IntrinsicNode>(expr, out, __func__, "expr", "an intrinsic call",
                              [](const IntrinsicNode& e, TsStringRef& o) { o = RefOf(e.name); });
}

TsStatus TsPrimExprIntrinsicGetNumArgs(TsPrimExpr expr, size_t* out) {
  return Field<IntrinsicNode>(expr, out, __func__, "expr", "an intrinsic call",
                              [](const IntrinsicNode& e, size_t& o) { o = e.args.size(); });
}

TsStatus TsPrimExprIntrinsicGetArg(TsPrimExpr expr, size_t index, TsPrimExpr* out) {
  return Field<IntrinsicNode>(
      expr, out, __func__, "expr", "an intrinsic call", [&](const IntrinsicNode& e, TsPrimExpr& o) {
        CheckIndex(index, e.args.size(), "TsPrimExprIntrinsicGetArg: argument");
        o = Give<TsPrimExpr>(e.args[index]);
      });
}

// ---- Buffers ---------------------------------------------------------------------------

TsStatus TsBufferCreate(TsStringRef name, const int64_t* shape, size_t ndim, TsDType dtype,
                        TsBuffer* out) {
  TS_REQUIRE(out);
  if (ndim) TS_REQUIRE(shape);
  return Guard([&] {
    const char* where = "TsBufferCreate";
    *out = Give<TsBuffer>(MakeBuffer(StringOf(name, std::string(where) + ": name"),
                                     std::vector<int64_t>(shape, shape + ndim),
                                     DTypeFromC(dtype, where)));
  });
}

TsStatus TsBufferGetName(TsBuffer buffer, TsStringRef* out) {
  return Field<BufferNode>(buffer, out, __func__, "buffer", "a buffer",
                           [](const BufferNode& b, TsStringRef& o) { o = RefOf(b.name); });
}

TsStatus TsBufferGetShape(TsBuffer buffer, const int64_t** shape, size_t* ndim) {
  TS_REQUIRE(buffer);
  return Guard([&] {
    auto b = Node<BufferNode>(buffer, "TsBufferGetShape", "buffer", "a buffer");
    if (shape) *shape = b->shape.data();
    if (ndim) *ndim = b->shape.size();
  });
}

TsStatus TsBufferGetDType(TsBuffer buffer, TsDType* out) {
  return Field<BufferNode>(buffer, out, __func__, "buffer", "a buffer",
                           [](const BufferNode& b, TsDType& o) { o = DTypeToC(b.dtype); });
}

TsBuffer TsBufferRetain(TsBuffer buffer) {
  return Retain(buffer);
}

void TsBufferDestroy(TsBuffer buffer) {
  Drop(buffer);
}

}  // extern "C"
