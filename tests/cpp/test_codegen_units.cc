// Kernels split into translation units compiled in parallel: the units hold GenerateC's
// kernels, the linked module runs every kernel, the shared object and each unit's object
// are cached (a changed unit alone is recompiled), errors in a unit surface, and the job
// count follows TESSERA_COMPILE_JOBS.
#include <unistd.h>

#include <filesystem>

#include "codegen_test_util.h"

namespace tessera {
namespace {

using namespace tir;  // NOLINT
using testing::MakeArgs;
using testing::RunInterp;
using testing::RunNative;

PrimFunc Scale(float c, int64_t n = 40) {
  Buffer a = MakeBuffer("A", {n}), b = MakeBuffer("B", {n});
  tir::Var i = tir::MakeVar("i");
  return MakePrimFunc({a, b}, 1,
                      MakeFor(i, IntImm(0), IntImm(n), ForKind::kSerial,
                              MakeStore(b, MakeLoad(a, {i}) * FloatImm(c) + FloatImm(1), {i})));
}

std::vector<std::pair<std::string, PrimFunc>> Kernels(float first) {
  std::vector<std::pair<std::string, PrimFunc>> k;
  for (int i = 0; i < 7; ++i) k.emplace_back("k" + std::to_string(i), Scale(first + i));
  return k;
}

/// A fresh cache directory, removed afterwards.
struct TempCache {
  TempCache() {
    std::string t = (std::filesystem::temp_directory_path() / "tessera-units-test-XXXXXX").string();
    dir = mkdtemp(t.data());
  }
  ~TempCache() { std::filesystem::remove_all(dir); }
  native::CompileOptions Options(int jobs = 2) const {
    native::CompileOptions o;
    o.cache_dir = dir;
    o.jobs = jobs;
    return o;
  }
  size_t Count(const std::string& suffix) const {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      n += e.path().string().ends_with(suffix);
    return n;
  }
  std::string dir;
};

runtime::Module Load(const std::string& object,
                     const std::vector<std::pair<std::string, PrimFunc>>& kernels) {
  std::vector<std::pair<std::string, std::string>> table;
  for (const auto& [name, f] : kernels) table.emplace_back(name, name);
  return std::make_shared<runtime::NativeModuleNode>(object, std::move(table));
}

native::CodegenOptions SmallUnits() {
  native::CodegenOptions o;
  o.unit_bytes = 1;  // one kernel per unit
  return o;
}

TEST(CodegenUnits, UnitsHoldTheKernelsOfGenerateC) {
  auto kernels = Kernels(1);
  native::CUnits c = native::GenerateCUnits(kernels, SmallUnits());
  EXPECT_EQ(c.source, native::GenerateC(kernels));
  ASSERT_EQ(c.units.size(), kernels.size());
  std::string prelude = c.source.substr(0, c.source.find("/* kernel '"));
  for (size_t i = 0; i < c.units.size(); ++i) {
    EXPECT_EQ(c.units[i].rfind(prelude, 0), 0u) << i;
    EXPECT_NE(c.units[i].find("/* kernel 'k" + std::to_string(i) + "' */"), std::string::npos);
  }
  // The default size keeps these small kernels together.
  EXPECT_EQ(native::GenerateCUnits(kernels).units.size(), 1u);
  native::CodegenOptions three;
  three.unit_bytes = (c.source.size() - prelude.size()) / 3;
  EXPECT_EQ(native::GenerateCUnits(kernels, three).units.size(), 3u);
}

TEST(CodegenUnits, ParallelUnitsLinkIntoOneModuleAndAreCachedPerUnit) {
  TempCache cache;
  auto kernels = Kernels(1);
  std::vector<std::string> units = native::GenerateCUnits(kernels, SmallUnits()).units;
  auto before = native::GetCompilerCounters();
  runtime::Module mod = Load(native::CompileSharedObject(units, cache.Options()), kernels);
  auto mid = native::GetCompilerCounters();
  EXPECT_EQ(mid.compiler_runs, before.compiler_runs + units.size());
  for (const auto& [name, f] : kernels) {
    std::vector<NDArray> args = MakeArgs(f, 3);
    testing::ExpectClose(RunNative(mod, name, args)[1], RunInterp(f, args)[1], name);
  }
  EXPECT_EQ(cache.Count(".o.entry"), units.size());
  EXPECT_EQ(cache.Count(".so.entry"), 1u);

  // Warm: the shared object alone is read.
  native::CompileSharedObject(units, cache.Options());
  auto warm = native::GetCompilerCounters();
  EXPECT_EQ(warm.compiler_runs, mid.compiler_runs);
  EXPECT_EQ(warm.cache_hits, mid.cache_hits + 1);

  // One kernel changed: only its unit is compiled again, the others come from the cache.
  auto changed = kernels;
  changed[3].second = Scale(-2);
  std::vector<std::string> units2 = native::GenerateCUnits(changed, SmallUnits()).units;
  runtime::Module mod2 = Load(native::CompileSharedObject(units2, cache.Options(1)), changed);
  auto after = native::GetCompilerCounters();
  EXPECT_EQ(after.compiler_runs, warm.compiler_runs + 1);
  EXPECT_EQ(after.cache_hits, warm.cache_hits + units.size() - 1);
  std::vector<NDArray> args = MakeArgs(changed[3].second, 4);
  testing::ExpectClose(RunNative(mod2, "k3", args)[1], RunInterp(changed[3].second, args)[1],
                       "changed kernel");

  // Without the cache, the same object is built and nothing is stored.
  TempCache none;
  native::CompileOptions no_cache = none.Options();
  no_cache.use_cache = false;
  Load(native::CompileSharedObject(units, no_cache), kernels);
  EXPECT_EQ(none.Count(".entry"), 0u);
}

TEST(CodegenUnits, AFailingUnitReportsTheCompilerError) {
  native::CompileOptions no_cache;
  no_cache.use_cache = false;
  no_cache.jobs = 2;
  std::vector<std::string> units = {"int ok_a(void) { return 1; }\n",
                                    "int bad(void) { return undeclared_in_unit; }\n",
                                    "int ok_b(void) { return 2; }\n"};
  try {
    native::CompileSharedObject(units, no_cache);
    FAIL() << "expected a compiler error";
  } catch (const tessera::Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("C compiler failed"), std::string::npos) << m;
    EXPECT_NE(m.find("undeclared_in_unit"), std::string::npos) << m;
  }
  EXPECT_THROW(native::CompileSharedObject(std::vector<std::string>{}, no_cache), tessera::Error);
}

TEST(CodegenUnits, JobsFollowTheEnvironment) {
  const char* old = std::getenv("TESSERA_COMPILE_JOBS");
  std::string saved = old ? old : "";
  setenv("TESSERA_COMPILE_JOBS", "3", 1);
  EXPECT_EQ(native::CompileJobs(), 3);
  setenv("TESSERA_COMPILE_JOBS", "lots", 1);  // ignored, with a warning
  int fallback = native::CompileJobs();
  EXPECT_GE(fallback, 1);
  unsetenv("TESSERA_COMPILE_JOBS");
  EXPECT_EQ(native::CompileJobs(), fallback);
  if (old) setenv("TESSERA_COMPILE_JOBS", saved.c_str(), 1);
}

}  // namespace
}  // namespace tessera
