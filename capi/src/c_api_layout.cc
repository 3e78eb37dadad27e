// The C API of layouts: index maps as owned handles over tessera::layout::IndexMap, the
// PrimFunc layout primitives, and PlanLayouts' flow rules written in C.
#include <optional>
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "c_api_tir_internal.h"
#include "tessera/c_api_layout.h"
#include "tessera/ir/tir.h"
#include "tessera/layout/index_map.h"
#include "tessera/layout/suggest_layout_transforms.h"
#include "tessera/layout/transform_block_layout.h"
#include "tessera/layout/transform_layout.h"
#include "tessera/layout_plan/layout_flow.h"
#include "tessera/layout_plan/layout_passes.h"
#include "tessera/ir/op.h"

using namespace tessera::capi;
using tessera::layout::IndexMap;

struct TsIndexMap_ {
  IndexMap map;
};

/// A rule's answer while the rule runs (unset: the layout does not flow).
struct TsLayoutFlow_ {
  std::optional<tessera::LayoutFlow> flow;
};

namespace {

/// A shape or index list from C (`data` may be NULL only for a count of 0).
std::vector<int64_t> ShapeOf(const int64_t* data, size_t count, const char* what) {
  if (count && !data) TS_THROW(kValue) << what << " is NULL with a count of " << count;
  return std::vector<int64_t>(data, data + count);
}

/// Copies `values` into the caller's array of capacity `capacity`.
void StoreInts(const std::vector<int64_t>& values, int64_t* out, size_t capacity,
               const char* what) {
  if (values.size() > capacity)
    TS_THROW(kValue) << what << " gives " << values.size() << " values but the output array holds "
                     << capacity;
  if (!values.empty() && !out) TS_THROW(kValue) << what << ": the output array is NULL";
  std::copy(values.begin(), values.end(), out);
}

TsIndexMap Wrap(IndexMap map) {
  return new TsIndexMap_{std::move(map)};
}

}  // namespace

extern "C" {

TsStatus TsIndexMapParse(TsStringRef text, TsIndexMap* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = Wrap(IndexMap::Parse(StringOf(text, "TsIndexMapParse: text"))); });
}

TsStatus TsIndexMapFromLayouts(const char* src_layout, const char* dst_layout, TsIndexMap* out) {
  TS_REQUIRE(src_layout);
  TS_REQUIRE(dst_layout);
  TS_REQUIRE(out);
  return Guard([&] { *out = Wrap(IndexMap::FromLayouts(src_layout, dst_layout)); });
}

TsStatus TsIndexMapCopy(TsIndexMap map, TsIndexMap* out) {
  TS_REQUIRE(map);
  TS_REQUIRE(out);
  return Guard([&] { *out = Wrap(map->map); });
}

TsStatus TsIndexMapIdentity(int32_t ndim, TsIndexMap* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = Wrap(IndexMap::Identity(ndim)); });
}

TsStatus TsIndexMapPermutation(const int64_t* axes, size_t num_axes, TsIndexMap* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    *out = Wrap(IndexMap::Permutation(ShapeOf(axes, num_axes, "TsIndexMapPermutation: axes")));
  });
}

TsStatus TsIndexMapCreate(const TsPrimExpr* initial, size_t num_initial,
                          const TsPrimExpr* final_indices, size_t num_final, TsIndexMap* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    auto vars = NodesOf<tessera::tir::VarNode>(initial, num_initial,
                                               "TsIndexMapCreate: initial index", "a TIR variable");
    auto exprs = NodesOf<tessera::tir::PrimExprNode>(
        final_indices, num_final, "TsIndexMapCreate: final index", "a TIR expression");
    std::vector<tessera::tir::Var> v(vars.begin(), vars.end());
    std::vector<tessera::tir::PrimExpr> e(exprs.begin(), exprs.end());
    *out = Wrap(IndexMap(std::move(v), std::move(e)));
  });
}

void TsIndexMapDestroy(TsIndexMap map) {
  delete map;
}

TsStatus TsIndexMapPrint(TsIndexMap map, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(map);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(map->map.ToString(), callback, user_data); });
}

TsStatus TsIndexMapGetArity(TsIndexMap map, size_t* out) {
  TS_REQUIRE(map);
  TS_REQUIRE(out);
  *out = static_cast<size_t>(map->map.arity());
  return TS_OK;
}

TsStatus TsIndexMapGetNumOutputs(TsIndexMap map, size_t* out) {
  TS_REQUIRE(map);
  TS_REQUIRE(out);
  *out = static_cast<size_t>(map->map.num_outputs());
  return TS_OK;
}

