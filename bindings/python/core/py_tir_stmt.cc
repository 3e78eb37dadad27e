// tessera._core.tir, part 2: statements and their builders, PrimFunc (on tessera._core, a
// BaseFunc) and tir.prim_func, over the C API.
#include "py_tir.h"

namespace tessera_py::tir_bind {

namespace {

/// A statement builder's required handle argument: raises TesseraValueError "`message`" for
/// None (a NULL pointer from pybind11), as the old binding did.
template <typename W>
auto Required(const W* w, const std::string& message) {
  if (!w) Raise(TS_ERROR_VALUE, message);
  return w->handle.get();
}

/// The text of a statement (indented lines).
std::string StmtText(TsStmt stmt) {
  return Text([&](TsStringCallback cb, void* u) { return TsStmtPrint(stmt, cb, u); });
}

void BindStmts(py::module_& t) {
  py::class_<PyStmt> stmt(t, "Stmt", "A statement.");
  stmt.def("__str__", [](const PyStmt& s) { return StmtText(s.handle.get()); })
      .def("same_as",
           [](const PyStmt& a, const PyStmt& b) { return a.handle.get() == b.handle.get(); });
  IdentityEq<PyStmt>(stmt);

  py::class_<PyFor, PyStmt>(t, "For", "A loop.")
      .def_property_readonly(
          "loop_var",
          [](const PyFor& f) {
            return Typed<PyTirVar>{WrapPrimExpr(Got(TsStmtForGetLoopVar, f.handle.get()))};
          })
      .def_property_readonly(
          "min", [](const PyFor& f) { return AsPrim(Got(TsStmtForGetMin, f.handle.get())); })
      .def_property_readonly(
          "extent", [](const PyFor& f) { return AsPrim(Got(TsStmtForGetExtent, f.handle.get())); })
      .def_property_readonly(
          "kind",
          [](const PyFor& f) {
            return std::string(TsForKindGetName(Got(TsStmtForGetKind, f.handle.get())));
          })
      .def_property_readonly(
          "body", [](const PyFor& f) { return AsStmt(Got(TsStmtForGetBody, f.handle.get())); });

  py::class_<PyBufferStore, PyStmt>(t, "BufferStore", "`buffer[indices] = value`.")
      .def_property_readonly("buffer",
                             [](const PyBufferStore& s) {
                               return AsBuffer(Got(TsStmtBufferStoreGetBuffer, s.handle.get()));
                             })
      .def_property_readonly("value",
                             [](const PyBufferStore& s) {
                               return AsPrim(Got(TsStmtBufferStoreGetValue, s.handle.get()));
                             })
      .def_property_readonly("indices", [](const PyBufferStore& s) {
        TsStmt h = s.handle.get();
        return PrimList(TsStmtBufferStoreGetIndex, h, Got(TsStmtBufferStoreGetNumIndices, h));
      });

  py::class_<PyPrefetch, PyStmt>(t, "Prefetch",
                                 "A cache hint: `buffer[indices]` is read soon (computes nothing).")
      .def_property_readonly("buffer",
                             [](const PyPrefetch& s) {
                               return AsBuffer(Got(TsStmtPrefetchGetBuffer, s.handle.get()));
                             })
      .def_property_readonly("indices", [](const PyPrefetch& s) {
        TsStmt h = s.handle.get();
        return PrimList(TsStmtPrefetchGetIndex, h, Got(TsStmtPrefetchGetNumIndices, h));
      });

  py::class_<PySeqStmt, PyStmt>(t, "SeqStmt", "Statements in order.")
      .def_property_readonly("seq", [](const PySeqStmt& s) {
        TsStmt h = s.handle.get();
        std::vector<Typed<PyStmt>> out;
        for (size_t i = 0, n = Got(TsStmtSeqGetNumStmts, h); i < n; ++i)
          out.push_back(AsStmt(GotAt(TsStmtSeqGetStmt, h, i)));
        return out;
      });

  py::class_<PyAllocate, PyStmt>(t, "Allocate", "A scratch buffer.")
      .def_property_readonly("buffer",
                             [](const PyAllocate& a) {
                               return AsBuffer(Got(TsStmtAllocateGetBuffer, a.handle.get()));
                             })
      .def_property_readonly("body",
                             [](const PyAllocate& a) {
                               return AsStmt(Got(TsStmtAllocateGetBody, a.handle.get()));
                             })
      .def_property_readonly("zero_fill", [](const PyAllocate& a) {
        return Got(TsStmtAllocateGetZeroFill, a.handle.get()) != 0;
      });

  py::class_<PyIfThenElse, PyStmt>(t, "IfThenElse", "A branch.")
      .def_property_readonly("cond",
                             [](const PyIfThenElse& i) {
                               return AsPrim(Got(TsStmtIfThenElseGetCondition, i.handle.get()));
                             })
      .def_property_readonly("then_case",
                             [](const PyIfThenElse& i) {
                               return AsStmt(Got(TsStmtIfThenElseGetThen, i.handle.get()));
                             })
      // None for a branch without else.
      .def_property_readonly("else_case", [](const PyIfThenElse& i) {
        return AsStmt(Got(TsStmtIfThenElseGetElse, i.handle.get()));
      });

  py::class_<PyBlock, PyStmt>(t, "Block", "A named computation block.")
      .def_property_readonly(
          "name", [](const PyBlock& b) { return Str(Got(TsStmtBlockGetName, b.handle.get())); })
      .def_property_readonly(
          "body", [](const PyBlock& b) { return AsStmt(Got(TsStmtBlockGetBody, b.handle.get())); });
}

void BindStmtBuilders(py::module_& t) {
  t.def(
      "for_",
      [](const PyTirVar* var, py::object min, py::object extent, const PyStmt* body,
         const std::string& kind) {
        const std::string required = "tir.for_: the loop variable and body are required";
        TsPrimExpr loop_var = Required(var, required);
        TsStmt loop_body = Required(body, required);
        // Python numbers take the loop variable's dtype (an int64 loop gets int64 bounds).
        TsDType dtype = DTypeOfPrim(loop_var);
        PrimRef lo = ToPrim(min, dtype, "for_ min"), n = ToPrim(extent, dtype, "for_ extent");
        TsForKind for_kind{};
        Check(TsForKindFromName(RefOf(kind), &for_kind));
        TsStmt out = nullptr;
        Check(TsStmtForCreate(loop_var, lo.get(), n.get(), for_kind, loop_body, &out));
        return AsStmt(out);
      },
      py::arg("loop_var"), py::arg("min"), py::arg("extent"), py::arg("body"),
      py::arg("kind") = "serial");
  t.def(
      "store",
      [](const PyBuffer* buffer, py::object value, py::object indices) {
        TsBuffer buf = Required(buffer, "tir.store: buffer is None");
        PrimRef v = ToPrim(value, Got(TsBufferGetDType, buf), "store value");
        std::vector<PrimRef> refs = ToPrims(indices, "store index");
        std::vector<TsPrimExpr> handles = Handles(refs);
        TsStmt out = nullptr;
        Check(TsStmtBufferStoreCreate(buf, v.get(), handles.data(), handles.size(), &out));
        return AsStmt(out);
      },
      py::arg("buffer"), py::arg("value"), py::arg("indices"));
  t.def(
      "prefetch",
      [](const PyBuffer* buffer, py::object indices) {
        TsBuffer buf = Required(buffer, "tir.prefetch: buffer is None");
        std::vector<PrimRef> refs = ToPrims(indices, "prefetch index");
        std::vector<TsPrimExpr> handles = Handles(refs);
        TsStmt out = nullptr;
        Check(TsStmtPrefetchCreate(buf, handles.data(), handles.size(), &out));
        return AsStmt(out);
      },
      py::arg("buffer"), py::arg("indices"));
  t.def(
      "seq",
      [](const std::vector<const PyStmt*>& stmts) {
        std::vector<TsStmt> handles;
        for (size_t i = 0; i < stmts.size(); ++i)
          handles.push_back(
              Required(stmts[i], "tir.seq: stmts[" + std::to_string(i) + "] is None"));
        TsStmt out = nullptr;
        Check(TsStmtSeqCreate(handles.data(), handles.size(), &out));
        return AsStmt(out);
      },
      py::arg("stmts"));
  t.def(
      "allocate",
      [](const PyBuffer* buffer, const PyStmt* body, bool zero_fill) {
        TsBuffer buf = Required(buffer, "tir.allocate: buffer is None");
        TsStmt stmt = Required(body, "tir.allocate: body is None");
        TsStmt out = nullptr;
        Check(TsStmtAllocateCreateWithFill(buf, stmt, zero_fill ? 1 : 0, &out));
        return AsStmt(out);
      },
      py::arg("buffer"), py::arg("body"), py::arg("zero_fill") = true,
      "A scratch buffer live during body, zero-filled unless zero_fill is False (then body "
      "must write each element before reading it).");
  t.def(
      "if_then_else",
      [](py::object cond, const PyStmt* then_case, const PyStmt* else_case) {
        PrimRef c = ToPrim(cond, std::nullopt, "if_then_else");
        TsStmt then_stmt = Required(then_case, "tir.if_then_else: then_case is None");
        TsStmt out = nullptr;
        Check(TsStmtIfThenElseCreate(c.get(), then_stmt,
                                     else_case ? else_case->handle.get() : nullptr, &out));
        return AsStmt(out);
      },
      py::arg("cond"), py::arg("then_case"), py::arg("else_case") = py::none());
}

/// A PrimFunc's new expression reference as a typed PrimFunc object.
Typed<PyPrimFunc> AsPrimFunc(TsExpr owned) {
  return {WrapExpr(owned)};
}

void BindPrimFunc(py::module_& m, py::module_& t) {
  py::class_<PyPrimFunc, PyBaseFunc>(m, "PrimFunc", "A tensor-level function.")
      .def_property_readonly(
          "num_outputs",
          [](const PyPrimFunc& f) { return Got(TsPrimFuncGetNumOutputs, f.handle.get()); })
      .def_property_readonly(
          "num_params",
          [](const PyPrimFunc& f) { return Got(TsPrimFuncGetNumParams, f.handle.get()); })
      .def_property_readonly(
          "params",
          [](const PyPrimFunc& f) {
            TsExpr h = f.handle.get();
            std::vector<Typed<PyBuffer>> out;
            for (size_t i = 0, n = Got(TsPrimFuncGetNumParams, h); i < n; ++i)
              out.push_back(AsBuffer(GotAt(TsPrimFuncGetParam, h, i)));
            return out;
          },
          "Input buffers first, then the num_outputs output buffers.")
      .def_property_readonly(
          "body",
          [](const PyPrimFunc& f) { return AsStmt(Got(TsPrimFuncGetBody, f.handle.get())); })
      .def(
          "with_body",
          [](const PyPrimFunc& f, const PyStmt* body) {
            TsStmt stmt = Required(body, "PrimFunc.with_body: body is None");
            TsExpr out = nullptr;
            Check(TsPrimFuncWithBody(f.handle.get(), stmt, &out));
            return AsPrimFunc(out);
          },
          py::arg("body"), "A copy with another body (same buffers and attributes).")
      .def(
          "script",
          [](const PyPrimFunc& f, const std::string& name) {
            return Text([&](TsStringCallback cb, void* u) {
              return TsPrimFuncPrint(f.handle.get(), RefOf(name), cb, u);
            });
          },
          py::arg("name") = "func", "The PrimFunc in the text format, as @name.");

  t.def(
      "prim_func",
      [](const std::vector<const PyBuffer*>& params, const PyStmt* body, int num_outputs,
         py::object attrs) {
        TsStmt stmt = Required(body, "tir.prim_func: body is None");
        std::vector<TsBuffer> buffers;
        for (size_t i = 0; i < params.size(); ++i)
          buffers.push_back(
              Required(params[i], "tir.prim_func: params[" + std::to_string(i) + "] is None"));
        // Checked here too for the old message (the C API's names TsPrimFuncCreate).
        if (num_outputs < 1 || static_cast<size_t>(num_outputs) > params.size())
          Raise(TS_ERROR_VALUE, "tir.prim_func: num_outputs must be from 1 to the " +
                                    std::to_string(params.size()) + " buffer(s), got " +
                                    std::to_string(num_outputs));
        NamedAttrs named = AttrsFromPy(attrs, "PrimFunc attribute");
        TsExpr out = nullptr;
        Check(TsPrimFuncCreate(buffers.data(), buffers.size(), stmt, num_outputs, named.data(),
                               named.size(), &out));
        return AsPrimFunc(out);
      },
      py::arg("params"), py::arg("body"), py::arg("num_outputs") = 1, py::arg("attrs") = py::none(),
      "A PrimFunc: `params` are the input buffers, then the `num_outputs` output buffers.");
}

}  // namespace

void BindTirStmts(py::module_& m, py::module_& t) {
  BindStmts(t);
  BindStmtBuilders(t);
  BindPrimFunc(m, t);
}

}  // namespace tessera_py::tir_bind
