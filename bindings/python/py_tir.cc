// Bindings of tensor-level IR (tessera._core.tir): scalar expressions, buffers, statements
// and PrimFuncs, to build and edit PrimFuncs from Python (tessera.tir wraps them).
#include <optional>

#include "bindings.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/tir.h"
#include "tessera/runtime/dtype.h"

namespace tessera::python {

namespace {

using namespace tessera::tir;

/// A Python int, float or bool as a literal of dtype `like` when given (int32 for ints and
/// float32 for floats otherwise); a PrimExpr as itself.
PrimExpr ToPrim(py::handle value, std::optional<DType> like, const char* what) {
  if (py::isinstance<PrimExprNode>(value)) return value.cast<PrimExpr>();
  if (py::isinstance<py::bool_>(value)) return IntImm(value.cast<bool>() ? 1 : 0, DType::kBool);
  if (py::isinstance<py::int_>(value)) {
    if (like && IsFloat(*like)) return FloatImm(value.cast<double>(), *like);
    return IntImm(value.cast<int64_t>(), like ? *like : DType::kInt32);
  }
  if (py::isinstance<py::float_>(value))
    return FloatImm(value.cast<double>(), like && IsFloat(*like) ? *like : DType::kFloat32);
  TS_THROW(kType) << what << ": expected a PrimExpr, int or float, got "
                  << py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

/// The dtype of `value` when it is a PrimExpr.
std::optional<DType> DTypeOf(py::handle value) {
  if (py::isinstance<PrimExprNode>(value)) return value.cast<PrimExpr>()->dtype;
  return std::nullopt;
}

std::vector<PrimExpr> ToPrims(py::handle values, const char* what) {
  std::vector<PrimExpr> out;
  if (py::isinstance<py::tuple>(values) || py::isinstance<py::list>(values)) {
    for (py::handle v : values) out.push_back(ToPrim(v, std::nullopt, what));
  } else {
    out.push_back(ToPrim(values, std::nullopt, what));
  }
  return out;
}

ForKind ParseForKind(const std::string& name) {
  for (ForKind k : {ForKind::kSerial, ForKind::kParallel, ForKind::kVectorized, ForKind::kUnrolled})
    if (name == ForKindName(k)) return k;
  TS_THROW(kValue) << "unknown loop kind '" << name
                   << "' (valid: serial, parallel, vectorized, unrolled)";
}

/// `a op b` with Python numbers converted to the other operand's dtype.
PrimExpr Binary(BinaryOp op, py::handle a, py::handle b) {
  std::optional<DType> like = DTypeOf(a) ? DTypeOf(a) : DTypeOf(b);
  return MakeBinary(op, ToPrim(a, like, BinaryOpName(op)), ToPrim(b, like, BinaryOpName(op)));
}

/// Registers `name` (and its reflected form when `reflected`) for operator `op`.
template <typename Class>
void Operator(Class& cls, const char* name, const char* rname, BinaryOp op) {
  cls.def(name, [op](py::object a, py::object b) { return Binary(op, a, b); }, py::is_operator());
  if (rname)
    cls.def(rname, [op](py::object a, py::object b) { return Binary(op, b, a); },
            py::is_operator());
}

void BindExprs(py::module_& t) {
  auto expr = py::class_<PrimExprNode, Holder<PrimExprNode>>(t, "PrimExpr", "A scalar expression.");
  expr.def_property_readonly("dtype", [](const PrimExprNode& e) { return DTypeName(e.dtype); })
      .def("__str__", [](const PrimExprNode& e) { return PrintPrimExpr(PrimExpr(&e)); })
      .def("__repr__",
           [](const PrimExprNode& e) { return "PrimExpr(" + PrintPrimExpr(PrimExpr(&e)) + ")"; })
      .def("same_as", [](const PrimExprNode& a, const PrimExprNode& b) { return &a == &b; })
      .def("__neg__", [](const PrimExprNode& e) {
        return MakeBinary(BinaryOp::kSub, ToPrim(py::int_(0), e.dtype, "-"), PrimExpr(&e));
      });
  Operator(expr, "__add__", "__radd__", BinaryOp::kAdd);
  Operator(expr, "__sub__", "__rsub__", BinaryOp::kSub);
  Operator(expr, "__mul__", "__rmul__", BinaryOp::kMul);
  Operator(expr, "__truediv__", "__rtruediv__", BinaryOp::kDiv);
  Operator(expr, "__floordiv__", "__rfloordiv__", BinaryOp::kFloorDiv);
  Operator(expr, "__mod__", "__rmod__", BinaryOp::kFloorMod);
  Operator(expr, "__lt__", nullptr, BinaryOp::kLT);
  Operator(expr, "__le__", nullptr, BinaryOp::kLE);
  Operator(expr, "__gt__", nullptr, BinaryOp::kGT);
  Operator(expr, "__ge__", nullptr, BinaryOp::kGE);

  py::class_<tir::VarNode, PrimExprNode, Holder<tir::VarNode>>(t, "Var", "A loop or index variable.")
      .def(py::init([](std::string name, const std::string& dtype) {
             return Hold(MakeVar(std::move(name), ParseDTypeOrThrow(dtype, "tir.Var")));
           }),
           py::arg("name"), py::arg("dtype") = "int32")
      .def_property_readonly("name", [](const tir::VarNode& v) { return v.name; });
  py::class_<IntImmNode, PrimExprNode, Holder<IntImmNode>>(t, "IntImm", "An integer literal.")
      .def_property_readonly("value", [](const IntImmNode& i) { return i.value; });
  py::class_<FloatImmNode, PrimExprNode, Holder<FloatImmNode>>(t, "FloatImm", "A float literal.")
      .def_property_readonly("value", [](const FloatImmNode& f) { return f.value; });
  py::class_<BinaryNode, PrimExprNode, Holder<BinaryNode>>(t, "Binary", "`a op b`.")
      .def_property_readonly("op", [](const BinaryNode& b) { return BinaryOpName(b.op); })
      .def_property_readonly("a", [](const BinaryNode& b) { return b.a; })
      .def_property_readonly("b", [](const BinaryNode& b) { return b.b; });
  py::class_<BufferLoadNode, PrimExprNode, Holder<BufferLoadNode>>(t, "BufferLoad", "`buffer[indices]`.")
      .def_property_readonly("buffer", [](const BufferLoadNode& l) { return l.buffer; })
      .def_property_readonly("indices", [](const BufferLoadNode& l) { return l.indices; });
  py::class_<SelectNode, PrimExprNode, Holder<SelectNode>>(t, "Select", "`cond ? t : f`.");
  py::class_<CastNode, PrimExprNode, Holder<CastNode>>(t, "Cast", "A dtype conversion.");
  py::class_<NotNode, PrimExprNode, Holder<NotNode>>(t, "Not", "Logical not.");
  py::class_<IntrinsicNode, PrimExprNode, Holder<IntrinsicNode>>(t, "Intrinsic", "exp, sqrt, ...")
      .def_property_readonly("name", [](const IntrinsicNode& i) { return i.name; });

  t.def("const", [](py::object v, const std::string& dtype) {
        DType d = ParseDTypeOrThrow(dtype, "tir.const");
        return IsFloat(d) ? FloatImm(v.cast<double>(), d) : IntImm(v.cast<int64_t>(), d);
      }, py::arg("value"), py::arg("dtype") = "int32", "A literal of `dtype`.");
  t.def("select", [](py::object c, py::object a, py::object b) {
        std::optional<DType> like = DTypeOf(a) ? DTypeOf(a) : DTypeOf(b);
        return MakeSelect(ToPrim(c, std::nullopt, "select"), ToPrim(a, like, "select"),
                          ToPrim(b, like, "select"));
      }, py::arg("cond"), py::arg("true_value"), py::arg("false_value"));
  t.def("cast", [](const std::string& dtype, py::object v) {
        return MakeCast(ParseDTypeOrThrow(dtype, "tir.cast"), ToPrim(v, std::nullopt, "cast"));
      }, py::arg("dtype"), py::arg("value"));
  t.def("min", [](py::object a, py::object b) { return Binary(BinaryOp::kMin, a, b); });
  t.def("max", [](py::object a, py::object b) { return Binary(BinaryOp::kMax, a, b); });
  t.def("floordiv", [](py::object a, py::object b) { return Binary(BinaryOp::kFloorDiv, a, b); });
  t.def("floormod", [](py::object a, py::object b) { return Binary(BinaryOp::kFloorMod, a, b); });
  t.def("eq", [](py::object a, py::object b) { return Binary(BinaryOp::kEQ, a, b); });
  t.def("call_intrin", [](std::string name, py::args args) {
        std::vector<PrimExpr> in;
        for (py::handle a : args)
          in.push_back(ToPrim(a, in.empty() ? std::nullopt : std::optional<DType>(in[0]->dtype),
                              "call_intrin"));
        return MakeIntrinsic(std::move(name), std::move(in));
      }, py::arg("name"), "An intrinsic (exp, sqrt, pow, ...) of the arguments.");
}

void BindBuffersAndStmts(py::module_& t) {
  py::class_<BufferNode, Holder<BufferNode>>(t, "Buffer", "A dense row-major buffer.")
      .def(py::init([](std::string name, std::vector<int64_t> shape, const std::string& dtype) {
             return Hold(MakeBuffer(std::move(name), std::move(shape),
                                    ParseDTypeOrThrow(dtype, "tir.Buffer")));
           }),
           py::arg("name"), py::arg("shape"), py::arg("dtype") = "float32")
      .def_property_readonly("name", [](const BufferNode& b) { return b.name; })
      .def_property_readonly("shape", [](const BufferNode& b) { return b.shape; })
      .def_property_readonly("dtype", [](const BufferNode& b) { return DTypeName(b.dtype); })
      .def("__getitem__", [](const BufferNode& b, py::object indices) {
             return MakeLoad(Buffer(&b), ToPrims(indices, "buffer index"));
           })
      .def("__repr__", [](const BufferNode& b) { return "Buffer(" + b.name + ")"; });

  py::class_<StmtNode, Holder<StmtNode>>(t, "Stmt", "A statement.")
      .def("__str__", [](const StmtNode& s) { return PrintStmt(Stmt(&s)); })
      .def("same_as", [](const StmtNode& a, const StmtNode& b) { return &a == &b; });
  py::class_<ForNode, StmtNode, Holder<ForNode>>(t, "For", "A loop.")
      .def_property_readonly("loop_var", [](const ForNode& f) { return f.loop_var; })
      .def_property_readonly("min", [](const ForNode& f) { return f.min; })
      .def_property_readonly("extent", [](const ForNode& f) { return f.extent; })
      .def_property_readonly("kind", [](const ForNode& f) { return ForKindName(f.kind); })
      .def_property_readonly("body", [](const ForNode& f) { return f.body; });
  py::class_<BufferStoreNode, StmtNode, Holder<BufferStoreNode>>(t, "BufferStore", "`buffer[indices] = value`.")
      .def_property_readonly("buffer", [](const BufferStoreNode& s) { return s.buffer; })
      .def_property_readonly("value", [](const BufferStoreNode& s) { return s.value; })
      .def_property_readonly("indices", [](const BufferStoreNode& s) { return s.indices; });
  py::class_<SeqStmtNode, StmtNode, Holder<SeqStmtNode>>(t, "SeqStmt", "Statements in order.")
      .def_property_readonly("seq", [](const SeqStmtNode& s) { return s.seq; });
  py::class_<AllocateNode, StmtNode, Holder<AllocateNode>>(t, "Allocate", "A scratch buffer.")
      .def_property_readonly("buffer", [](const AllocateNode& a) { return a.buffer; })
      .def_property_readonly("body", [](const AllocateNode& a) { return a.body; });
  py::class_<IfThenElseNode, StmtNode, Holder<IfThenElseNode>>(t, "IfThenElse", "A branch.")
      .def_property_readonly("cond", [](const IfThenElseNode& i) { return i.cond; })
      .def_property_readonly("then_case", [](const IfThenElseNode& i) { return i.then_case; })
      .def_property_readonly("else_case", [](const IfThenElseNode& i) { return i.else_case; });
  py::class_<BlockNode, StmtNode, Holder<BlockNode>>(t, "Block", "A named computation block.")
      .def_property_readonly("name", [](const BlockNode& b) { return b.name; })
      .def_property_readonly("body", [](const BlockNode& b) { return b.body; });

  t.def("for_", [](tir::Var var, py::object min, py::object extent, Stmt body, const std::string& kind) {
        if (!var || !body) TS_THROW(kValue) << "tir.for_: the loop variable and body are required";
        return MakeFor(var, ToPrim(min, var->dtype, "for_ min"),
                       ToPrim(extent, var->dtype, "for_ extent"), ParseForKind(kind), body);
      }, py::arg("loop_var"), py::arg("min"), py::arg("extent"), py::arg("body"),
      py::arg("kind") = "serial");
  t.def("store", [](Buffer buffer, py::object value, py::object indices) {
        if (!buffer) TS_THROW(kValue) << "tir.store: buffer is None";
        return MakeStore(buffer, ToPrim(value, buffer->dtype, "store value"),
                         ToPrims(indices, "store index"));
      }, py::arg("buffer"), py::arg("value"), py::arg("indices"));
  t.def("seq", [](std::vector<Stmt> stmts) { return MakeSeq(std::move(stmts)); }, py::arg("stmts"));
  t.def("allocate", [](Buffer buffer, Stmt body) { return MakeAllocate(buffer, body); },
        py::arg("buffer"), py::arg("body"));
  t.def("if_then_else", [](py::object cond, Stmt then_case, Stmt else_case) {
        return MakeIfThenElse(ToPrim(cond, std::nullopt, "if_then_else"), then_case, else_case);
      }, py::arg("cond"), py::arg("then_case"), py::arg("else_case") = nullptr);
}


}  // namespace

void BindTir(py::module_& m) {
  // Before BindIR, so that the PrimFunc bindings name these classes in their signatures.
  py::module_ t = m.def_submodule("tir", "Tensor-level IR (use tessera.tir).");
  BindExprs(t);
  BindBuffersAndStmts(t);
}

}  // namespace tessera::python
