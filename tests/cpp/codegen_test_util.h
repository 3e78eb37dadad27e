// Helpers for the native codegen tests: random data, an ABI thread pool, and running a
// PrimFunc both natively and on the interpreter.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tessera/backend/interp/interpreter.h"
#include "tessera/backend/native/codegen_c.h"
#include "tessera/backend/native/compiler.h"
#include "tessera/backend/native/native_module.h"
#include "tessera/ir/parser.h"
#include "tessera/runtime/kernel_abi.h"
#include "tessera/runtime/ndarray.h"
#include "tessera/support/error.h"

namespace tessera::testing {

/// The PrimFunc `name` of a module in the text format.
inline tir::PrimFunc ParsePrimFunc(const std::string& text, const std::string& name) {
  IRModule m = ParseModule(text);
  return tir::PrimFunc(m.Lookup(name).as<tir::PrimFuncNode>());
}

/// Options putting the object cache in one directory shared by the test runs.
inline native::CompileOptions TestCompileOptions() {
  native::CompileOptions o;
  const char* tmp = std::getenv("TMPDIR");
  o.cache_dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/tessera-test-objcache";
  return o;
}

/// Codegen options under which every parallel loop, however small, uses the pool (the
/// tests' loops are small).
inline native::CodegenOptions PoolCodegenOptions() {
  native::CodegenOptions o;
  o.min_parallel_work = 0;
  return o;
}

/// Random values of `dtype` with awkward cases mixed in (negatives, limits, NaN, inf).
inline NDArray RandomArray(const std::vector<int64_t>& shape, DType dtype, uint32_t seed,
                           bool nonzero = false, double scale = 4.0) {
  NDArray a = NDArray::Zeros(shape, dtype);
  std::mt19937 rng(seed);
  int64_t n = a.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    if (IsFloat(dtype)) {
      double v = std::uniform_real_distribution<double>(-scale, scale)(rng);
      if (nonzero && v == 0) v = 1;
      a.SetFloat(i, v);
    } else if (dtype == DType::kBool) {
      a.SetInt(i, rng() & 1);
    } else {
      int64_t lo = dtype == DType::kUInt8 ? 0 : dtype == DType::kInt8 ? -128 : -1000;
      int64_t hi = dtype == DType::kUInt8 ? 255 : dtype == DType::kInt8 ? 127 : 1000;
      int64_t v = std::uniform_int_distribution<int64_t>(lo, hi)(rng);
      if (i % 7 == 3 && dtype == DType::kInt32) v = (i % 2) ? INT32_MIN : INT32_MAX;
      if (i % 7 == 3 && dtype == DType::kInt64) v = (i % 2) ? INT64_MIN : INT64_MAX;
      if (nonzero && v == 0) v = -1;
      a.SetInt(i, v);
    }
  }
  return a;
}

/// An ABI thread pool: splits [0, n) into one chunk per thread (the caller runs the
/// first) and records every chunk it ran.
struct TestPool {
  int threads = 4;
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  int calls = 0;

  static void ParallelFor(void* pool, int64_t n, TsParallelBody body, void* closure) {
    auto* p = static_cast<TestPool*>(pool);
    int64_t chunk = (n + p->threads - 1) / p->threads;
    std::vector<std::thread> workers;
    {
      std::lock_guard<std::mutex> lock(p->mutex);
      ++p->calls;
    }
    for (int64_t begin = chunk; begin < n; begin += chunk) {
      int64_t end = std::min(n, begin + chunk);
      {
        std::lock_guard<std::mutex> lock(p->mutex);
        p->chunks.emplace_back(begin, end);
      }
      workers.emplace_back([=] { body(closure, begin, end); });
    }
    {
      std::lock_guard<std::mutex> lock(p->mutex);
      p->chunks.emplace_back(0, std::min(n, chunk));
    }
    body(closure, 0, std::min(n, chunk));
    for (auto& w : workers) w.join();
  }
  TsKernelEnv Env() { return TsKernelEnv{this, &TestPool::ParallelFor}; }
};

/// Inputs (random unless given) and zeroed outputs for `f`.
inline std::vector<NDArray> MakeArgs(const tir::PrimFunc& f, uint32_t seed,
                                     std::vector<NDArray> inputs = {}, bool nonzero = false) {
  size_t num_inputs = f->params.size() - static_cast<size_t>(f->num_outputs);
  std::vector<NDArray> args;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const auto& b = f->params[i];
    if (i < inputs.size())
      args.push_back(inputs[i]);
    else if (i < num_inputs)
      args.push_back(RandomArray(b->shape, b->dtype, seed + static_cast<uint32_t>(i), nonzero));
    else
      args.push_back(NDArray::Zeros(b->shape, b->dtype));
  }
  return args;
}