TsStatus TsIndexMapGetInitialIndex(TsIndexMap map, size_t index, TsPrimExpr* out) {
  TS_REQUIRE(map);
  TS_REQUIRE(out);
  return Guard([&] {
    const auto& vars = map->map.initial_indices();
    CheckIndex(index, vars.size(), "TsIndexMapGetInitialIndex: initial index");
    *out = Give<TsPrimExpr>(tessera::tir::PrimExpr(vars[index]));
  });
}

TsStatus TsIndexMapGetFinalIndex(TsIndexMap map, size_t index, TsPrimExpr* out) {
  TS_REQUIRE(map);
  TS_REQUIRE(out);
  return Guard([&] {
    const auto& exprs = map->map.final_indices();
    CheckIndex(index, exprs.size(), "TsIndexMapGetFinalIndex: final index");
    *out = Give<TsPrimExpr>(exprs[index]);
  });
}

TsStatus TsIndexMapMapIndices(TsIndexMap map, const int64_t* indices, size_t num_indices,
                              int64_t* out, size_t max_out) {
  TS_REQUIRE(map);
  return Guard([&] {
    std::vector<int64_t> result =
        map->map.MapIndices(ShapeOf(indices, num_indices, "TsIndexMapMapIndices: indices"));
    StoreInts(result, out, max_out, "TsIndexMapMapIndices");
  });
}

TsStatus TsIndexMapMapShape(TsIndexMap map, const int64_t* shape, size_t ndim, int64_t* out,
                            size_t max_out) {
  TS_REQUIRE(map);
  return Guard([&] {
    std::vector<int64_t> result =
        map->map.MapShape(ShapeOf(shape, ndim, "TsIndexMapMapShape: shape"));
    StoreInts(result, out, max_out, "TsIndexMapMapShape");
  });
}

TsStatus TsIndexMapApply(TsIndexMap map, TsNDArray tensor, double pad_value, TsNDArray* out) {
  TS_REQUIRE(map);
  TS_REQUIRE(tensor);
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsNDArray_{map->map.Apply(tensor->array, pad_value)}; });
}

TsStatus TsIndexMapNonSurjectiveInverse(TsIndexMap map, const int64_t* shape, size_t ndim,
                                        TsIndexMap* inverse, TsStringCallback predicate,
                                        void* user_data) {
  TS_REQUIRE(map);
  TS_REQUIRE(inverse);
  return Guard([&] {
    IndexMap::InverseResult result = map->map.NonSurjectiveInverse(
        ShapeOf(shape, ndim, "TsIndexMapNonSurjectiveInverse: shape"));
    std::string text = tessera::layout::IndexExprToString(result.padding_predicate);
    *inverse = Wrap(std::move(result.inverse));
    if (predicate) Emit(text, predicate, user_data);
  });
}

TsStatus TsIndexMapInverse(TsIndexMap map, const int64_t* shape, size_t ndim, TsIndexMap* out) {
  TS_REQUIRE(map);
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = Wrap(map->map.Inverse(ShapeOf(shape, ndim, "TsIndexMapInverse: shape"))); });
}

TsStatus TsIndexMapIsBijective(TsIndexMap map, const int64_t* shape, size_t ndim, int* out) {
  TS_REQUIRE(map);
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = map->map.IsBijective(ShapeOf(shape, ndim, "TsIndexMapIsBijective: shape")); });
}

TsStatus TsIndexMapIsInjective(TsIndexMap map, const int64_t* shape, size_t ndim, int* out) {
  TS_REQUIRE(map);
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = map->map.IsInjective(ShapeOf(shape, ndim, "TsIndexMapIsInjective: shape")); });
}

TsStatus TsIndexMapComposeWith(TsIndexMap map, TsIndexMap then, TsIndexMap* out) {
  TS_REQUIRE(map);
  TS_REQUIRE(then);
  TS_REQUIRE(out);
  return Guard([&] { *out = Wrap(map->map.ComposeWith(then->map)); });
}

TsStatus TsIndexMapIsIdentity(TsIndexMap map, const int64_t* shape, size_t ndim, int* out) {
  TS_REQUIRE(map);
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = map->map.IsIdentity(ShapeOf(shape, ndim, "TsIndexMapIsIdentity: shape")); });
}

TsStatus TsIndexMapEqualOn(TsIndexMap a, TsIndexMap b, const int64_t* shape, size_t ndim,
                           int* out) {
  TS_REQUIRE(a);
  TS_REQUIRE(b);
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = a->map.EqualOn(b->map, ShapeOf(shape, ndim, "TsIndexMapEqualOn: shape")); });
}

