// Shared helpers for the type-inference and interpreter tests: error matching and
// hand-written PrimFuncs.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "test_util.h"
#include "tessera/ir/tir.h"
#include "tessera/support/error.h"

namespace tessera::testing_interp {

using ::tessera::testing::ExpectError;

/// C[M, N] = init + A[M, K] @ B[K, N] as one Block with a reduce iter var and an init
/// statement (float32).
inline tir::PrimFunc MatmulPrimFunc(int64_t m, int64_t k, int64_t n, double init = 0.0) {
  using tir::Buffer, tir::FloatImm, tir::ForKind, tir::IntImm, tir::IterKind, tir::IterVar;
  using tir::MakeBlock, tir::MakeBuffer, tir::MakeFor, tir::MakeLoad, tir::MakeStore, tir::Stmt;
  using tir::Var;
  Buffer a = MakeBuffer("A", {m, k}), b = MakeBuffer("B", {k, n}), c = MakeBuffer("C", {m, n});
  Var i = tir::MakeVar("i"), j = tir::MakeVar("j"), r = tir::MakeVar("k");
  Var vi = tir::MakeVar("vi"), vj = tir::MakeVar("vj"), vk = tir::MakeVar("vk");
  std::vector<IterVar> iters = {
      {vi, {IntImm(0), IntImm(m)}, IterKind::kSpatial, i},
      {vj, {IntImm(0), IntImm(n)}, IterKind::kSpatial, j},
      {vk, {IntImm(0), IntImm(k)}, IterKind::kReduce, r},
  };
  Stmt init_stmt = MakeStore(c, FloatImm(init), {vi, vj});
  Stmt body =
      MakeStore(c, MakeLoad(c, {vi, vj}) + MakeLoad(a, {vi, vk}) * MakeLoad(b, {vk, vj}), {vi, vj});
  Stmt block = MakeBlock("C", iters, {{a, {}}, {b, {}}}, {{c, {}}}, init_stmt, body);
  Stmt loops = MakeFor(i, IntImm(0), IntImm(m), ForKind::kParallel,
                       MakeFor(j, IntImm(0), IntImm(n), ForKind::kSerial,
                               MakeFor(r, IntImm(0), IntImm(k), ForKind::kUnrolled, block)));
  return tir::MakePrimFunc({a, b, c}, 1, loops);
}

}  // namespace tessera::testing_interp
