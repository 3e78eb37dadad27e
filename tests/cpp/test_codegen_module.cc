// The native module and compiler driver: object cache (hits, misses, damaged entries),
// compiler errors, save/load through the runtime module tree, the generated C against
// the kernel ABI header, deterministic output, codegen errors.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "codegen_test_util.h"
#include "tessera/runtime/module.h"

namespace tessera {
namespace {

using namespace tir;  // NOLINT
using testing::MakeArgs;
using testing::ParsePrimFunc;
using testing::RunInterp;
using testing::RunNative;
using testing::TestCompileOptions;

PrimFunc AddConst(float c, int64_t n = 12) {
  Buffer a = MakeBuffer("A", {n}), b = MakeBuffer("B", {n});
  tir::Var i = tir::MakeVar("i");
  return MakePrimFunc({a, b}, 1,
                      MakeFor(i, IntImm(0), IntImm(n), ForKind::kSerial,
                              MakeStore(b, MakeLoad(a, {i}) + FloatImm(c), {i})));
}

/// A fresh cache directory, removed afterwards.
struct TempCache {
  TempCache() {
    std::string t = (std::filesystem::temp_directory_path() / "tessera-cache-test-XXXXXX").string();
    dir = mkdtemp(t.data());
  }
  ~TempCache() { std::filesystem::remove_all(dir); }
  native::CompileOptions Options() const {
    native::CompileOptions o;
    o.cache_dir = dir + "/nested/dir";
    return o;
  }
  std::vector<std::string> Entries() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir + "/nested/dir"))
      out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string dir;
};

/// Sets an environment variable for one scope.
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name(name) {
    if (const char* old = std::getenv(name)) previous = old, had = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had)
      setenv(name.c_str(), previous.c_str(), 1);
    else
      unsetenv(name.c_str());
  }
  std::string name, previous;
  bool had = false;
};

TEST(CodegenModule, CacheServesTheSameSourceWithoutCompiling) {
  TempCache cache;
  std::string src = native::GenerateC({{"k", AddConst(1.5f)}});
  auto before = native::GetCompilerCounters();
  std::string first = native::CompileSharedObject(src, cache.Options());
  auto mid = native::GetCompilerCounters();
  EXPECT_EQ(mid.compiler_runs, before.compiler_runs + 1);
  std::string second = native::CompileSharedObject(src, cache.Options());
  auto after = native::GetCompilerCounters();
  EXPECT_EQ(after.compiler_runs, mid.compiler_runs);
  EXPECT_EQ(after.cache_hits, mid.cache_hits + 1);
  EXPECT_EQ(first, second);
  ASSERT_EQ(cache.Entries().size(), 1u);

  // A different source is a different object.
  std::string other =
      native::CompileSharedObject(native::GenerateC({{"k", AddConst(2.5f)}}), cache.Options());
  EXPECT_EQ(native::GetCompilerCounters().compiler_runs, after.compiler_runs + 1);
  EXPECT_EQ(cache.Entries().size(), 2u);

  // A damaged entry is detected and rebuilt, and the module still works.
  for (const std::string& path : cache.Entries()) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);
    f.write("garbage!", 8);
  }
  auto pre = native::GetCompilerCounters();
  runtime::Module mod = native::BuildNativeModule({{"k", AddConst(1.5f)}}, cache.Options());
  auto post = native::GetCompilerCounters();
  EXPECT_EQ(post.cache_rebuilds, pre.cache_rebuilds + 1);
  EXPECT_EQ(post.compiler_runs, pre.compiler_runs + 1);
  std::vector<NDArray> args = MakeArgs(AddConst(1.5f), 1);
  testing::ExpectClose(RunNative(mod, "k", args)[1], RunInterp(AddConst(1.5f), args)[1], "rebuilt");
  // ... and the rebuilt entry is intact again.
  native::CompileSharedObject(src, cache.Options());
  EXPECT_EQ(native::GetCompilerCounters().compiler_runs, post.compiler_runs);
}

