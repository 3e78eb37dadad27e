// The blocked GEMM template of nn.dense / nn.matmul / nn.batch_matmul: shapes that are and
// are not multiples of the register tile, the dot-product path of few-row products,
// transposes, batch broadcast and fused epilogues, all against the graph interpreter.
#include <gtest/gtest.h>

#include "lower_test_util.h"
#include "tessera/ir/op.h"
#include "tessera/transform/pass_registry.h"

namespace tessera {
namespace {

using testing_lower::CheckLowering;

using testing_lower::Main;
using testing_lower::T;
std::string Dense(int m, int n, int k) {
  return Main("%x: " + T(std::to_string(m) + ", " + std::to_string(k)) +
                  ", %w: " + T(std::to_string(n) + ", " + std::to_string(k)),
              "nn.dense(%x, %w)");
}

/// Whether the statement tree contains an Allocate of a buffer named with `prefix`.
bool HasAllocate(const tir::Stmt& root, const std::string& prefix) {
  std::vector<tir::Stmt> stack{root};
  while (!stack.empty()) {
    tir::Stmt s = stack.back();
    stack.pop_back();
    if (!s.defined()) continue;
    if (auto* a = s.as<tir::AllocateNode>()) {
      if (a->buffer->name.rfind(prefix, 0) == 0) return true;
      stack.push_back(a->body);
    } else if (auto* f = s.as<tir::ForNode>()) {
      stack.push_back(f->body);
    } else if (auto* q = s.as<tir::SeqStmtNode>()) {
      for (const tir::Stmt& c : q->seq) stack.push_back(c);
    } else if (auto* i = s.as<tir::IfThenElseNode>()) {
      stack.push_back(i->then_case);
      stack.push_back(i->else_case);
    }
  }
  return false;
}

TEST(DenseTemplate, BatchRowsFoldIntoOneProduct) {
  // A shared right operand: the batch rows become rows of one product (with the
  // output indices split back), including single-row batch elements and epilogues.
  CheckLowering(Main("%x: " + T("3, 5, 7, 20") + ", %w: " + T("20, 9"),
                     "%0 = nn.matmul(%x, %w); nn.relu(%0)"));
  CheckLowering(Main("%x: " + T("6, 1, 20") + ", %w: " + T("20, 35"), "nn.matmul(%x, %w)"));
  CheckLowering(Main("%x: " + T("2, 13, 20") + ", %w: " + T("9, 20") + ", %b: " + T("9"),
                     "%0 = nn.dense(%x, %w); add(%0, %b)"));
}

TEST(DenseTemplate, DenseShapes) {
  for (auto [m, n, k] : std::vector<std::tuple<int, int, int>>{
           {1, 7, 5}, {5, 33, 17}, {64, 64, 64}, {37, 100, 53}, {6, 16, 1}, {13, 40, 9}})
    CheckLowering(Dense(m, n, k));
  CheckLowering(Main("%x: " + T("2, 7, 19") + ", %w: " + T("21, 19"), "nn.dense(%x, %w)"));
}

TEST(DenseTemplate, FewRowsUseDotProducts) {
  // k >= 8 with k-contiguous operands: vectorized dot products, with and without k and
  // column tails.
  for (auto [m, n, k] : std::vector<std::tuple<int, int, int>>{
           {1, 8, 16}, {1, 13, 21}, {3, 17, 40}, {2, 3, 8}, {1, 64, 512}})
    CheckLowering(Dense(m, n, k));
  IRModule mod = InferTypes(ParseModule(Dense(1, 13, 21)));
  tir::PrimFunc pf = lower::LowerPrimitive(
      WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
  EXPECT_TRUE(HasAllocate(pf->body, "dense_acc"));
}

TEST(DenseTemplate, TiledNestHasRegisterTile) {
  IRModule mod = InferTypes(ParseModule(Dense(37, 100, 53)));
  tir::PrimFunc pf = lower::LowerPrimitive(
      WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
  EXPECT_TRUE(HasAllocate(pf->body, "dense_acc"));
}

/// The extent of the outermost loop of `pf`'s body (0 when it does not start with one).
int64_t OuterExtent(const tir::PrimFunc& pf) {
  const tir::Stmt* s = &pf->body;
  while (auto* a = s->as<tir::AllocateNode>()) s = &a->body;
  if (auto* q = s->as<tir::SeqStmtNode>()) s = &q->seq.back();
  auto* f = s->as<tir::ForNode>();
  auto* e = f ? f->extent.as<tir::IntImmNode>() : nullptr;
  return e ? e->value : 0;
}

TEST(DenseTemplate, EvenRowCountsSplitInTwoBlocksOutermost) {
  // 40 rows: two blocks of 20 (a 12-row tile and an 8-row tail each), the tasks of the
  // first block first, so the first thread computes the first half of the rows; 39 rows
  // stay one block. Values on one and two threads.
  auto extent = [](int m) {
    IRModule mod = InferTypes(ParseModule(Dense(m, 37, 20)));
    return OuterExtent(lower::LowerPrimitive(
        WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k"));
  };
  EXPECT_GT(extent(39), 0);
  EXPECT_EQ(extent(40), 2 * extent(39));
  for (int m : {40, 64}) {
    std::string p =
        "%x: " + T(std::to_string(m) + ", 20") + ", %w: " + T("37, 20") + ", %b: " + T("37");
    IRModule mod = InferTypes(ParseModule(Main(p, "nn.relu(nn.bias_add(nn.dense(%x, %w), %b))")));
    auto inputs = testing_lower::RandomInputs(mod, 3);
    Value want = RunMain(mod, inputs);
    for (int threads : {1, 2}) {
      runtime::Executor native(Build(mod, "native -num_threads=" + std::to_string(threads)));
      testing_lower::ExpectClose(want.Flatten()[0], native.Run(inputs)[0],
                                 "m=" + std::to_string(m) + " threads=" + std::to_string(threads));
    }
  }
}

TEST(DenseTemplate, FusedEpilogues) {
  std::string p = "%x: " + T("37, 53") + ", %w: " + T("100, 53") + ", %b: " + T("100");
  CheckLowering(Main(p, "nn.relu(nn.bias_add(nn.dense(%x, %w), %b))"));
  CheckLowering(Main(p, "nn.gelu(nn.bias_add(nn.dense(%x, %w), %b))"));
  CheckLowering(Main(p, "nn.gelu(nn.dense(%x, %w), approximate=\"tanh\")"));
  std::string q = "%x: " + T("1, 24") + ", %w: " + T("10, 24") + ", %b: " + T("10");
  CheckLowering(Main(q, "nn.relu(nn.bias_add(nn.dense(%x, %w), %b))"));
  std::string r = "%x: " + T("5, 33") + ", %w: " + T("17, 33") + ", %y: " + T("5, 17");
  CheckLowering(Main(r, "add(nn.dense(%x, %w), %y)"));
}

TEST(DenseTemplate, MatmulTransposes) {
  CheckLowering(Main("%a: " + T("9, 20") + ", %b: " + T("20, 35"), "nn.matmul(%a, %b)"));
  CheckLowering(
      Main("%a: " + T("20, 9") + ", %b: " + T("20, 35"), "nn.matmul(%a, %b, transpose_a=True)"));
  CheckLowering(
      Main("%a: " + T("9, 20") + ", %b: " + T("35, 20"), "nn.matmul(%a, %b, transpose_b=True)"));
  CheckLowering(Main("%a: " + T("20, 9") + ", %b: " + T("35, 20"),
                     "nn.matmul(%a, %b, transpose_a=True, transpose_b=True)"));
  CheckLowering(Main("%a: " + T("2, 7, 12") + ", %b: " + T("12, 18"), "nn.matmul(%a, %b)"));
  CheckLowering(
      Main("%a: " + T("1, 12") + ", %b: " + T("18, 12"), "nn.matmul(%a, %b, transpose_b=True)"));
}

TEST(DenseTemplate, BatchMatmul) {
  CheckLowering(
      Main("%x: " + T("3, 7, 12") + ", %y: " + T("3, 19, 12"), "nn.batch_matmul(%x, %y)"));
  CheckLowering(
      Main("%x: " + T("1, 7, 12") + ", %y: " + T("3, 19, 12"), "nn.batch_matmul(%x, %y)"));
  CheckLowering(
      Main("%x: " + T("3, 7, 12") + ", %y: " + T("1, 19, 12"), "nn.batch_matmul(%x, %y)"));
  CheckLowering(Main("%x: " + T("2, 12, 7") + ", %y: " + T("2, 12, 19"),
                     "nn.batch_matmul(%x, %y, transpose_a=True, transpose_b=False)"));
  CheckLowering(Main("%x: " + T("2, 7, 12") + ", %y: " + T("1, 12, 19"),
                     "nn.batch_matmul(%x, %y, transpose_a=False, transpose_b=False)"));
  CheckLowering(Main("%x: " + T("2, 1, 12") + ", %y: " + T("2, 5, 12"), "nn.batch_matmul(%x, %y)"));
  std::string p = "%x: " + T("2, 7, 12") + ", %y: " + T("2, 19, 12") + ", %b: " + T("19");
  CheckLowering(Main(p, "nn.relu(nn.bias_add(nn.batch_matmul(%x, %y), %b, axis=-1))"));
}

TEST(DenseTemplate, InlinedOperands) {
  // Producers inlined into the operands: the tiles read them through their expressions.
  CheckLowering(
      Main("%x: " + T("9, 20") + ", %w: " + T("35, 20"), "nn.dense(nn.relu(%x), negative(%w))"));
  CheckLowering(Main("%x: " + T("1, 20") + ", %w: " + T("35, 20"), "nn.dense(abs(%x), %w)"));
  CheckLowering(
      Main("%a: " + T("9, 20") + ", %b: " + T("20, 35"), "nn.matmul(exp(%a), multiply(%b, %b))"));
  CheckLowering(Main("%x: " + T("2, 7, 12") + ", %y: " + T("2, 19, 12"),
                     "nn.batch_matmul(tanh(%x), abs(%y))"));
}

TEST(DenseTemplate, FuseOpsKeepsEpilogueInOneKernel) {
  IRModule mod = InferTypes(
      ParseModule(Main("%x: " + T("37, 53") + ", %w: " + T("100, 53") + ", %b: " + T("100"),
                       "%0 = nn.dense(%x, %w); %1 = nn.bias_add(%0, %b); nn.relu(%1)")));
  auto inputs = testing_lower::RandomInputs(mod, 5);
  Value want = RunMain(mod, inputs);
  IRModule lowered = ParsePipeline("FuseOps,LowerToTIR")(mod);
  EXPECT_TRUE(testing_lower::OnlyCallTir(lowered)) << PrintModule(lowered);
  testing_lower::ExpectSameValues(want, RunMain(lowered, inputs), "FuseOps,LowerToTIR");
  std::vector<std::string> names;
  for (const auto& [name, f] : lowered.functions()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"main", "fused_nn_dense_nn_bias_add_nn_relu"}));
  runtime::Executor native(Build(mod, "native"));
  std::vector<NDArray> got = native.Run(inputs);
  ASSERT_EQ(got.size(), 1u);
  testing_lower::ExpectClose(want.Flatten()[0], got[0], "native build");
}

TEST(DenseTemplate, AttentionHeadsAreReadThroughFusedTransposes) {
  // FuseOps puts the head split and merge into the products; each task packs its own panel
  // of a run-time operand (head size 24 here), or, past L1 (200), one loop packs them all.
  for (int d : {24, 200}) {
    auto s = [](int v) { return std::to_string(v); };
    auto head = [&](int part, const std::string& axes) {
      return "strided_slice(%x, begin=[" + s(part * 2 * d) + "], end=[" + s((part + 1) * 2 * d) +
             "], strides=[1], axes=[1]), newshape=[40, 2, " + s(d) + "]), axes=" + axes + ")";
    };
    IRModule mod = InferTypes(ParseModule(Main(
        "%x: " + T("40, " + s(6 * d)) + ", %w: " + T("37, " + s(2 * d)),
        "%0 = transpose(reshape(" + head(0, "[1, 0, 2]") + "; "
        "%1 = transpose(reshape(" + head(1, "[1, 2, 0]") + "; "
        "%2 = transpose(reshape(" + head(2, "[1, 0, 2]") + "; "
        "%3 = nn.batch_matmul(%0, %1, transpose_b=False); "
        "%4 = nn.softmax(divide(%3, 4f), axis=2); "
        "%5 = nn.batch_matmul(%4, %2, transpose_b=False); "
        "%6 = reshape(transpose(%5, axes=[1, 0, 2]), newshape=[40, " + s(2 * d) + "]); "
        "nn.dense(%6, %w)")));
    auto inputs = testing_lower::RandomInputs(mod, 7);
    Value want = RunMain(mod, inputs);
    // Sums of 400 float32 products in another order: 1e-5 of the result is their noise.
    const double tol = 1e-4;
    IRModule lowered = ParsePipeline("SimplifyExpr,FuseOps,LowerToTIR")(mod);
    testing_lower::ExpectSameValues(want, RunMain(lowered, inputs), "lowered d=" + s(d), tol);
    int kernels = 0;
    for (const auto& [name, f] : lowered.functions()) kernels += name != "main";
    // The scores' product, the softmax, the weighted sum and the dense layer.
    EXPECT_EQ(kernels, 4) << PrintModule(lowered);
    for (int threads : {1, 2}) {
      runtime::Executor native(Build(mod, "native -num_threads=" + s(threads)));
      std::vector<NDArray> got = native.Run(inputs);
      ASSERT_EQ(got.size(), 1u);
      testing_lower::ExpectClose(want.Flatten()[0], got[0], "native d=" + s(d), tol);
    }
  }
}

TEST(DenseTemplate, ConstantWeightsArePackedAtCompileTime) {
  // A dense or matmul layer's constant weights (bound into the kernel by LowerToTIR) become
  // one packed constant input wherever the blocked nest runs: no packing loop runs per
  // call, and the first tile of each panel prefetches it (when k is longer than the
  // prefetch distance). Fewer than 4 rows of a k-contiguous product read [n, k] weights as
  // they are (dot products).
  auto weights = [](int64_t rows, int64_t cols) {
    NDArray w = NDArray::Empty({rows, cols}, DType::kFloat32);
    for (int64_t i = 0; i < w.NumElements(); ++i)
      w.SetFloat(i, 0.01 * static_cast<double>(i % 97) - 0.4);
    return w;
  };
  NDArray nk = weights(70, 40), kn = weights(40, 70), short_k = weights(8, 70);
  struct Case {
    std::string label, op;
    NDArray w;
    Attrs attrs;
    std::function<std::vector<int64_t>(int64_t rows)> x_shape;
    bool packed_with_few_rows;
  };
  auto rows_by = [](int64_t k) {
    return [k](int64_t rows) { return std::vector<int64_t>{rows, k}; };
  };
  std::vector<Case> cases = {
      {"dense [n, k]", "nn.dense", nk, Attrs{}, rows_by(40), false},
      {"matmul [k, n]", "nn.matmul", kn, Attrs{}, rows_by(40), true},
      {"matmul transpose_b", "nn.matmul", nk, Attrs{{"transpose_b", true}}, rows_by(40), false},
      {"matmul transpose_a", "nn.matmul", kn, Attrs{{"transpose_a", true}},
       [](int64_t rows) { return std::vector<int64_t>{40, rows}; }, true},
      {"matmul of a batch (rows folded)", "nn.matmul", kn, Attrs{},
       [](int64_t rows) { return std::vector<int64_t>{3, rows, 40}; }, true},
      {"matmul with k below the prefetch distance", "nn.matmul", short_k, Attrs{}, rows_by(8),
       true}};
  for (const Case& c : cases)
    for (int64_t rows : {13, 2}) {
      SCOPED_TRACE(c.label + ", rows " + std::to_string(rows));
      Var x = MakeVar("x", MakeTensorType(c.x_shape(rows), DType::kFloat32));
      IRModule mod = InferTypes(IRModule::FromExpr(
          MakeFunction({x}, MakeOpCall(c.op, {x, MakeConstant(c.w)}, c.attrs))));
      auto inputs = testing_lower::RandomInputs(mod, 3);
      Value want = RunMain(mod, inputs);
      IRModule lowered = ParsePipeline("FuseOps,LowerToTIR")(mod);
      testing_lower::ExpectSameValues(want, RunMain(lowered, inputs), "FuseOps,LowerToTIR");
      const std::string name = c.op.substr(3);
      int packed = 0, pack_loops = 0, prefetches = 0;
      for (const auto& [fname, f] : lowered.functions())
        if (const auto* pf = f.as<tir::PrimFuncNode>()) {
          for (const tir::Buffer& b : pf->params) packed += b->name.find(name + "_packed") == 0;
          std::string body = PrintStmt(pf->body);
          pack_loops += body.find(name + "_pack\"") != std::string::npos;
          prefetches += body.find("prefetch %" + name + "_packed") != std::string::npos;
        }
      const bool folded_rows = c.x_shape(rows).size() == 3;  // 3 x 2 rows are 6 rows
      const int want_packed = rows >= 4 || folded_rows || c.packed_with_few_rows ? 1 : 0;
      EXPECT_EQ(packed, want_packed) << PrintModule(lowered);
      EXPECT_EQ(pack_loops, 0) << PrintModule(lowered);
      const bool nk_weights = c.op == "nn.dense" || c.attrs.Has("transpose_b");
      const int64_t k = c.w.shape()[nk_weights ? 1 : 0];
      EXPECT_EQ(prefetches, want_packed && k > 16 ? 1 : 0) << PrintModule(lowered);
      runtime::Executor native(Build(mod, "native"));
      std::vector<NDArray> got = native.Run(inputs);
      testing_lower::ExpectClose(want.Flatten()[0], got[0], "native build");
    }
}

}  // namespace
}  // namespace tessera
