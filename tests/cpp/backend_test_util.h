// Shared helpers for the library-backend tests: Compiler partitions written in text with
// some parameters turned into constants, built and checked against the interpreter,
// also after save -> load in a fresh process.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "lower_test_util.h"
#include "tessera/backend/build.h"
#include "tessera/runtime/executable.h"
#include "tessera/target/backend_registry.h"

namespace tessera::testing_backend {

/// Parses `text` and makes parameters `consts` of global function `fn` random constants
/// (seeded; those in `positive` in [0.5, 1.5]), so the partition keeps its weights inside as
/// PartitionGraph makes them; the call sites in the text pass only the remaining parameters.
inline IRModule WithConstants(const std::string& text, const std::string& fn,
                              const std::vector<size_t>& consts, unsigned seed = 7,
                              const std::vector<size_t>& positive = {}) {
  IRModule mod = ParseModule(text);
  Function f = mod.LookupFunction(fn);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uf(-1.0, 1.0);
  std::unordered_map<const VarNode*, Expr> repl;
  std::vector<Var> params;
  for (size_t i = 0; i < f->params.size(); ++i) {
    bool is_const = false;
    for (size_t c : consts) is_const |= c == i;
    if (!is_const) {
      params.push_back(f->params[i]);
      continue;
    }
    const auto* t = f->params[i]->type_annotation.as<TensorTypeNode>();
    NDArray a = NDArray::Empty(t->shape, t->dtype);
    bool pos = false;
    for (size_t c : positive) pos |= c == i;
    for (int64_t k = 0; k < a.NumElements(); ++k) {
      double v = uf(rng);
      a.SetFloat(k, pos ? std::fabs(v) + 0.5 : v);  // e.g. a variance
    }
    repl[f->params[i].get()] = MakeConstant(a);
  }
  Function bound = MakeFunction(params, Substitute(f->body, repl), f->ret_type, f->attrs);
  return InferTypes(mod.WithFunction(fn, bound));
}

/// Element-wise closeness for library kernels (other summation orders, approximations).
inline void ExpectNear(const NDArray& want, const NDArray& got, const std::string& what,
                       double tol = 1e-4) {
  ASSERT_EQ(want.shape(), got.shape()) << what;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    double a = want.GetFloat(i), b = got.GetFloat(i);
    ASSERT_LE(std::fabs(a - b), tol * (10.0 + std::fabs(a)))
        << what << " element " << i << ": want " << a << " got " << b;
  }
}

/// Builds `mod` for `target`, checks @main against the interpreter and that symbol
/// `symbol` runs in a module of kind `kind`; returns the executable.
inline std::shared_ptr<runtime::Executable> CheckBackend(const IRModule& mod,
                                                         const std::string& symbol,
                                                         const std::string& kind,
                                                         const std::string& target = "native",
                                                         double tol = 1e-4) {
  SCOPED_TRACE(PrintModule(mod));
  auto inputs = testing_lower::RandomInputs(mod, 3);
  std::vector<NDArray> want = RunMain(mod, inputs).Flatten();
  auto exe = Build(mod, target);
  EXPECT_EQ(exe->ModuleKindOf(symbol), kind);
  std::vector<NDArray> got = runtime::Executor(exe).Run(inputs);
  EXPECT_EQ(got.size(), want.size());
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
    ExpectNear(want[i], got[i], "output " + std::to_string(i), tol);
  return exe;
}

/// Saves `exe`, loads it in a forked child and expects the same outputs there.
inline void ExpectSameAfterLoadInChild(const std::shared_ptr<runtime::Executable>& exe,
                                       const IRModule& mod) {
  auto inputs = testing_lower::RandomInputs(mod, 5);
  std::vector<NDArray> want = runtime::Executor(exe).Run(inputs);
  std::string path = ::testing::TempDir() + "/tessera_backend_" + std::to_string(getpid()) + ".tsx";
  exe->Save(path);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = 3;
    try {
      std::vector<NDArray> got = runtime::Executor(runtime::Executable::Load(path)).Run(inputs);
      code = 0;
      for (size_t i = 0; i < got.size(); ++i)
        if (!got[i].BitwiseEqual(want[i])) code = 1;
    } catch (...) {
      code = 2;
    }
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: outputs differ, 2: load or run threw";
  std::remove(path.c_str());
}

/// `T("1, 3")` = "Tensor[(1, 3), float32]".
/// Whether this build has the backend `name` (oneDNN and BLAS are optional).
inline bool HaveBackend(const std::string& name) {
  return BackendRegistry::Global().Find(name) != nullptr;
}

inline std::string T(const std::string& shape, const std::string& dtype = "float32") {
  return "Tensor[(" + shape + "), " + dtype + "]";
}

/// A module whose @main calls partition @<compiler>_0 (attrs Primitive, Compiler,
/// global_symbol) on `main_params`' vars: `fn_params` are the partition's parameters
/// (main's ones first, constants after), `body` its body.
inline std::string Partitioned(const std::string& compiler, const std::string& main_params,
                               const std::string& main_args, const std::string& fn_params,
                               const std::string& body) {
  std::string name = compiler + "_0";
  return "def @" + name + "(" + fn_params + ", Primitive=1, Compiler=\"" + compiler +
         "\", global_symbol=\"" + name + "\") {\n" + body + "\n}\n" + "def @main(" + main_params +
         ") {\n  @" + name + "(" + main_args + ")\n}\n";
}

}  // namespace tessera::testing_backend
