// tessera._core.layout: IndexMap (affine maps of tensor indices) over the C API's TsIndexMap,
// the PrimFunc layout primitives (transform_layout, transform_block_layout,
// suggest_layout_transforms), and PlanLayouts' flow rules written in Python.
#include <optional>

#include "core_glue.h"

namespace tessera_py {

namespace {

/// An index map; owns its TsIndexMap (immutable, so copies share it).
struct PyIndexMap {
  Shared<TsIndexMap, TsIndexMapDestroy> handle;
};

PyIndexMap Own(TsIndexMap map) {
  return PyIndexMap{Shared<TsIndexMap, TsIndexMapDestroy>(map)};
}

/// Integers from a Python sequence (a shape or indices); anything else raises
/// TesseraTypeError naming `what`.
std::vector<int64_t> IntsOf(py::handle seq, const std::string& what) {
  if (py::isinstance<py::str>(seq) || !py::isinstance<py::sequence>(seq))
    Raise(TS_ERROR_TYPE, what + ": expected a sequence of ints, got a " + TypeName(seq));
  std::vector<int64_t> out;
  size_t i = 0;
  for (py::handle item : seq) {
    if (py::isinstance<py::bool_>(item) || !py::hasattr(item, "__index__"))
      Raise(TS_ERROR_TYPE,
            what + "[" + std::to_string(i) + "]: expected an int, got a " + TypeName(item));
    out.push_back(py::int_(item.attr("__index__")()).cast<int64_t>());
    ++i;
  }
  return out;
}

py::tuple TupleOf(const std::vector<int64_t>& values) {
  py::tuple out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = py::int_(values[i]);
  return out;
}

std::string TextOf(const PyIndexMap& m) {
  return Text([&](TsStringCallback cb, void* u) { return TsIndexMapPrint(m.handle.get(), cb, u); });
}

size_t NumOutputs(const PyIndexMap& m) {
  return CountOf([&](size_t* n) { return TsIndexMapGetNumOutputs(m.handle.get(), n); });
}

size_t Arity(const PyIndexMap& m) {
  return CountOf([&](size_t* n) { return TsIndexMapGetArity(m.handle.get(), n); });
}

PyIndexMap Parse(const std::string& text) {
  TsIndexMap out = nullptr;
  Check(TsIndexMapParse(RefOf(text), &out));
  return Own(out);
}

/// A bool from a `call(shape, ndim, &out)` on `shape` given from Python.
template <typename F>
bool Predicate(py::handle shape, const char* what, F&& call) {
  std::vector<int64_t> s = IntsOf(shape, what);
  int out = 0;
  Check(call(s.data(), s.size(), &out));
  return out != 0;
}

const char* kDoc =
    "An affine map of tensor indices, ``lambda n, c, h, w: (n, c // 4, h, w, c % 4)``: "
    "variables, integer constants, +, -, * by a constant and // and % by a positive "
    "constant. Maps are immutable values; == is alpha-equivalence (names do not matter).";

/// A flow rule written in Python: `fn(call, index_map)` returns None (the layout does not
/// flow) or `(new_call, operand_maps)`.
struct PyFlowRule {
  py::object fn;
  std::string op;
};

/// The TsLayoutFlowRuleCallback of a PyFlowRule.
TsStatus CallFlowRule(TsExpr call, TsIndexMap map, TsLayoutFlow flow, void* user_data) {
  return CallPython([&] {
    const auto& rule = *static_cast<PyFlowRule*>(user_data);
    TsIndexMap copy = nullptr;
    Check(TsIndexMapCopy(map, &copy));
    py::object result = rule.fn(WrapExpr(TsExprRetain(call)), py::cast(Own(copy)));
    if (result.is_none()) return;
    const std::string what = "the layout flow rule of '" + rule.op + "'";
    if (!(py::isinstance<py::tuple>(result) || py::isinstance<py::list>(result)) ||
        py::len(result) != 2)
      Raise(TS_ERROR_TYPE, what + " must return None or (new_call, operand_maps), got a " +
                               TypeName(result));
    py::sequence pair = result;
    TsExpr new_call = ExprOf(pair[0], what + ": new_call");
    TsExprKind kind;
    Check(TsExprGetKind(new_call, &kind));
    if (kind != TS_EXPR_CALL)
      Raise(TS_ERROR_TYPE, what + ": new_call must be a call of an op (the op computing the "
                                  "wanted result), got a " + TypeName(pair[0]));
    py::object maps_obj = pair[1];
    if (py::isinstance<py::str>(maps_obj) || !py::isinstance<py::sequence>(maps_obj))
      Raise(TS_ERROR_TYPE, what + ": operand_maps must be a list of IndexMap or None, got a " +
                               TypeName(maps_obj));
    std::vector<TsIndexMap> maps;
    size_t i = 0;
    for (py::handle item : maps_obj) {
      if (item.is_none()) {
        maps.push_back(nullptr);
      } else if (py::isinstance<PyIndexMap>(item)) {
        maps.push_back(item.cast<const PyIndexMap&>().handle.get());
      } else {
        Raise(TS_ERROR_TYPE, what + ": operand_maps[" + std::to_string(i) +
                                 "] must be an IndexMap or None, got a " + TypeName(item));
      }
      ++i;
    }
    Check(TsLayoutFlowSet(flow, new_call, maps.data(), maps.size()));
  });
}

/// PlanLayouts' flow rules, on tessera._core.layout.
void BindFlowRules(py::module_& m) {
  m.def(
      "register_flow_rule",
      [](const std::string& op_name, py::object fn) {
        if (!PyCallable_Check(fn.ptr()))
          Raise(TS_ERROR_TYPE, "register_flow_rule: the rule of '" + op_name +
                                   "' must be callable as rule(call, index_map), got a " +
                                   TypeName(fn));
        // The C call owns the rule from here, also when it fails.
        Check(TsLayoutFlowRuleRegister(op_name.c_str(), &CallFlowRule,
                                       new PyFlowRule{std::move(fn), op_name},
                                       &DestroyUnderGil<PyFlowRule>));
      },
      py::arg("op_name"), py::arg("rule"),
      "Registers `rule(call, index_map)` for calls of `op_name`, used by PlanLayouts instead "
      "of its own analysis (replacing an earlier rule). The result of `call` is wanted under "
      "`index_map`; the rule returns None where the layout cannot flow, or `(new_call, "
      "operand_maps)`: the op call computing that result, its arguments the operands to "
      "rewrite (usually `call.args`), and one IndexMap (or None: as it is) per operand.");
  m.def(
      "alter_op_impl",
      [](const std::vector<std::string>& ops, const std::vector<Typed<PyPrimFunc>>& funcs,
         const std::vector<std::vector<std::optional<PyIndexMap>>>& maps) {
        if (funcs.size() != ops.size() || maps.size() != ops.size())
          Raise(TS_ERROR_VALUE, "AlterOpImpl: one PrimFunc and one list of maps per op");
        std::vector<const char*> names;
        std::vector<TsExpr> handles;
        std::vector<TsIndexMap> flat;
        std::vector<size_t> counts;
        for (size_t i = 0; i < ops.size(); ++i) {
          names.push_back(ops[i].c_str());
          handles.push_back(ExprOf(funcs[i].obj, "AlterOpImpl: the replacement of " + ops[i]));
          counts.push_back(maps[i].size());
          for (const auto& m : maps[i]) flat.push_back(m ? m->handle.get() : nullptr);
        }
        TsPass out = nullptr;
        Check(TsAlterOpImplPassCreate(names.data(), handles.data(), ops.size(), flat.data(),
                                      counts.data(), &out));
        return WrapPass(out);
      },
      py::arg("ops"), py::arg("prim_funcs"), py::arg("maps"),
      "The AlterOpImpl pass over replacement PrimFuncs (tessera.transform.AlterOpImpl).");
  m.def(
      "unregister_flow_rule",
      [](const std::string& op_name) { Check(TsLayoutFlowRuleUnregister(op_name.c_str())); },
      py::arg("op_name"), "Removes the flow rule of `op_name` (none is no error).");
}

/// The PrimFunc layout primitives, on tessera._core.layout.
void BindPrimFuncLayouts(py::module_& m) {
  m.def(
      "transform_layout",
      [](const Typed<PyPrimFunc>& func, py::object buffer, const PyIndexMap& map,
         std::optional<double> pad_value) {
        TsExpr f = ExprOf(func.obj, "transform_layout: prim_func");
        std::string name;
        int32_t index = 0;
        bool by_name = py::isinstance<py::str>(buffer);
        if (by_name) {
          name = buffer.cast<std::string>();
        } else if (!py::isinstance<py::bool_>(buffer) && py::hasattr(buffer, "__index__")) {
          index = py::int_(buffer.attr("__index__")()).cast<int32_t>();
        } else {
          Raise(TS_ERROR_TYPE,
                "transform_layout: buffer must be a parameter index (int) or a "
                "buffer name (str), got a " +
                    TypeName(buffer));
        }
        TsExpr out = nullptr;
        double pad = pad_value.value_or(0.0);
        Check(TsPrimFuncTransformLayout(f, by_name ? name.c_str() : nullptr, index,
                                        map.handle.get(), pad_value ? &pad : nullptr, &out));
        return TypedOf<PyPrimFunc>(WrapExpr(out));
      },
      py::arg("prim_func"), py::arg("buffer"), py::arg("index_map"),
      py::arg("pad_value") = py::none(),
      "The PrimFunc with one buffer (a parameter index, inputs then outputs, or a buffer name) "
      "rewritten by `index_map` (TVM's transform_layout): its shape becomes the mapped shape "
      "and every access goes through the map. When the map pads and the function writes the "
      "buffer, `pad_value` fills the padding positions (None leaves them alone).");
  m.def(
      "transform_block_layout",
      [](const Typed<PyPrimFunc>& func, const std::string& block, const PyIndexMap& map) {
        TsExpr f = ExprOf(func.obj, "transform_block_layout: prim_func");
        TsExpr out = nullptr;
        Check(TsPrimFuncTransformBlockLayout(f, block.c_str(), map.handle.get(), &out));
        return TypedOf<PyPrimFunc>(WrapExpr(out));
      },
      py::arg("prim_func"), py::arg("block"), py::arg("index_map"),
      "The PrimFunc with block `block` iterating the image of its domain under the bijection "
      "`index_map` (TVM's transform_block_layout); its loops become a serial nest over the "
      "new domain. The block must be the only statement of a perfect nest of its own loops.");
  m.def(
      "suggest_layout_transforms",
      [](const Typed<PyPrimFunc>& func, py::object maps) {
        TsExpr f = ExprOf(func.obj, "suggest_layout_transforms: prim_func");
        if (py::isinstance<py::str>(maps) || !py::isinstance<py::sequence>(maps))
          Raise(TS_ERROR_TYPE,
                "suggest_layout_transforms: index_maps must be a sequence of "
                "IndexMap (or None), got a " +
                    TypeName(maps));
        std::vector<TsIndexMap> wanted;
        size_t i = 0;
        for (py::handle item : maps) {
          if (item.is_none()) {
            wanted.push_back(nullptr);
          } else if (py::isinstance<PyIndexMap>(item)) {
            wanted.push_back(item.cast<const PyIndexMap&>().handle.get());
          } else {
            Raise(TS_ERROR_TYPE, "suggest_layout_transforms: index_maps[" + std::to_string(i) +
                                     "] must be an IndexMap or None, got a " + TypeName(item));
          }
          ++i;
        }
        size_t num_params = CountOf([&](size_t* n) { return TsPrimFuncGetNumParams(f, n); });
        std::vector<TsIndexMap> found(num_params, nullptr);
        Check(TsSuggestLayoutTransforms(f, wanted.data(), wanted.size(), found.data(), found.size(),
                                        nullptr, nullptr));
        std::vector<std::optional<PyIndexMap>> out;
        for (TsIndexMap h : found)
          out.push_back(h ? std::optional<PyIndexMap>(Own(h)) : std::nullopt);
        return out;
      },
      py::arg("prim_func"), py::arg("index_maps"),
      "From the maps wanted for the PrimFunc's outputs (the last len(index_maps) "
      "parameters; None for no wish), the map each parameter should be rewritten by, read "
      "from the blocks' access regions: a list with one IndexMap per parameter, None where "
      "the flow stops.");
}

}  // namespace

void BindLayout(py::module_& parent) {
  py::module_ m = parent.def_submodule("layout", "Index maps (use tessera.layout).");
  py::class_<PyIndexMap> cls(m, "IndexMap", kDoc);
  cls.def(py::init([](const std::string& text) { return Parse(text); }), py::arg("text"),
          "Parses the text form (as `IndexMap.parse`).")
      .def_static("parse", &Parse, py::arg("text"),
                  "Parses `lambda i, j: (...)` (`//`, `%`, `*`, `+`, `-`, parentheses, "
                  "`floordiv(a, b)`, `floormod(a, b)`); a syntax error names the position.")
      .def_static(
          "from_func",
          [](py::object func) {
            // The Python lambda runs on symbolic indices that spell out its text.
            py::object text = py::module_::import("tessera.layout").attr("_lambda_text")(func);
            return Parse(text.cast<std::string>());
          },
          py::arg("func"),
          "The map a Python function computes, e.g. "
          "`IndexMap.from_func(lambda n, c, h, w: (n, c // 4, h, w, c % 4))`; its parameters "
          "name the input indices.")
      .def_static(
          "from_layouts",
          [](const std::string& src, const std::string& dst) {
            TsIndexMap out = nullptr;
            Check(TsIndexMapFromLayouts(src.c_str(), dst.c_str(), &out));
            return Own(out);
          },
          py::arg("src_layout"), py::arg("dst_layout"),
          "The map between TVM layout strings, e.g. `from_layouts('NCHW', 'NCHW16c')`.")
      .def_static(
          "identity",
          [](int32_t ndim) {
            TsIndexMap out = nullptr;
            Check(TsIndexMapIdentity(ndim, &out));
            return Own(out);
          },
          py::arg("ndim"), "`lambda i0, ...: (i0, ...)` of `ndim` indices.")
      .def_static(
          "permutation",
          [](py::object axes) {
            std::vector<int64_t> a = IntsOf(axes, "IndexMap.permutation: axes");
            TsIndexMap out = nullptr;
            Check(TsIndexMapPermutation(a.data(), a.size(), &out));
            return Own(out);
          },
          py::arg("axes"), "The map of a transpose: output k is input `axes[k]`.")
      .def_property_readonly("arity", &Arity, "The number of input indices.")
      .def_property_readonly("num_outputs", &NumOutputs, "The number of output indices.")
      .def_property_readonly(
          "initial_indices",
          [](const PyIndexMap& m) {
            return TypedList<PyTirVar, TsPrimExpr>(
                Arity(m),
                [&](size_t i, TsPrimExpr* out) {
                  return TsIndexMapGetInitialIndex(m.handle.get(), i, out);
                },
                WrapPrimExpr);
          },
          "The input variables (tir.Var).")
      .def_property_readonly(
          "final_indices",
          [](const PyIndexMap& m) {
            return TypedList<PyPrimExpr, TsPrimExpr>(
                NumOutputs(m),
                [&](size_t i, TsPrimExpr* out) {
                  return TsIndexMapGetFinalIndex(m.handle.get(), i, out);
                },
                WrapPrimExpr);
          },
          "The output expressions (tir.PrimExpr), simplified.")
      .def(
          "map_indices",
          [](const PyIndexMap& m, py::object indices) {
            std::vector<int64_t> in = IntsOf(indices, "IndexMap.map_indices: indices");
            std::vector<int64_t> out(NumOutputs(m));
            Check(
                TsIndexMapMapIndices(m.handle.get(), in.data(), in.size(), out.data(), out.size()));
            return TupleOf(out);
          },
          py::arg("indices"), "The output indices at concrete input indices.")
      .def(
          "map_shape",
          [](const PyIndexMap& m, py::object shape) {
            std::vector<int64_t> in = IntsOf(shape, "IndexMap.map_shape: shape");
            std::vector<int64_t> out(NumOutputs(m));
            Check(TsIndexMapMapShape(m.handle.get(), in.data(), in.size(), out.data(), out.size()));
            return TupleOf(out);
          },
          py::arg("shape"),
          "The shape of the image of `shape`, padded as TVM pads (`i -> (i // 4, i % 4)` over "
          "(14,) gives (4, 4)).")
      .def(
          "inverse",
          [](const PyIndexMap& m, py::object shape) {
            std::vector<int64_t> s = IntsOf(shape, "IndexMap.inverse: shape");
            TsIndexMap out = nullptr;
            Check(TsIndexMapInverse(m.handle.get(), s.data(), s.size(), &out));
            return Own(out);
          },
          py::arg("shape"), "The inverse of a bijection on `shape` (a map that pads raises).")
      .def(
          "non_surjective_inverse",
          [](const PyIndexMap& m, py::object shape) {
            std::vector<int64_t> s = IntsOf(shape, "IndexMap.non_surjective_inverse: shape");
            TsIndexMap out = nullptr;
            std::string predicate;
            Check(TsIndexMapNonSurjectiveInverse(m.handle.get(), s.data(), s.size(), &out,
                                                 &AppendText, &predicate));
            return py::make_tuple(Own(out), predicate);
          },
          py::arg("shape"),
          "(inverse, predicate) of a map injective on `shape`: the predicate is Python text "
          "over the inverse's variables, true exactly at padding positions ('False' for a "
          "bijection).")
      .def(
          "is_bijective",
          [](const PyIndexMap& m, py::object shape) {
            return Predicate(shape, "IndexMap.is_bijective: shape",
                             [&](const int64_t* s, size_t n, int* out) {
                               return TsIndexMapIsBijective(m.handle.get(), s, n, out);
                             });
          },
          py::arg("shape"), "Whether the map is a bijection from `shape` onto its image shape.")
      .def(
          "is_injective",
          [](const PyIndexMap& m, py::object shape) {
            return Predicate(shape, "IndexMap.is_injective: shape",
                             [&](const int64_t* s, size_t n, int* out) {
                               return TsIndexMapIsInjective(m.handle.get(), s, n, out);
                             });
          },
          py::arg("shape"), "Whether the map is injective on `shape` (invertible, maybe padding).")
      .def(
          "is_identity",
          [](const PyIndexMap& m, py::object shape) {
            return Predicate(shape, "IndexMap.is_identity: shape",
                             [&](const int64_t* s, size_t n, int* out) {
                               return TsIndexMapIsIdentity(m.handle.get(), s, n, out);
                             });
          },
          py::arg("shape"), "Whether the map is the identity on every index of `shape` (exact).")
      .def(
          "equal_on",
          [](const PyIndexMap& m, const PyIndexMap& other, py::object shape) {
            return Predicate(
                shape, "IndexMap.equal_on: shape", [&](const int64_t* s, size_t n, int* out) {
                  return TsIndexMapEqualOn(m.handle.get(), other.handle.get(), s, n, out);
                });
          },
          py::arg("other"), py::arg("shape"),
          "Whether both maps give the same outputs on every index of `shape` (exact).")
      .def(
          "is_permutation",
          [](const PyIndexMap& m) {
            int out = 0;
            Check(TsIndexMapIsPermutation(m.handle.get(), nullptr, 0, &out));
            return out != 0;
          },
          "Whether the map only permutes axes.")
      .def(
          "as_permutation",
          [](const PyIndexMap& m) -> py::object {
            std::vector<int64_t> axes(Arity(m));
            int out = 0;
            Check(TsIndexMapIsPermutation(m.handle.get(), axes.data(), axes.size(), &out));
            if (!out) return py::none();
            return TupleOf(axes);
          },
          "The axes of a permutation (output k reads input axes[k]), or None.")
      .def(
          "compose",
          [](const PyIndexMap& m, const PyIndexMap& then) {
            TsIndexMap out = nullptr;
            Check(TsIndexMapComposeWith(m.handle.get(), then.handle.get(), &out));
            return Own(out);
          },
          py::arg("then"), "`then` after this map: first this map, then `then`.")
      .def(
          "apply",
          [](const PyIndexMap& m, py::object array, double pad_value) {
            auto in = NDArrayFromPy(array, "IndexMap.apply: array", /*copy=*/false);
            TsNDArray out = nullptr;
            TsStatus status;
            {
              py::gil_scoped_release release;
              status = TsIndexMapApply(m.handle.get(), in.get(), pad_value, &out);
            }
            Check(status);
            Shared<TsNDArray, TsNDArrayDestroy> owned(out);
            return NDArrayToPy(owned.get(), /*writeable=*/true);
          },
          py::arg("array"), py::arg("pad_value") = 0.0,
          "A NumPy array of the mapped shape with out[map(i)] = array[i] and `pad_value` at "
          "padding positions (any dtype; the map must be injective on the array's shape).")
      .def("__eq__",
           [](const PyIndexMap& a, py::object b) {
             if (!py::isinstance<PyIndexMap>(b)) return false;
             int equal = 0;
             Check(
                 TsIndexMapEqual(a.handle.get(), b.cast<const PyIndexMap&>().handle.get(), &equal));
             return equal != 0;
           })
      .def("__hash__",
           [](const PyIndexMap& m) {
             uint64_t hash = 0;
             Check(TsIndexMapHash(m.handle.get(), &hash));
             return static_cast<size_t>(hash);
           })
      .def("__str__", &TextOf)
      .def("__repr__", [](const PyIndexMap& m) {
        return "IndexMap(" + py::repr(py::str(TextOf(m))).cast<std::string>() + ")";
      });
  BindPrimFuncLayouts(m);
  BindFlowRules(m);
}

}  // namespace tessera_py
