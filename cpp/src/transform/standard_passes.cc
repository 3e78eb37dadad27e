// Registrations of the standard optimisation passes (appended to the built-in table).
#include "builtin_passes.h"
#include "tessera/transform/passes.h"

namespace tessera {

void AppendStandardPasses(std::vector<PassRegistration>& passes) {
  passes.push_back(
      {"FuseOps",
       "fuse ops into Primitive functions by pattern kind and post-dominance",
       {{"max_depth", AttrValue::Kind::kInt, AttrValue(int64_t{256}),
         "maximum number of ops in one fused function"}},
       [](const Attrs& o) { return FuseOps(static_cast<int>(o.GetInt("max_depth"))); }});
  passes.push_back({"FoldConstant", "evaluate constant sub-graphs", {}, [](const Attrs&) {
                      return FoldConstant();
                    }});
  passes.push_back({"InlineComposites",
                    "inline Composite functions outside library partitions",
                    {},
                    [](const Attrs&) { return InlineComposites(); }});
  passes.push_back({"DeadCodeElimination",
                    "remove unused bindings and unreachable functions",
                    {},
                    [](const Attrs&) { return DeadCodeElimination(); }});
  passes.push_back({"EliminateCommonSubexpr", "merge identical op calls", {}, [](const Attrs&) {
                      return EliminateCommonSubexpr();
                    }});
  passes.push_back({"SimplifyInference",
                    "rewrite batch_norm, layer_norm and dropout for inference",
                    {},
                    [](const Attrs&) { return SimplifyInference(); }});
  passes.push_back(
      {"FoldScaleAxis", "fold per-channel scales into conv2d/dense weights", {}, [](const Attrs&) {
         return FoldScaleAxis();
       }});
  passes.push_back({"SimplifyExpr", "algebraic simplification", {}, [](const Attrs&) {
                      return SimplifyExpr();
                    }});
}

}  // namespace tessera
