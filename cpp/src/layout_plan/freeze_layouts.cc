// FreezeLayouts: layout-critical ops take the index maps a user chose for their operands and
// result, as call_tir of their own PrimFunc transformed by TransformLayout, frozen there.
#include <optional>

#include "layout_ops.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/op.h"
#include "tessera/ir/type.h"
#include "tessera/ir/visitor.h"
#include "tessera/layout/transform_layout.h"
#include "tessera/layout_plan/layout_passes.h"
#include "tessera/support/error.h"
#include "tessera/transform/optimizable.h"

namespace tessera::layout_plan {

namespace {

using layout::IndexMap;

/// Rewrites the calls of the listed ops; the PrimFuncs it makes are collected in `made`.
class Freezer : public KernelAdder {
 public:
  Freezer(const FrozenLayouts& layouts, const IRModule& mod) : KernelAdder(mod), layouts_(layouts) {}

 protected:
  Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
    const auto* orig = original.as<CallNode>();
    if (!orig || !orig->op() || IsFrozen(orig)) return rebuilt;
    const std::string& name = orig->op()->name;
    const std::vector<IndexMap>* maps = nullptr;
    for (const auto& [op, m] : layouts_)
      if (op == name) maps = &m;
    if (!maps) return rebuilt;
    const auto* call = rebuilt.as<CallNode>();
    auto out_shape = ShapeOf(original);
    if (!out_shape)
      TS_THROW(kUnsupported) << "FreezeLayouts: op '" << name << "' has a non-tensor result";
    if (maps->size() != orig->args.size() + 1)
      TS_THROW(kValue) << "FreezeLayouts: op '" << name << "' has " << orig->args.size()
                       << " operands and a result, but " << maps->size() << " maps were given";
    auto func = LowerCallAlone(orig);
    if (!func)
      TS_THROW(kUnsupported) << "FreezeLayouts: op '" << name
                             << "' cannot be lowered alone (non-tensor operands or no compute rule)";
    tir::PrimFunc pf = *func;
    std::vector<Expr> args;
    for (size_t i = 0; i < orig->args.size(); ++i) {
      const IndexMap& m = (*maps)[i];
      if (!m.defined()) {
        args.push_back(call->args[i]);
        continue;
      }
      // Zero in padded lanes: what a convolution's or matmul's operands need.
      pf = Transform(pf, static_cast<int>(i), m, name, "operand " + std::to_string(i), 0.0);
      args.push_back(MakeLayoutTransform(call->args[i], m, 0.0));
    }
    const IndexMap& out_map = maps->back();
    const auto* out_type = original->checked_type().as<TensorTypeNode>();
    std::vector<int64_t> new_shape = *out_shape;
    if (out_map.defined()) {
      if (!out_map.IsBijective(*out_shape))
        TS_THROW(kValue) << "FreezeLayouts: the result map " << out_map.ToString() << " of op '"
                         << name << "' must be a bijection on " << ShapeToString(*out_shape)
                         << " (results that pad are not supported)";
      pf = Transform(pf, static_cast<int>(orig->args.size()), out_map, name, "result", std::nullopt);
      new_shape = out_map.MapShape(*out_shape);
    }
    std::string global = Add("frozen_", name, "", pf);
    Expr frozen = MakeOpCall(kCallTirOp, {MakeGlobalVar(global), MakeTuple(args)},
                             Attrs{{"frozen_layout", true}},
                             {MakeTensorType(new_shape, out_type->dtype)});
    if (!out_map.defined()) return frozen;
    return MakeLayoutTransform(frozen, out_map.Inverse(*out_shape));
  }

 private:
  /// TransformLayout of parameter `param`, its errors naming the pass, the op and the map.
  static tir::PrimFunc Transform(const tir::PrimFunc& pf, int param, const IndexMap& map,
                                 const std::string& op, const std::string& what,
                                 std::optional<double> pad) {
    try {
      return layout::TransformLayout(pf, param, map, pad);
    } catch (const Error& e) {
      ::tessera::detail::ErrorBuilder(e.kind()) << "FreezeLayouts: op '" << op << "': the map " << map.ToString()
                         << " of its " << what << ": " << e.what();
    }
  }

  const FrozenLayouts& layouts_;
};

}  // namespace

}  // namespace tessera::layout_plan

namespace tessera {

Pass FreezeLayouts(FrozenLayouts layouts) {
  for (const auto& [op, maps] : layouts) {
    const OpDef* def = OpRegistry::Global().Find(op);
    if (!def) TS_THROW(kNotFound) << "FreezeLayouts: unknown op '" << op << "'";
    if (!def->variadic && maps.size() != def->inputs.size() + 1)
      TS_THROW(kValue) << "FreezeLayouts: op '" << op << "' takes " << def->inputs.size()
                       << " operands, so " << def->inputs.size() + 1
                       << " maps (operands, then the result; an empty map keeps one), got "
                       << maps.size();
  }
  return CreateModulePass(
      [layouts](IRModule mod, const PassContext&) {
        mod = InferTypes(mod);
        layout_plan::Freezer freezer(layouts, mod);
        IRModule out = MapOptimizableFunctions(mod, [&](const Function& f) { return freezer.Mutate(f); });
        return InferTypes(freezer.AddTo(out));
      },
      PassInfo{"FreezeLayouts", 0, {}});
}

}  // namespace tessera
