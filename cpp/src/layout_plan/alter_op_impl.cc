// AlterOpImpl: every call of a listed op runs a replacement PrimFunc the user wrote, in the
// layouts it was written for (index maps per parameter), frozen there; TVM Relax's pass.
#include "layout_ops.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/op.h"
#include "tessera/ir/type.h"
#include "tessera/ir/visitor.h"
#include "tessera/layout_plan/layout_passes.h"
#include "tessera/runtime/ndarray.h"
#include "tessera/support/error.h"
#include "tessera/transform/optimizable.h"

namespace tessera::layout_plan {

namespace {

using layout::IndexMap;

/// Throws unless the replacement's parameter `index` has `shape` and `dtype` (what the
/// operand or result becomes under `map`).
void CheckParam(const std::string& op, const tir::PrimFunc& impl, size_t index,
                const std::vector<int64_t>& shape, DType dtype, const IndexMap& map,
                const char* what) {
  const tir::Buffer& b = impl->params[index];
  if (b->shape == shape && b->dtype == dtype) return;
  TS_THROW(kType) << "AlterOpImpl: the replacement of op '" << op << "' takes parameter "
                  << index << " ('" << b->name << "') as " << ShapeToString(b->shape) << " "
                  << DTypeName(b->dtype) << ", but the " << what
                  << (map.defined() ? " under " + map.ToString() : std::string()) << " is "
                  << ShapeToString(shape) << " " << DTypeName(dtype);
}

/// Rewrites the calls of the listed ops into calls of their replacements (added to the
/// module once per op, as `<op>_replacement`, when first used).
class Replacer : public KernelAdder {
 public:
  Replacer(const OpImpls& impls, const IRModule& mod) : KernelAdder(mod), impls_(impls) {}

 protected:
  Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
    const auto* orig = original.as<CallNode>();
    if (!orig || !orig->op() || IsFrozen(orig)) return rebuilt;
    const std::string& name = orig->op()->name;
    const OpImpl* impl = nullptr;
    for (const auto& [op, i] : impls_)
      if (op == name) impl = &i;
    if (!impl) return rebuilt;
    const auto* call = rebuilt.as<CallNode>();
    const auto* out_type = original->checked_type().as<TensorTypeNode>();
    auto out_shape = ShapeOf(original);
    if (!out_type || !out_shape)
      TS_THROW(kUnsupported) << "AlterOpImpl: op '" << name << "' has a non-tensor result";
    const size_t n = orig->args.size();
    const tir::PrimFunc pf = FuncOf(name, *impl);
    if (pf->num_outputs != 1 || pf->params.size() != n + 1)
      TS_THROW(kValue) << "AlterOpImpl: op '" << name << "' has " << n
                       << " operand(s) and one result, but its replacement takes "
                       << pf->params.size() - pf->num_outputs << " input(s) and "
                       << pf->num_outputs << " output(s)";
    if (!impl->maps.empty() && impl->maps.size() != n + 1)
      TS_THROW(kValue) << "AlterOpImpl: op '" << name << "' has " << n
                       << " operand(s) and a result, so " << n + 1
                       << " buffer transforms (or none), got " << impl->maps.size();
    auto map_of = [&](size_t i) { return impl->maps.empty() ? IndexMap() : impl->maps[i]; };
    std::vector<Expr> args;
    for (size_t i = 0; i < n; ++i) {
      const auto* tt = orig->args[i]->checked_type().as<TensorTypeNode>();
      auto shape = ShapeOf(orig->args[i]);
      if (!tt || !shape)
        TS_THROW(kUnsupported) << "AlterOpImpl: operand " << i << " of op '" << name
                               << "' is not a tensor";
      IndexMap m = map_of(i);
      if (m.defined() && static_cast<size_t>(m.arity()) != shape->size())
        TS_THROW(kType) << "AlterOpImpl: the map " << m.ToString() << " of op '" << name
                        << "'s operand " << i << " takes " << m.arity()
                        << " indices but the operand has rank " << shape->size();
      if (m.defined() && !m.IsInjective(*shape))
        TS_THROW(kValue) << "AlterOpImpl: the map " << m.ToString() << " of op '" << name
                         << "'s operand " << i << " is not injective on " << ShapeToString(*shape)
                         << " (it would lose elements)";
      CheckParam(name, pf, i, m.defined() ? m.MapShape(*shape) : *shape, tt->dtype, m,
                 ("operand " + std::to_string(i)).c_str());
      // Padded lanes are zero: what reductions over a padded axis need.
      args.push_back(m.defined() ? MakeLayoutTransform(call->args[i], m, 0.0) : call->args[i]);
    }
    IndexMap out_map = map_of(n);
    if (out_map.defined() && static_cast<size_t>(out_map.arity()) != out_shape->size())
      TS_THROW(kType) << "AlterOpImpl: the result map " << out_map.ToString() << " of op '"
                      << name << "' takes " << out_map.arity()
                      << " indices but the result has rank " << out_shape->size();
    if (out_map.defined() && !out_map.IsInjective(*out_shape))
      TS_THROW(kValue) << "AlterOpImpl: the result map " << out_map.ToString() << " of op '"
                       << name << "' is not injective on " << ShapeToString(*out_shape);
    std::vector<int64_t> new_shape = out_map.defined() ? out_map.MapShape(*out_shape) : *out_shape;
    CheckParam(name, pf, n, new_shape, out_type->dtype, out_map, "result");
    Expr replaced = MakeOpCall(kCallTirOp, {MakeGlobalVar(GlobalFor(name, *impl)), MakeTuple(args)},
                               Attrs{{"frozen_layout", true}},
                               {MakeTensorType(new_shape, out_type->dtype)});
    if (!out_map.defined()) return replaced;
    // Back through the inverse on the mapped shape; where the map padded, the inverse
    // reaches past the result's extents and a crop drops the padding.
    IndexMap back = out_map.NonSurjectiveInverse(*out_shape).inverse;
    Expr out = MakeLayoutTransform(replaced, back);
    if (back.MapShape(new_shape) == *out_shape) return out;
    return MakeOpCall("crop", {out},
                      Attrs{{"begin", AttrValue::Ints(std::vector<int64_t>(out_shape->size(), 0))},
                            {"sizes", AttrValue::Ints(*out_shape)}});
  }