TsStatus TsIndexMapIsPermutation(TsIndexMap map, int64_t* axes, size_t max_axes, int* out) {
  TS_REQUIRE(map);
  TS_REQUIRE(out);
  return Guard([&] {
    std::vector<int64_t> found;
    bool is_permutation = map->map.IsPermutation(&found);
    if (is_permutation && axes) StoreInts(found, axes, max_axes, "TsIndexMapIsPermutation");
    *out = is_permutation;
  });
}

TsStatus TsIndexMapEqual(TsIndexMap a, TsIndexMap b, int* out) {
  TS_REQUIRE(a);
  TS_REQUIRE(b);
  TS_REQUIRE(out);
  return Guard([&] { *out = a->map == b->map; });
}

TsStatus TsIndexMapHash(TsIndexMap map, uint64_t* out) {
  TS_REQUIRE(map);
  TS_REQUIRE(out);
  return Guard([&] { *out = static_cast<uint64_t>(map->map.Hash()); });
}

TsStatus TsPrimFuncTransformLayout(TsExpr func, const char* buffer, int32_t param_index,
                                   TsIndexMap map, const double* pad_value, TsExpr* out) {
  TS_REQUIRE(func);
  TS_REQUIRE(map);
  TS_REQUIRE(out);
  return Guard([&] {
    auto f =
        tirc::Node<tirc::PrimFuncNode>(func, "TsPrimFuncTransformLayout", "func", "a PrimFunc");
    std::optional<double> pad;
    if (pad_value) pad = *pad_value;
    tessera::tir::PrimFunc result =
        buffer ? tessera::layout::TransformLayout(f, std::string(buffer), map->map, pad)
               : tessera::layout::TransformLayout(f, param_index, map->map, pad);
    *out = Give<TsExpr>(result);
  });
}

TsStatus TsPrimFuncTransformBlockLayout(TsExpr func, const char* block, TsIndexMap map,
                                        TsExpr* out) {
  TS_REQUIRE(func);
  TS_REQUIRE(block);
  TS_REQUIRE(map);
  TS_REQUIRE(out);
  return Guard([&] {
    auto f = tirc::Node<tirc::PrimFuncNode>(func, "TsPrimFuncTransformBlockLayout", "func",
                                            "a PrimFunc");
    *out = Give<TsExpr>(tessera::layout::TransformBlockLayout(f, block, map->map));
  });
}

TsStatus TsSuggestLayoutTransforms(TsExpr func, const TsIndexMap* write_maps, size_t num_maps,
                                   TsIndexMap* param_maps, size_t max_params,
                                   TsStringCallback conflicts, void* user_data) {
  TS_REQUIRE(func);
  TS_REQUIRE(param_maps);
  return Guard([&] {
    auto f =
        tirc::Node<tirc::PrimFuncNode>(func, "TsSuggestLayoutTransforms", "func", "a PrimFunc");
    if (num_maps && !write_maps)
      TS_THROW(kValue) << "TsSuggestLayoutTransforms: write_maps is NULL with a count of "
                       << num_maps;
    if (max_params < f->params.size())
      TS_THROW(kValue) << "TsSuggestLayoutTransforms: the PrimFunc has " << f->params.size()
                       << " parameters but param_maps holds " << max_params;
    std::vector<IndexMap> wanted;
    for (size_t i = 0; i < num_maps; ++i)
      wanted.push_back(write_maps[i] ? write_maps[i]->map : IndexMap());
    tessera::layout::LayoutSuggestion s = tessera::layout::SuggestLayoutTransforms(f, wanted);
    for (size_t i = 0; i < s.params.size(); ++i)
      param_maps[i] = s.params[i].defined() ? Wrap(s.params[i]) : nullptr;
    if (conflicts)
      for (const std::string& name : s.conflicts) Emit(name, conflicts, user_data);
  });
}