TEST(CodegenModule, CacheDirectoryFollowsTheEnvironment) {
  ScopedEnv a("TESSERA_CACHE_DIR", "/some/where");
  EXPECT_EQ(native::CacheDirectory(), "/some/where");
  unsetenv("TESSERA_CACHE_DIR");
  ScopedEnv b("XDG_CACHE_HOME", "/xdg");
  EXPECT_EQ(native::CacheDirectory(), "/xdg/tessera");
  unsetenv("XDG_CACHE_HOME");
  ScopedEnv c("HOME", "/home/u");
  EXPECT_EQ(native::CacheDirectory(), "/home/u/.cache/tessera");
}

TEST(CodegenModule, CompilerErrorsCarryTheCommandAndItsOutput) {
  native::CompileOptions no_cache;
  no_cache.use_cache = false;
  try {
    native::CompileSharedObject("int f(void) { return undeclared_thing; }\n", no_cache);
    FAIL() << "expected a compiler error";
  } catch (const tessera::Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("C compiler failed"), std::string::npos) << m;
    EXPECT_NE(m.find("-O3 -march=native -fPIC -shared -std=gnu11 -fno-math-errno"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("undeclared_thing"), std::string::npos) << m;
  }
  ScopedEnv cc("TESSERA_CC", "/nonexistent/tessera-no-cc");
  try {
    native::CompileSharedObject("int x;\n", no_cache);
    FAIL() << "expected a missing-compiler error";
  } catch (const tessera::Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/tessera-no-cc"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("TESSERA_CC"), std::string::npos);
  }
}

TEST(CodegenModule, FlagsNeverIncludeFastMath) {
  auto flags = native::NativeCompileFlags();
  for (const auto& f : flags) EXPECT_EQ(f.find("fast-math"), std::string::npos);
  bool avx512 = native::HostVectorBytes() == 64;
  EXPECT_EQ(std::count(flags.begin(), flags.end(), "-mprefer-vector-width=512"), avx512 ? 1 : 0);
  // GCC's constant-argument cloning is off (compile time); other compilers lack the flag.
  EXPECT_EQ(std::count(flags.begin(), flags.end(), "-fno-ipa-cp-clone"),
            native::CompilerIsGcc() ? 1 : 0);
}

TEST(CodegenModule, SaveLoadThroughTheModuleTreeGivesIdenticalResults) {
  std::vector<std::pair<std::string, PrimFunc>> kernels = {
      {"add.one", AddConst(1)}, {"exp", AddConst(2)}, {"ts_internal", AddConst(3)}};
  runtime::Module mod = native::BuildNativeModule(kernels, TestCompileOptions());
  auto* node = dynamic_cast<runtime::NativeModuleNode*>(mod.get());
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(mod->type_key(), "native");
  // Symbols that are not plain C identifiers, or clash with names the C uses, are renamed.
  for (const char* fn :
       {"int32_t add_one(void* const* buffers", "int32_t tsk_exp(", "int32_t tsk_ts_internal("})
    EXPECT_NE(node->source().find(fn), std::string::npos) << fn;
  EXPECT_EQ(mod->ListFunctions(), (std::vector<std::string>{"add.one", "exp", "ts_internal"}));
  EXPECT_FALSE(mod->GetFunction("missing"));

  std::string bytes = runtime::SerializeModuleTree(mod);
  runtime::Module back = runtime::DeserializeModuleTree(bytes);
  EXPECT_EQ(back->type_key(), "native");
  EXPECT_EQ(back->ListFunctions(), mod->ListFunctions());
  for (const auto& [name, f] : kernels) {
    std::vector<NDArray> args = MakeArgs(f, 2);
    NDArray a = RunNative(mod, name, args)[1], b = RunNative(back, name, args)[1];
    EXPECT_TRUE(a.BitwiseEqual(b)) << name;
    testing::ExpectClose(a, RunInterp(f, args)[1], name);
  }
  EXPECT_THROW(runtime::LoadNativeModule(bytes.substr(0, 5)), tessera::Error);
  EXPECT_THROW(runtime::LoadNativeModule(mod->SaveToBytes().substr(0, 40)), tessera::Error);
  // Bytes that are no shared object, and a symbol table naming a function the object
  // lacks, are clear errors.
  try {
    runtime::NativeModuleNode junk("definitely not an ELF file", {});
    FAIL() << "expected a load error";
  } catch (const tessera::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot load the shared object"), std::string::npos);
  }
  try {
    runtime::NativeModuleNode bad(node->shared_object(), {{"k", "no_such_function"}});
    FAIL() << "expected a missing-symbol error";
  } catch (const tessera::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_function"), std::string::npos) << e.what();
  }
}