 private:
  /// The replacement `impl` gives for `op`: its PrimFunc, or the module's one it names.
  tir::PrimFunc FuncOf(const std::string& op, const OpImpl& impl) const {
    if (impl.global.empty()) return impl.func;
    BaseFunc found = mod_.Find(impl.global);
    const auto* pf = found.defined() ? found.as<tir::PrimFuncNode>() : nullptr;
    if (!pf)
      TS_THROW(kNotFound) << "AlterOpImpl: the replacement '" << impl.global << "' of op '" << op
                          << "' is not a PrimFunc of the module";
    return tir::PrimFunc(pf);
  }

  /// The global name of `op`'s replacement, added to the module on first use.
  std::string GlobalFor(const std::string& op, const OpImpl& impl) {
    if (!impl.global.empty()) return impl.global;
    for (const auto& [o, global] : globals_)
      if (o == op) return global;
    std::string global = Add("", op, "_replacement", impl.func);
    globals_.emplace_back(op, global);
    return global;
  }

  const OpImpls& impls_;
  std::vector<std::pair<std::string, std::string>> globals_;
};

}  // namespace

}  // namespace tessera::layout_plan

namespace tessera {

Pass AlterOpImpl(OpImpls impls) {
  // A pass with nothing to replace would run and change nothing: say so instead.
  if (impls.empty()) TS_THROW(kValue) << "AlterOpImpl needs at least one op and its replacement";
  for (size_t i = 0; i < impls.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (impls[i].first == impls[j].first)
        TS_THROW(kValue) << "AlterOpImpl: op '" << impls[i].first
                         << "' is given two replacements";
  for (const auto& [op, impl] : impls) {
    if (!OpRegistry::Global().Find(op)) TS_THROW(kNotFound) << "AlterOpImpl: unknown op '" << op << "'";
    if (!impl.func.defined() && impl.global.empty())
      TS_THROW(kValue) << "AlterOpImpl: op '" << op << "' has no replacement PrimFunc";
  }
  return CreateModulePass(
      [impls](IRModule mod, const PassContext&) {
        mod = InferTypes(mod);
        // One replacer for the module, so each op's replacement is added once.
        layout_plan::Replacer replacer(impls, mod);
        IRModule out = MapOptimizableFunctions(mod, [&](const Function& f) { return replacer.Mutate(f); });
        return InferTypes(replacer.AddTo(out));
      },
      PassInfo{"AlterOpImpl", 0, {}});
}

}  // namespace tessera
