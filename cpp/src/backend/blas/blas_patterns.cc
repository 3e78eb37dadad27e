// The BLAS backend's pattern table and op predicates: float32 GEMMs through
// cblas_sgemm (dense, matmul, batch_matmul), optionally with a per-column bias.
#include "tessera/ir/expr.h"
#include "tessera/backend/blas/blas_backend.h"
#include "tessera/pattern/library_patterns.h"

namespace tessera {

namespace {

bool OutDTypeF32(const Attrs& attrs) {
  return StringAttrIs(attrs, "out_dtype", "float32");
}

/// sgemm needs float32; data 2-D/3-D (rows flattened), weight 2-D.
bool GemmSupported(const CallNode& call) {
  int a = RankOf(call.args[0]);
  return AllFloat32(call) && (a == 2 || a == 3) && RankOf(call.args[1]) == 2 &&
         OutDTypeF32(call.attrs);
}

/// A loop of sgemm calls over the batch.
bool BatchGemmSupported(const CallNode& call) {
  return AllFloat32(call) && RankOf(call.args[0]) == 3 && RankOf(call.args[1]) == 3 &&
         OutDTypeF32(call.attrs);
}

}  // namespace

void RegisterBlasPatternTable(PatternTableRegistry& registry) {
  std::vector<PatternTableEntry> entries;
  for (auto [kind, check] :
       {std::pair<AnchorKind, OpSupportPredicate>{AnchorKind::kDense, GemmSupported},
        {AnchorKind::kMatmul, GemmSupported},
        {AnchorKind::kBatchMatmul, BatchGemmSupported}}) {
    for (PatternTableEntry& e : MakeChainEntries("blas", kind, {}, /*with_sum=*/false,
                                                 /*with_bare=*/true, check)) {
      // The bias is folded into the GEMM by pre-broadcasting it into the output at load
      // (beta = 1), so the BLAS module takes constant biases only.
      if (e.label.size() > 5 && e.label.compare(e.label.size() - 5, 5, "_bias") == 0)
        e.predicate = [inner = e.predicate](const Expr& root) {
          const auto* call = root.as<CallNode>();
          return call && call->args.size() == 2 && call->args[1].as<ConstantNode>() &&
                 (!inner || inner(root));
        };
      entries.push_back(std::move(e));
    }
  }
  registry.RegisterPatterns("blas", std::move(entries));
  registry.RegisterOpSupport("blas", "nn.dense", GemmSupported);
  registry.RegisterOpSupport("blas", "nn.matmul", GemmSupported);
  registry.RegisterOpSupport("blas", "nn.batch_matmul", BatchGemmSupported);
}

}  // namespace tessera