TEST(CodegenModule, GeneratedCCompilesWithTheKernelAbiHeader) {
  const char* text = R"(
primfn @add_one(%A: Buffer[(10), float32]) -> (%B: Buffer[(10), float32]) {
  for %i: int32 in 0 +: 10 parallel {
    block "compute"(%vi: int32 in 0 +: 10 spatial = %i) reads(%A[%vi]) writes(%B[%vi]) {
      %B[%vi] = %A[%vi] + 1f;
    }
  }
}
)";
  std::string c = native::GenerateC({{"add_one", ParsePrimFunc(text, "add_one")}});
  std::string include =
      (std::filesystem::path(TESSERA_TEST_DATA_DIR).parent_path().parent_path() / "cpp/include")
          .string();
  std::string tu = "#include \"tessera/runtime/kernel_abi.h\"\n" + c +
                   "TsKernelFn ts_check_signature = &add_one;\n";
  native::CompileOptions no_cache;
  no_cache.use_cache = false;
  // Compile through the driver with the include path spelled into the source's location.
  std::string dir = (std::filesystem::temp_directory_path() / "tessera-abi-XXXXXX").string();
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  std::ofstream(dir + "/tu.c") << tu;
  std::string cmd =
      "cc -std=gnu11 -march=native -Wall -Wextra -Werror -Wno-unused-function -fsyntax-only -I'" +
      include + "' '" + dir + "/tu.c' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[256];
  while (fgets(buf, sizeof buf, p)) out += buf;
  int rc = pclose(p);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(rc, 0) << out;
}

TEST(CodegenModule, SourceIsDeterministic) {
  const char* text = R"(
primfn @f(%A: Buffer[(4, 8), float32]) -> (%B: Buffer[(4, 8), float32]) {
  for %i: int32 in 0 +: 4 parallel {
    for %j: int32 in 0 +: 8 vectorized {
      %B[%i, %j] = %A[%i, %j] * 2f;
    }
  }
}
)";
  std::string a = native::GenerateC({{"f", ParsePrimFunc(text, "f")}, {"g", AddConst(1)}});
  std::string b = native::GenerateC({{"f", ParsePrimFunc(text, "f")}, {"g", AddConst(1)}});
  EXPECT_EQ(a, b);
}

TEST(CodegenModule, CodegenErrorsNameTheProblem) {
  Buffer a = MakeBuffer("A", {4}), b = MakeBuffer("B", {4});
  tir::Var i = tir::MakeVar("i"), stray = tir::MakeVar("stray");
  PrimFunc into_input = MakePrimFunc(
      {a, b}, 1,
      MakeFor(i, IntImm(0), IntImm(4), ForKind::kSerial, MakeStore(a, FloatImm(1), {i})));
  PrimFunc unbound = MakePrimFunc(
      {a, b}, 1,
      MakeFor(i, IntImm(0), IntImm(4), ForKind::kSerial, MakeStore(b, FloatImm(1), {stray})));
  auto message = [](const PrimFunc& f) {
    try {
      native::GenerateC({{"k", f}});
    } catch (const tessera::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(into_input).find("store into input buffer 'A'"), std::string::npos);
  EXPECT_NE(message(unbound).find("variable 'stray'"), std::string::npos);
  EXPECT_THROW(native::GenerateC({{"k", AddConst(1)}, {"k", AddConst(2)}}), tessera::Error);
  // Absurdly deep expressions are refused with an error, not a stack overflow.
  PrimExpr deep = MakeLoad(a, {IntImm(0)});
  for (int n = 0; n < 5000; ++n) deep = deep + FloatImm(1);
  PrimFunc too_deep = MakePrimFunc({a, b}, 1, MakeStore(b, deep, {IntImm(0)}));
  EXPECT_NE(message(too_deep).find("nested deeper than"), std::string::npos);
}

}  // namespace
}  // namespace tessera
