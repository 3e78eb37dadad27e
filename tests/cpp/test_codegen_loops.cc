// Native codegen vs the interpreter on statements: blocks with init (matmul, row sum),
// scratch allocations, guarded padding, parallel loops on an ABI thread pool, vectorized
// loops (contiguous, broadcast, strided, tails), unrolled loops.
#include "codegen_test_util.h"
#include "tessera/backend/build.h"
#include "tessera/runtime/executable.h"

namespace tessera {
namespace {

using namespace tir;  // NOLINT
using testing::ExpectMatchesInterp;
using testing::MakeArgs;
using testing::ParsePrimFunc;
using testing::RunInterp;
using testing::RunNative;
using testing::TestCompileOptions;
using testing::TestPool;

std::string MatmulText(const char* j_kind, bool k_outer) {
  std::string block =
      "block \"matmul\"(%vi: int32 in 0 +: 16 spatial = %i, %vj: int32 in 0 +: 20 spatial = %j, "
      "%vk: int32 in 0 +: 24 reduce = %k) reads(%A[%vi, 0 +: 24], %B[0 +: 24, %vj]) "
      "writes(%C[%vi, %vj]) {\n init {\n %C[%vi, %vj] = 0f;\n }\n"
      "%C[%vi, %vj] = %C[%vi, %vj] + %A[%vi, %vk] * %B[%vk, %vj];\n }\n";
  std::string j = std::string("for %j: int32 in 0 +: 20 ") + j_kind + " {\n";
  std::string k = "for %k: int32 in 0 +: 24 {\n";
  std::string inner = k_outer ? k + j + block + "}\n}\n" : j + k + block + "}\n}\n";
  return "primfn @matmul(%A: Buffer[(16, 24), float32], %B: Buffer[(24, 20), float32]) -> "
         "(%C: Buffer[(16, 20), float32]) {\n for %i: int32 in 0 +: 16 parallel {\n" +
         inner + "}\n}\n";
}

TEST(CodegenLoops, MatmulBlockWithInitAndReduction) {
  TestPool pool;
  TsKernelEnv env = pool.Env();
  ExpectMatchesInterp(ParsePrimFunc(MatmulText("", false), "matmul"), "matmul", 1, &env);
  PrimFunc vec = ParsePrimFunc(MatmulText("vectorized", true), "matmul");
  ExpectMatchesInterp(vec, "matmul_vec", 2, &env);
  ExpectMatchesInterp(vec, "matmul_vec_serial", 3, nullptr);
  // The vectorized j loop runs on SIMD registers, init included.
  std::string c = native::GenerateC({{"m", vec}});
  EXPECT_NE(c.find("ts_vstore_f32("), std::string::npos) << c;
}

TEST(CodegenLoops, RowSumAndAddOneFromTheReadme) {
  const char* text = R"(
primfn @rowsum(%A: Buffer[(7, 33), float32]) -> (%B: Buffer[(7), float32]) {
  for %i: int32 in 0 +: 7 {
    for %k: int32 in 0 +: 33 {
      block "sum"(%vi: int32 in 0 +: 7 spatial = %i, %vk: int32 in 0 +: 33 reduce = %k) reads(%A[%vi, 0 +: 33]) writes(%B[%vi]) {
        init {
          %B[%vi] = 0f;
        }
        %B[%vi] = %B[%vi] + %A[%vi, %vk];
      }
    }
  }
}
primfn @add_one(%A: Buffer[(10), float32]) -> (%B: Buffer[(10), float32]) {
  for %i: int32 in 0 +: 10 parallel {
    block "compute"(%vi: int32 in 0 +: 10 spatial = %i) reads(%A[%vi]) writes(%B[%vi]) {
      %B[%vi] = %A[%vi] + 1f;
    }
  }
}
)";
  ExpectMatchesInterp(ParsePrimFunc(text, "rowsum"), "rowsum", 4);
  TestPool pool;
  TsKernelEnv env = pool.Env();
  ExpectMatchesInterp(ParsePrimFunc(text, "add_one"), "add_one", 5, &env);
}

PrimFunc Scratch(int64_t n) {
  Buffer a = MakeBuffer("A", {4, n}), b = MakeBuffer("B", {4, n}), t = MakeBuffer("T", {n});
  tir::Var i = tir::MakeVar("i"), j = tir::MakeVar("j"), j2 = tir::MakeVar("j");
  Stmt fill = MakeFor(j, IntImm(0), IntImm(n / 2), ForKind::kSerial,
                      MakeStore(t, MakeLoad(a, {i, j}) * FloatImm(2), {j}));
  Stmt use = MakeFor(j2, IntImm(0), IntImm(n), ForKind::kSerial,
                     MakeStore(b, MakeLoad(t, {IntImm(n - 1) - j2}) + MakeLoad(t, {j2}), {i, j2}));
  return MakePrimFunc(
      {a, b}, 1,
      MakeFor(i, IntImm(0), IntImm(4), ForKind::kSerial, MakeAllocate(t, MakeSeq({fill, use}))));
}

TEST(CodegenLoops, ScratchAllocationsOnStackAndHeapStartZeroed) {
  ExpectMatchesInterp(Scratch(16), "scratch_small", 6);
  ExpectMatchesInterp(Scratch(5000), "scratch_large", 7);
  // Zeroed by a memset, not an `= {0}` initializer (which kept GCC from holding register
  // tiles in registers).
  std::string small = native::GenerateC({{"s", Scratch(16)}});
  EXPECT_NE(small.find("__attribute__((aligned(64)));"), std::string::npos);
  EXPECT_NE(small.find("__builtin_memset("), std::string::npos);
  EXPECT_EQ(small.find("= {0}"), std::string::npos);
  EXPECT_NE(native::GenerateC({{"s", Scratch(5000)}}).find("posix_memalign"), std::string::npos);
  // An allocation without zero fill (the body writes before it reads) has no memset.
  Buffer a = MakeBuffer("A", {8}), b = MakeBuffer("B", {8});
  for (int64_t n : {int64_t{8}, int64_t{4000}}) {
    Buffer t = MakeBuffer("T", {n});
    tir::Var i = tir::MakeVar("i");
    PrimFunc f = MakePrimFunc(
        {a, b}, 1,
        MakeAllocate(t,
                     MakeSeq({MakeFor(i, IntImm(0), IntImm(8), ForKind::kSerial,
                                      MakeStore(t, MakeLoad(a, {i}) + FloatImm(1), {i})),
                              MakeFor(i, IntImm(0), IntImm(8), ForKind::kSerial,
                                      MakeStore(b, MakeLoad(t, {i}) * FloatImm(3), {i}))}),
                     /*zero_fill=*/false));
    std::string c = native::GenerateC({{"u", f}});
    EXPECT_EQ(c.substr(c.find("int32_t u(")).find("memset"), std::string::npos) << c;
    ExpectMatchesInterp(f, "uninit_" + std::to_string(n), 8);
  }
}

TEST(CodegenLoops, PaddingWithSelectAndIfThenElse) {
  Buffer a = MakeBuffer("A", {10}), b = MakeBuffer("B", {14}), c = MakeBuffer("C", {14});
  tir::Var i = tir::MakeVar("i");
  PrimExpr inside = MakeBinary(BinaryOp::kAnd, MakeBinary(BinaryOp::kGE, i, IntImm(2)),
                               MakeBinary(BinaryOp::kLT, i, IntImm(12)));
  PrimExpr shifted = MakeLoad(a, {i - IntImm(2)});
  // A Select may evaluate both sides, so its load is clamped; IfThenElse is lazy.
  PrimExpr clamped =
      MakeLoad(a, {MakeBinary(BinaryOp::kMax, MakeBinary(BinaryOp::kMin, i - IntImm(2), IntImm(9)),
                              IntImm(0))});
  Stmt body = MakeSeq(
      {MakeStore(b, MakeSelect(inside, clamped, FloatImm(0)), {i}),
       MakeIfThenElse(inside, MakeStore(c, shifted, {i}), MakeStore(c, FloatImm(-1), {i}))});
  for (ForKind kind : {ForKind::kSerial, ForKind::kVectorized}) {
    PrimFunc f = MakePrimFunc({a, b, c}, 2, MakeFor(i, IntImm(0), IntImm(14), kind, body));
    ExpectMatchesInterp(f, std::string("pad_") + ForKindName(kind), 8);
    // Float selects are branchless (data-dependent branches mispredict on real data).
    if (kind == ForKind::kSerial)
      EXPECT_NE(native::GenerateC({{"s", f}}).find("ts_sel_f32("), std::string::npos);
  }
}

TEST(CodegenLoops, ParallelLoopRunsEachIterationOnceOnThePool) {
  Buffer a = MakeBuffer("A", {103}), b = MakeBuffer("B", {103});
  tir::Var i = tir::MakeVar("i");
  // B starts at zero, so B == A + 1 only if every iteration ran exactly once.
  PrimFunc f =
      MakePrimFunc({a, b}, 1,
                   MakeFor(i, IntImm(0), IntImm(103), ForKind::kParallel,
                           MakeStore(b, MakeLoad(b, {i}) + MakeLoad(a, {i}) + FloatImm(1), {i})));
  runtime::Module mod =
      native::BuildNativeModule({{"par", f}}, TestCompileOptions(), testing::PoolCodegenOptions());
  std::vector<NDArray> args = MakeArgs(f, 9);
  std::vector<NDArray> want = RunInterp(f, args);
  TestPool pool;
  TsKernelEnv env = pool.Env();
  testing::ExpectClose(RunNative(mod, "par", args, &env)[1], want[1], "pool");
  EXPECT_EQ(pool.calls, 1);
  std::vector<int> seen(103, 0);
  for (auto [begin, end] : pool.chunks)
    for (int64_t k = begin; k < end; ++k) ++seen[static_cast<size_t>(k)];
  for (int k = 0; k < 103; ++k) EXPECT_EQ(seen[static_cast<size_t>(k)], 1) << k;
  // The outlined body tells the C compiler the loop variable's range, which the closure hides.
  std::string source = native::GenerateC({{"par", f}}, testing::PoolCodegenOptions());
  EXPECT_NE(source.find("if (i < 0 || i >= 103) __builtin_unreachable();"), std::string::npos)
      << source;
  // Without a pool (null env or null parallel_for) the loop runs serially.
  testing::ExpectClose(RunNative(mod, "par", args, nullptr)[1], want[1], "null env");
  TsKernelEnv serial{nullptr, nullptr};
  testing::ExpectClose(RunNative(mod, "par", args, &serial)[1], want[1], "null parallel_for");
}

TEST(CodegenLoops, RunsThatAskRunEachChunkLastToFirst) {
  // B[0] = i in every iteration (not independent, on purpose): the last iteration run
  // leaves its value. Forward runs leave 102, reversed ones 0; serially the whole range is
  // one chunk, on a pool each chunk is reversed in itself.
  Buffer a = MakeBuffer("A", {1}), b = MakeBuffer("B", {1});
  tir::Var i = tir::MakeVar("i");
  PrimFunc f = MakePrimFunc({a, b}, 1,
                            MakeFor(i, IntImm(0), IntImm(103), ForKind::kParallel,
                                    MakeStore(b, MakeCast(DType::kFloat32, i), {IntImm(0)})));
  native::CodegenOptions options;
  options.min_parallel_work = 1 << 20;  // the calling thread runs all of it
  runtime::Module mod = native::BuildNativeModule({{"order", f}}, TestCompileOptions(), options);
  std::vector<NDArray> args = MakeArgs(f, 1);
  for (int32_t reverse : {0, 1, 0}) {
    TsKernelEnv env{nullptr, nullptr, reverse};
    EXPECT_EQ(RunNative(mod, "order", args, &env)[1].data_as<float>()[0], reverse ? 0.0f : 102.0f);
  }
}

TEST(CodegenLoops, AnExecutorAsksForReverseOrderEveryOtherRun) {
  // The same dependent loop in a program: runs of one executor state alternate, starting
  // reversed.
  IRModule mod = ParseModule(R"(
def @main(%x: Tensor[(8), float32]) {
  call_tir(@last, (%x,), Tensor[(1), float32])
}
primfn @last(%A: Buffer[(8), float32], global_symbol="last_k") -> (%B: Buffer[(1), float32]) {
  for %i: int32 in 0 +: 8 parallel {
    %B[0] = %A[%i];
  }
}
)");
  tir::PrimFunc f(mod.Lookup("last").as<tir::PrimFuncNode>());
  runtime::Executor ex(CreateExecutable(
      mod, native::BuildNativeModule({{"last_k", f}}, TestCompileOptions(), {})));
  NDArray x = NDArray::FromFloats({8}, {0, 1, 2, 3, 4, 5, 6, 7});
  for (float want : {0.0f, 7.0f, 0.0f, 7.0f})
    EXPECT_EQ(ex.Run({{"x", x}})[0].data_as<float>()[0], want);
}

TEST(CodegenLoops, ParallelLoopsWithLittleWorkRunOnTheCallingThread) {
  // The static work counts element stores through every loop of constant extent: 103 x 8
  // stores here, against a threshold just above and just below it.
  Buffer a = MakeBuffer("A", {103, 8}), b = MakeBuffer("B", {103, 8});
  tir::Var i = tir::MakeVar("i"), j = tir::MakeVar("j");
  PrimFunc f = MakePrimFunc(
      {a, b}, 1,
      MakeFor(i, IntImm(0), IntImm(103), ForKind::kParallel,
              MakeFor(j, IntImm(0), IntImm(8), ForKind::kSerial,
                      MakeStore(b, MakeLoad(a, {i, j}) * FloatImm(2), {i, j}))));
  for (int64_t threshold : {int64_t{103 * 8 + 1}, int64_t{103 * 8}}) {
    SCOPED_TRACE(threshold);
    native::CodegenOptions options;
    options.min_parallel_work = threshold;
    bool parallel = threshold <= 103 * 8;
    EXPECT_EQ(native::GenerateC({{"par", f}}, options).find("env->parallel_for(") !=
                  std::string::npos,
              parallel);
    runtime::Module mod = native::BuildNativeModule({{"par", f}}, TestCompileOptions(), options);
    std::vector<NDArray> args = MakeArgs(f, 4);
    TestPool pool;
    TsKernelEnv env = pool.Env();
    testing::ExpectClose(RunNative(mod, "par", args, &env)[1], RunInterp(f, args)[1], "threshold");
    EXPECT_EQ(pool.calls, parallel ? 1 : 0);
  }
  // The default keeps a kernel of a few microseconds on one thread.
  EXPECT_EQ(native::GenerateC({{"par", f}}).find("env->parallel_for("), std::string::npos);
  // A branch counts its larger side (103 x max(1, 8)); a loop whose extent is not a
  // constant counts as large, so it always uses the pool.
  PrimFunc branchy = MakePrimFunc(
      {a, b}, 1,
      MakeFor(i, IntImm(0), IntImm(103), ForKind::kParallel,
              MakeIfThenElse(MakeBinary(BinaryOp::kLT, i, IntImm(50)),
                             MakeStore(b, FloatImm(1), {i, IntImm(0)}),
                             MakeFor(j, IntImm(0), IntImm(8), ForKind::kSerial,
                                     MakeStore(b, MakeLoad(a, {i, j}), {i, j})))));
  tir::Var o = tir::MakeVar("o");
  PrimFunc ragged = MakePrimFunc(
      {a, b}, 1,
      MakeFor(o, IntImm(0), IntImm(2), ForKind::kSerial,
              MakeFor(i, IntImm(0), o + IntImm(1), ForKind::kParallel,
                      MakeStore(b, MakeLoad(a, {i, o}), {i, o}))));
  for (int64_t threshold : {int64_t{103 * 8}, int64_t{103 * 8 + 1}, int64_t{1} << 40}) {
    native::CodegenOptions options;
    options.min_parallel_work = threshold;
    EXPECT_EQ(native::GenerateC({{"b", branchy}}, options).find("env->parallel_for(") !=
                  std::string::npos,
              threshold <= 103 * 8)
        << threshold;
    EXPECT_NE(native::GenerateC({{"r", ragged}}, options).find("env->parallel_for("),
              std::string::npos)
        << threshold;
  }
  native::CodegenOptions negative;
  negative.min_parallel_work = -1;
  EXPECT_THROW(native::GenerateC({{"par", f}}, negative), Error);
}

TEST(CodegenLoops, ParallelBodiesCaptureOuterVariablesAndScratch) {
  Buffer a = MakeBuffer("A", {3, 40}), b = MakeBuffer("B", {3, 40}), t = MakeBuffer("T", {40});
  tir::Var o = tir::MakeVar("o"), i = tir::MakeVar("i"), j = tir::MakeVar("j"),
           k = tir::MakeVar("k");
  PrimExpr scale = MakeCast(DType::kFloat32, o + IntImm(1));
  // The nested parallel loop inside a parallel body runs serially.
  Stmt fill = MakeFor(i, IntImm(0), IntImm(4), ForKind::kParallel,
                      MakeFor(j, IntImm(0), IntImm(10), ForKind::kParallel,
                              MakeStore(t, MakeLoad(a, {o, i * 10 + j}) * scale, {i * 10 + j})));
  Stmt use = MakeFor(k, IntImm(0), IntImm(40), ForKind::kParallel,
                     MakeStore(b, MakeLoad(t, {k}) - FloatImm(0.5), {o, k}));
  PrimFunc f = MakePrimFunc(
      {a, b}, 1,
      MakeFor(o, IntImm(0), IntImm(3), ForKind::kSerial, MakeAllocate(t, MakeSeq({fill, use}))));
  TestPool pool;
  TsKernelEnv env = pool.Env();
  ExpectMatchesInterp(f, "capture", 10, &env);
  EXPECT_EQ(pool.calls, 6);  // two outlined loops per outer iteration; inner one serial
}

/// C[i] = f(A[i], B[i], S) over `n` elements with a vectorized loop.
PrimFunc VectorKernel(int64_t n, DType d, bool strided) {
  Buffer a = MakeBuffer("A", {2 * n}, d), b = MakeBuffer("B", {n}, d), s = MakeBuffer("S", {2}, d);
  Buffer c = MakeBuffer("C", {n}, d), e = MakeBuffer("E", {n}, d);
  tir::Var i = tir::MakeVar("i");
  PrimExpr x = MakeLoad(a, {strided ? i * 2 : PrimExpr(i)}), y = MakeLoad(b, {i});
  PrimExpr s0 = MakeLoad(s, {IntImm(0)}), s1 = MakeLoad(s, {IntImm(1)});
  PrimExpr v = MakeBinary(BinaryOp::kMax, x * s0 + y, MakeIntrinsic("abs", {y}) - s1);
  PrimExpr w = MakeSelect(
      MakeBinary(BinaryOp::kOr, MakeBinary(BinaryOp::kLT, x, y),
                 MakeNot(MakeBinary(BinaryOp::kGE, y, s1))),
      MakeBinary(BinaryOp::kDiv, MakeBinary(BinaryOp::kMin, x, s1), s0 + FloatImm(4.0, d)),
      MakeCast(d, FloatImm(0.25, d)));
  Stmt body = MakeSeq({MakeStore(c, v, {i}), MakeStore(e, MakeLoad(c, {i}) * w - x, {i})});
  return MakePrimFunc({a, b, s, c, e}, 2,
                      MakeFor(i, IntImm(0), IntImm(n), ForKind::kVectorized, body));
}

TEST(CodegenLoops, VectorizedLoopsWithAndWithoutTails) {
  int lanes32 = native::HostVectorBytes() / 4;
  for (DType d : {DType::kFloat32, DType::kFloat64}) {
    for (int64_t n : {int64_t{3}, int64_t{16}, int64_t{19}, int64_t{64}, int64_t{lanes32 + 1}}) {
      std::string name = std::string("vec_") + DTypeName(d) + "_" + std::to_string(n);
      ExpectMatchesInterp(VectorKernel(n, d, false), name, 11);
      ExpectMatchesInterp(VectorKernel(n, d, true), name + "_strided", 12);
    }
  }
  // Other dtypes take the plain-loop path the C compiler vectorizes itself.
  ExpectMatchesInterp(VectorKernel(21, DType::kFloat16, false), "vec_f16", 16, nullptr, 1e-3);
  Buffer a = MakeBuffer("A", {45}, DType::kInt32), b = MakeBuffer("B", {45}, DType::kInt32);
  tir::Var i = tir::MakeVar("i");
  PrimExpr x = MakeLoad(a, {i});
  ExpectMatchesInterp(MakePrimFunc({a, b}, 1,
                                   MakeFor(i, IntImm(0), IntImm(45), ForKind::kVectorized,
                                           MakeStore(b, x * x + FloorMod(x, IntImm(7)), {i}))),
                      "vec_i32", 17);
  std::string sfx = "_f32(";
  std::string contiguous = native::GenerateC({{"v", VectorKernel(19, DType::kFloat32, false)}});
  EXPECT_NE(contiguous.find("ts_vload" + sfx), std::string::npos) << contiguous;
  EXPECT_NE(contiguous.find("ts_vbcast" + sfx), std::string::npos) << contiguous;
  EXPECT_NE(contiguous.find(std::to_string(lanes32) + " lanes of float32"), std::string::npos);
  // A strided load is not contiguous: a plain loop the C compiler may vectorize itself.
  std::string strided = native::GenerateC({{"v", VectorKernel(19, DType::kFloat32, true)}});
  EXPECT_EQ(strided.find("ts_vload" + sfx + "&"), std::string::npos) << strided;
  EXPECT_NE(strided.find("#pragma GCC ivdep"), std::string::npos) << strided;
  // The width follows the options (AVX-512 hosts: 16 floats).
  std::string wide = native::GenerateC({{"v", VectorKernel(19, DType::kFloat32, false)}}, {64});
  EXPECT_NE(wide.find("16 lanes of float32"), std::string::npos);
  // The 3 elements past the last whole vector: one masked step on AVX-512, scalar on AVX2.
  std::string body = wide.substr(wide.find("int32_t v("));
  EXPECT_NE(body.find("ts_vloadm_f32(&"), std::string::npos) << body;
  EXPECT_NE(body.find("ts_vstorem_f32(&"), std::string::npos) << body;
  std::string avx2 = native::GenerateC({{"v", VectorKernel(19, DType::kFloat32, false)}}, {32});
  body = avx2.substr(avx2.find("int32_t v("));
  EXPECT_EQ(body.find("ts_vloadm_f32"), std::string::npos) << body;
  EXPECT_NE(body.find("8 lanes of float32"), std::string::npos) << body;
}

TEST(CodegenLoops, StreamingLoopsOverLargeBuffersPrefetchAhead) {
  // A[i] * 2 + B[i] over 2^18 floats (1 MiB per buffer): every contiguous access prefetches
  // 4 KiB ahead, the store's line for writing; 2^10 floats stay in cache and do not.
  auto stream = [](int64_t n) {
    Buffer a = MakeBuffer("A", {n}), b = MakeBuffer("B", {n}), c = MakeBuffer("C", {n});
    tir::Var i = tir::MakeVar("i");
    return MakePrimFunc({a, b, c}, 2,
                        MakeFor(i, IntImm(0), IntImm(n), ForKind::kVectorized,
                                MakeStore(c, MakeLoad(a, {i}) * FloatImm(2) + MakeLoad(b, {i}),
                                          {i})));
  };
  std::string big = native::GenerateC({{"big", stream(int64_t{1} << 18)}});
  for (const char* want :
       {"__builtin_prefetch((const char*)&A[", "__builtin_prefetch((const char*)&B[",
        "__builtin_prefetch((const char*)&C["}) {
    EXPECT_NE(big.find(want), std::string::npos) << want << "\n" << big;
  }
  EXPECT_NE(big.find(" + 4096, 1, 3);"), std::string::npos) << big;
  EXPECT_EQ(native::GenerateC({{"small", stream(1024)}}).find("__builtin_prefetch"),
            std::string::npos);
  ExpectMatchesInterp(stream(int64_t{1} << 18), "big", 21);
  // An accumulation (C read and written in the loop) keeps its load slots for its operands.
  int64_t n = int64_t{1} << 18;
  Buffer a = MakeBuffer("A", {n}), c = MakeBuffer("C", {n});
  tir::Var i = tir::MakeVar("i");
  PrimFunc acc = MakePrimFunc(
      {a, c}, 1,
      MakeFor(i, IntImm(0), IntImm(n), ForKind::kVectorized,
              MakeStore(c, MakeLoad(c, {i}) + MakeLoad(a, {i}), {i})));
  std::string code = native::GenerateC({{"acc", acc}});
  EXPECT_NE(code.find("lanes of float32"), std::string::npos) << code;
  EXPECT_EQ(code.find("__builtin_prefetch"), std::string::npos) << code;
  // Parallel blocks of 16 floats: the outer loop carries the stream, so a reversed run
  // (TsKernelEnv::reverse) prefetches behind, and the values stay the same.
  tir::Var o = tir::MakeVar("o"), v = tir::MakeVar("v");
  Buffer x = MakeBuffer("X", {n}), y = MakeBuffer("Y", {n});
  PrimFunc blocks = MakePrimFunc(
      {x, y}, 1,
      MakeFor(o, IntImm(0), IntImm(n / 16), ForKind::kParallel,
              MakeFor(v, IntImm(0), IntImm(16), ForKind::kVectorized,
                      MakeStore(y, MakeLoad(x, {o * 16 + v}) * FloatImm(3), {o * 16 + v}))));
  std::string par = native::GenerateC({{"blocks", blocks}});
  EXPECT_NE(par.find(" + (ts_rev ? -4096 : 4096), 0, 3);"), std::string::npos) << par;
  runtime::Module mod = native::BuildNativeModule({{"blocks", blocks}}, TestCompileOptions(), {});
  std::vector<NDArray> args = MakeArgs(blocks, 5);
  std::vector<NDArray> want = RunInterp(blocks, args);
  for (int32_t reverse : {0, 1}) {
    TsKernelEnv env{nullptr, nullptr, reverse};
    testing::ExpectClose(RunNative(mod, "blocks", args, &env)[1], want[1], "reverse");
  }
}

TEST(CodegenLoops, VectorizedLoopWithAnInvariantBranchAndElse) {
  // for i in [0, 37) vectorized: if (C[3] > 0) B[i] = A[i] * 2 else B[i] = A[i] + C[i]
  // (whole vectors and the tail both carry the branch; it once broke the C's nesting).
  Buffer a = MakeBuffer("A", {37}), b = MakeBuffer("B", {37}), c = MakeBuffer("C", {37});
  tir::Var i = tir::MakeVar("i");
  for (int64_t n : {int64_t{37}, int64_t{32}}) {
    PrimFunc f = MakePrimFunc(
        {a, c, b}, 1,
        MakeFor(i, IntImm(0), IntImm(n), ForKind::kVectorized,
                MakeIfThenElse(MakeBinary(BinaryOp::kGT, MakeLoad(c, {IntImm(3)}), FloatImm(0)),
                               MakeStore(b, MakeLoad(a, {i}) * FloatImm(2), {i}),
                               MakeStore(b, MakeLoad(a, {i}) + MakeLoad(c, {i}), {i}))));
    std::string code = native::GenerateC({{"br", f}});
    EXPECT_NE(code.find("lanes of float32"), std::string::npos) << code;
    for (unsigned seed : {17u, 18u, 19u})
      ExpectMatchesInterp(f, "branch_" + std::to_string(n), seed);
  }
}

TEST(CodegenLoops, VectorizedLoopWithCarriedDependenceStaysSerial) {
  Buffer a = MakeBuffer("A", {20}), b = MakeBuffer("B", {21});
  tir::Var i = tir::MakeVar("i");
  // B[i + 1] depends on B[i]: neither SIMD nor ivdep is allowed.
  PrimFunc f = MakePrimFunc({a, b}, 1,
                            MakeFor(i, IntImm(0), IntImm(20), ForKind::kVectorized,
                                    MakeStore(b, MakeLoad(b, {i}) + MakeLoad(a, {i}), {i + 1})));
  std::string c = native::GenerateC({{"dep", f}});
  EXPECT_EQ(c.find("ivdep"), std::string::npos) << c;
  EXPECT_EQ(c.find("lanes of"), std::string::npos) << c;
  ExpectMatchesInterp(f, "dep", 13);
}

TEST(CodegenLoops, VectorizedLoopStoringOneBufferAtDistinctConstantRows) {
  // B[0, i] and B[1, i] never meet whatever the iterations (a Winograd transform's stores
  // of one vector per frequency): SIMD. B[0, i] and B[0, i + 1] do: serial.
  Buffer a = MakeBuffer("A", {21}), b = MakeBuffer("B", {2, 21});
  tir::Var i = tir::MakeVar("i");
  PrimExpr x = MakeLoad(a, {i});
  PrimFunc rows = MakePrimFunc(
      {a, b}, 1,
      MakeFor(i, IntImm(0), IntImm(20), ForKind::kVectorized,
              MakeSeq({MakeStore(b, x + FloatImm(1.0), {IntImm(0), i}),
                       MakeStore(b, x * FloatImm(2.0) + MakeLoad(b, {IntImm(0), i}),
                                 {IntImm(1), i})})));
  std::string c = native::GenerateC({{"rows", rows}});
  EXPECT_NE(c.find("lanes of float32"), std::string::npos) << c;
  ExpectMatchesInterp(rows, "rows", 14);
  PrimFunc shifted = MakePrimFunc(
      {a, b}, 1,
      MakeFor(i, IntImm(0), IntImm(20), ForKind::kVectorized,
              MakeSeq({MakeStore(b, x, {IntImm(0), i}),
                       MakeStore(b, MakeLoad(b, {IntImm(0), i}) + x, {IntImm(0), i + 1})})));
  c = native::GenerateC({{"shifted", shifted}});
  EXPECT_EQ(c.find("lanes of"), std::string::npos) << c;
  ExpectMatchesInterp(shifted, "shifted", 15);
}

TEST(CodegenLoops, PrefetchesAreHintsInsideParallelLoopsToo) {
  // B[i, j] = A[i, j] * 2 with a prefetch of the next row, past the end on the last one:
  // the interpreter skips it, the C has __builtin_prefetch, and the parallel body captures
  // the buffer it names.
  Buffer a = MakeBuffer("A", {6, 20}), b = MakeBuffer("B", {6, 20});
  tir::Var i = tir::MakeVar("i"), j = tir::MakeVar("j");
  for (ForKind kind : {ForKind::kSerial, ForKind::kParallel}) {
    PrimFunc f = MakePrimFunc(
        {a, b}, 1,
        MakeFor(i, IntImm(0), IntImm(6), kind,
                MakeSeq({MakePrefetch(a, {i + 1, IntImm(0)}),
                         MakeFor(j, IntImm(0), IntImm(20), ForKind::kSerial,
                                 MakeStore(b, MakeLoad(a, {i, j}) * FloatImm(2.0), {i, j}))})));
    std::string c = native::GenerateC({{"pf", f}});
    EXPECT_NE(c.find("__builtin_prefetch(&A["), std::string::npos) << c;
    ExpectMatchesInterp(f, std::string("prefetch_") + ForKindName(kind), 16);
  }
}

TEST(CodegenLoops, UnrolledLoops) {
  Buffer a = MakeBuffer("A", {6, 4}), b = MakeBuffer("B", {6});
  tir::Var i = tir::MakeVar("i"), k = tir::MakeVar("k");
  PrimFunc f = MakePrimFunc(
      {a, b}, 1,
      MakeFor(i, IntImm(0), IntImm(6), ForKind::kSerial,
              MakeFor(k, IntImm(0), IntImm(4), ForKind::kUnrolled,
                      MakeStore(b, MakeLoad(b, {i}) + MakeLoad(a, {i, k}) * MakeLoad(a, {i, k}),
                                {i}))));
  EXPECT_NE(native::GenerateC({{"u", f}}).find("#pragma GCC unroll 4"), std::string::npos);
  ExpectMatchesInterp(f, "unrolled", 14);
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

using namespace tir;  // NOLINT

TEST(CodegenLoops, LoopBoundsFromOuterVariablesAndAwkwardNames) {
  // Names that are C keywords, ABI names or not identifiers at all are renamed.
  Buffer a = MakeBuffer("float", {8, 8}), b = MakeBuffer("env", {8, 8});
  Buffer c = MakeBuffer("ts_status", {8}, DType::kInt64), d = MakeBuffer("A-B", {8, 8});
  tir::Var i = tir::MakeVar("for"), j = tir::MakeVar("buffers", DType::kInt64);
  tir::Var k = tir::MakeVar("int32_t");
  // A triangular nest: the inner loop's bounds depend on the outer variable.
  PrimExpr jj = MakeCast(DType::kInt32, j);
  Stmt tri = MakeFor(j, MakeCast(DType::kInt64, i), MakeCast(DType::kInt64, IntImm(8) - i),
                     ForKind::kSerial,
                     MakeSeq({MakeStore(b, MakeLoad(a, {i, jj}) * FloatImm(3), {i, jj}),
                              MakeStore(c, MakeLoad(c, {i}) + j, {i})}));
  Stmt rev = MakeFor(k, IntImm(0), IntImm(8), ForKind::kVectorized,
                     MakeStore(d, MakeLoad(a, {IntImm(7) - i, k}), {i, k}));
  PrimFunc f = MakePrimFunc(
      {a, b, c, d}, 3, MakeFor(i, IntImm(0), IntImm(8), ForKind::kSerial, MakeSeq({tri, rev})));
  testing::ExpectMatchesInterp(f, "names", 15);
}

/// Occurrences of `needle` in `text`.
size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(CodegenLoops, SharedSubexpressionsAreComputedOnce) {
  // relu(exp(x)) * exp(x) + exp(x): the lowering shares the exp node between its uses.
  Buffer a = MakeBuffer("A", {37}), b = MakeBuffer("B", {37});
  tir::Var i = tir::MakeVar("i");
  PrimExpr e = MakeIntrinsic("exp", {MakeLoad(a, {i})});
  PrimExpr relu = MakeSelect(MakeBinary(BinaryOp::kLT, e, FloatImm(0)), FloatImm(0), e);
  for (ForKind kind : {ForKind::kSerial, ForKind::kVectorized}) {
    PrimFunc f = MakePrimFunc({a, b}, 1,
                              MakeFor(i, IntImm(0), IntImm(37), kind, MakeStore(b, relu * e + e, {i})));
    ExpectMatchesInterp(f, std::string("cse_") + ForKindName(kind), 3);
    std::string c = native::GenerateC({{"k", f}});
    std::string body = c.substr(c.find("int32_t k("));
    // One exp per iteration: in the scalar loop, or in the vector loop and its tail (a
    // masked vector step on AVX-512, else scalar).
    const bool vec = kind == ForKind::kVectorized, masked = native::HostVectorBytes() == 64;
    EXPECT_EQ(Count(body, "expf("), vec && masked ? 0u : 1u) << body;
    EXPECT_EQ(Count(body, "ts_vexp_f32("), vec ? (masked ? 2u : 1u) : 0u) << body;
    EXPECT_NE(body.find("ts_cse"), std::string::npos) << body;
  }
}

TEST(CodegenLoops, SharedSubexpressionsNestedInSharedOnesAreBoundFirst) {
  // p = e * e is shared and reads the shared e: e must be bound before p, or p's binding
  // computes e again (one exp per iteration either way if the order is right).
  Buffer a = MakeBuffer("A", {8}), b = MakeBuffer("B", {8});
  tir::Var i = tir::MakeVar("i");
  PrimExpr e = MakeIntrinsic("exp", {MakeLoad(a, {i})});
  PrimExpr p = e * e;
  PrimFunc f = MakePrimFunc({a, b}, 1, MakeFor(i, IntImm(0), IntImm(8), ForKind::kSerial,
                                               MakeStore(b, p + p * e, {i})));
  ExpectMatchesInterp(f, "cse_nested", 3);
  std::string c = native::GenerateC({{"k", f}});
  EXPECT_EQ(Count(c.substr(c.find("int32_t k(")), "expf("), 1u) << c;
}

TEST(CodegenLoops, SharedSubexpressionsStayInsideLazyBranches) {
  // An int select is C's lazy `?:`: a division used twice, only on the side taken when
  // the divisor is not zero, must not be hoisted in front of the test.
  Buffer a = MakeBuffer("A", {9}, DType::kInt32), b = MakeBuffer("B", {9}, DType::kInt32);
  tir::Var i = tir::MakeVar("i");
  PrimExpr x = MakeLoad(a, {i});
  PrimExpr q = MakeBinary(BinaryOp::kDiv, IntImm(100, DType::kInt32), x);
  PrimExpr v = MakeSelect(MakeBinary(BinaryOp::kNE, x, IntImm(0, DType::kInt32)), q * q + q,
                          IntImm(0, DType::kInt32));
  PrimFunc f = MakePrimFunc({a, b}, 1, MakeFor(i, IntImm(0), IntImm(9), ForKind::kSerial,
                                               MakeStore(b, v, {i})));
  // (Not run: the interpreter's Select may evaluate both sides, dividing by zero.)
  std::string c = native::GenerateC({{"k", f}});
  std::string body = c.substr(c.find("int32_t k("));
  // The load, which the test evaluates anyway, is bound once; the division is not hoisted.
  EXPECT_NE(body.find("ts_cse"), std::string::npos) << body;
  for (size_t at = body.find("ts_cse"); at != std::string::npos; at = body.find("ts_cse", at + 1)) {
    size_t line_start = body.rfind('\n', at) + 1;
    std::string line = body.substr(line_start, body.find('\n', at) - line_start);
    if (line.find("const ") != std::string::npos)
      EXPECT_EQ(line.find("100"), std::string::npos) << body;
  }
}

}  // namespace
}  // namespace tessera