/// `kernels` generated with `options` and compiled by the system C compiler with `isa`
/// (e.g. "-mavx2 -mfma") instead of -march=native: code for a lesser CPU, run on this one.
inline runtime::Module BuildForIsa(const std::vector<std::pair<std::string, tir::PrimFunc>>& kernels,
                                   const native::CodegenOptions& options, const std::string& isa) {
  std::string source = native::GenerateC(kernels, options);
  const char* tmp = std::getenv("TMPDIR");
  std::string base = std::string(tmp && *tmp ? tmp : "/tmp") + "/tessera_isa_" +
                     std::to_string(getpid()) + "_" +
                     std::to_string(std::hash<std::string>()(source + isa));
  std::ofstream(base + ".c") << source;
  std::string cc;
  for (const std::string& w : native::CompilerCommand()) cc += w + " ";
  std::string cmd = cc + "-O2 -Wno-psabi " + isa + " -fPIC -shared -std=gnu11 -fno-math-errno -o " + base +
                    ".so " + base + ".c -lm 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    std::remove((base + ".c").c_str());
    throw Error(ErrorKind::kInternal, "the C compiler failed: " + cmd);
  }
  std::ifstream in(base + ".so", std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::remove((base + ".c").c_str());
  std::remove((base + ".so").c_str());
  std::vector<std::string> symbols;
  for (const auto& k : kernels) symbols.push_back(k.first);
  std::vector<std::string> cnames = native::CSymbolNames(symbols);
  std::vector<std::pair<std::string, std::string>> table;
  for (size_t i = 0; i < symbols.size(); ++i) table.emplace_back(symbols[i], cnames[i]);
  return std::make_shared<runtime::NativeModuleNode>(bytes.str(), std::move(table), source);
}

/// Runs a native kernel on copies of `args`; returns the buffers afterwards.
inline std::vector<NDArray> RunNative(const runtime::Module& mod, const std::string& symbol,
                                      const std::vector<NDArray>& args,
                                      const TsKernelEnv* env = nullptr) {
  std::vector<NDArray> copy;
  std::vector<void*> ptrs;
  for (const NDArray& a : args) {
    copy.push_back(a.Copy());
    ptrs.push_back(copy.back().data());
  }
  runtime::FindKernel(mod, symbol)(ptrs.data(), env);
  return copy;
}

/// Runs the interpreter on copies of `args`.
inline std::vector<NDArray> RunInterp(const tir::PrimFunc& f, const std::vector<NDArray>& args) {
  std::vector<NDArray> copy;
  for (const NDArray& a : args) copy.push_back(a.Copy());
  RunPrimFunc(f, copy);
  return copy;
}

/// Outputs equal: integers bit-exact, floats within `rel` (NaN equals NaN).
inline void ExpectClose(const NDArray& got, const NDArray& want, const std::string& what,
                        double rel = 1e-6) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  int64_t n = want.NumElements();
  int bad = 0;
  for (int64_t i = 0; i < n && bad < 5; ++i) {
    if (!IsFloat(want.dtype())) {
      if (got.GetInt(i) != want.GetInt(i)) {
        ++bad;
        ADD_FAILURE() << what << " [" << i << "]: native " << got.GetInt(i) << " vs interpreter "
                      << want.GetInt(i);
      }
      continue;
    }
    double g = got.GetFloat(i), w = want.GetFloat(i);
    if (std::isnan(g) && std::isnan(w)) continue;
    if (g == w) continue;
    if (std::abs(g - w) <= rel * std::max(std::abs(g), std::abs(w))) continue;
    ++bad;
    ADD_FAILURE() << what << " [" << i << "]: native " << g << " vs interpreter " << w;
  }
}

/// Builds `f` natively, runs it and the interpreter on the same data, compares outputs.
inline void ExpectMatchesInterp(const tir::PrimFunc& f, const std::string& symbol,
                                uint32_t seed = 1, const TsKernelEnv* env = nullptr,
                                double rel = 1e-6) {
  runtime::Module mod =
      native::BuildNativeModule({{symbol, f}}, TestCompileOptions(), PoolCodegenOptions());
  std::vector<NDArray> args = MakeArgs(f, seed);
  std::vector<NDArray> got = RunNative(mod, symbol, args, env);
  std::vector<NDArray> want = RunInterp(f, args);
  for (size_t i = f->params.size() - f->num_outputs; i < args.size(); ++i)
    ExpectClose(got[i], want[i], symbol + " output " + f->params[i]->name, rel);
}

}  // namespace tessera::testing