TsStatus TsAlterOpImplPassCreate(const char* const* op_names, const TsExpr* prim_funcs,
                                 size_t num_ops, const TsIndexMap* maps, const size_t* num_maps,
                                 TsPass* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    std::vector<std::string> names = NamesFromC(op_names, num_ops, "TsAlterOpImplPassCreate: op_names");
    if (num_ops && !prim_funcs)
      TS_THROW(kValue) << "TsAlterOpImplPassCreate: prim_funcs is NULL with a count of " << num_ops;
    if (maps && !num_maps)
      TS_THROW(kValue) << "TsAlterOpImplPassCreate: maps is given but num_maps is NULL";
    if (num_maps && !maps) {
      for (size_t i = 0; i < num_ops; ++i)
        if (num_maps[i]) TS_THROW(kValue) << "TsAlterOpImplPassCreate: maps is NULL but num_maps is not 0";
    }
    tessera::OpImpls impls;
    size_t at = 0;
    for (size_t i = 0; i < num_ops; ++i) {
      tessera::OpImpl impl;
      impl.func = tirc::Node<tirc::PrimFuncNode>(prim_funcs[i], "TsAlterOpImplPassCreate",
                                                 "prim_funcs", "a PrimFunc");
      for (size_t k = 0; num_maps && k < num_maps[i]; ++k, ++at)
        impl.maps.push_back(maps[at] ? maps[at]->map : IndexMap());
      impls.emplace_back(names[i], std::move(impl));
    }
    *out = new TsPass_{tessera::AlterOpImpl(std::move(impls))};
  });
}

TsStatus TsLayoutFlowSet(TsLayoutFlow flow, TsExpr new_call, const TsIndexMap* operand_maps,
                         size_t num_maps) {
  TS_REQUIRE(flow);
  TS_REQUIRE(new_call);
  return Guard([&] {
    using tessera::CallNode;
    const auto* object = reinterpret_cast<const tessera::Object*>(new_call);
    if (!tessera::IsInstance<CallNode>(object))
      TS_THROW(kType) << "TsLayoutFlowSet: new_call must be a call of an op (the op computing "
                         "the wanted result), got another expression";
    tessera::Ref<const CallNode> call = Borrow<CallNode>(new_call, "a call");
    if (!call->op())
      TS_THROW(kType) << "TsLayoutFlowSet: new_call must call an op, not a function";
    tessera::LayoutFlow out;
    out.op = call->op()->name;
    out.attrs = call->attrs;
    out.operands = call->args;
    if (call->args.size() == 1)
      if (const auto* tuple = call->args[0].template as<tessera::TupleNode>()) {
        out.operands = tuple->fields;
        out.tuple_operands = true;
      }
    if (num_maps && !operand_maps)
      TS_THROW(kValue) << "TsLayoutFlowSet: operand_maps is NULL with a count of " << num_maps;
    if (num_maps != out.operands.size())
      TS_THROW(kValue) << "TsLayoutFlowSet: " << out.op << " has " << out.operands.size()
                       << " operand(s) but " << num_maps << " map(s) were given";
    for (size_t i = 0; i < num_maps; ++i) {
      if (!operand_maps[i]) {
        out.maps.emplace_back();
        continue;
      }
      const IndexMap& m = operand_maps[i]->map;
      const auto* tt = out.operands[i]->checked_type_or_null().as<tessera::TensorTypeNode>();
      if (tt && static_cast<size_t>(m.arity()) != tt->shape.size())
        TS_THROW(kValue) << "TsLayoutFlowSet: the map " << m.ToString() << " of " << out.op
                         << "'s operand " << i << " takes " << m.arity()
                         << " indices but the operand has rank " << tt->shape.size();
      out.maps.push_back(m);
    }
    flow->flow = std::move(out);
  });
}

TsStatus TsLayoutFlowRuleRegister(const char* op_name, TsLayoutFlowRuleCallback callback,
                                  void* user_data, TsUserDataDestroy destroy_user_data) {
  UserDataPtr data;
  if (TsStatus s = TakeUserData(user_data, destroy_user_data, &data)) return s;
  TS_REQUIRE(op_name);
  TS_REQUIRE(callback);
  return Guard([&] {
    if (!tessera::OpRegistry::Global().Find(op_name))
      TS_THROW(kNotFound) << "TsLayoutFlowRuleRegister: unknown op '" << op_name << "'";
    std::string name = op_name;
    tessera::RegisterLayoutFlowRule(
        op_name, [callback, data, name](const tessera::Call& call, const IndexMap& map)
                     -> std::optional<tessera::LayoutFlow> {
          TsIndexMap_ lent_map{map};
          TsLayoutFlow_ answer;
          TsStatus status = callback(Lend<TsExpr>(call.get()), &lent_map, &answer, data->data());
          if (status != TS_OK) ThrowCallbackError(status, "the layout flow rule of '" + name + "'");
          return answer.flow;
        });
  });
}

TsStatus TsLayoutFlowRuleUnregister(const char* op_name) {
  TS_REQUIRE(op_name);
  return Guard([&] { tessera::UnregisterLayoutFlowRule(op_name); });
}

}  // extern "C"
