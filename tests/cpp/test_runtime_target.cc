// Targets and the backend registry: parsing, canonical printing, schema errors.
#include "runtime_test_util.h"
#include "tessera/target/target.h"

namespace tessera {
namespace {

using testing_runtime::ExpectError;

// A backend with one option of every type.
void EnsureAllTypes() {
  BackendRegistry& r = BackendRegistry::Global();
  if (r.Find("test_alltypes")) return;
  Backend b;
  b.name = "test_alltypes";
  b.attrs = {
      {"count", TargetAttrType::kInt, AttrValue(int64_t{7}), "", nullptr},
      {"fast", TargetAttrType::kBool, AttrValue(false), "", nullptr},
      {"mode", TargetAttrType::kString, AttrValue("auto"), "", nullptr},
      {"names", TargetAttrType::kStringList, AttrValue(std::vector<AttrValue>{}), "", nullptr}};
  r.Register(std::move(b));
}

// Two library backends (an external codegen each) for -libs / -compiler, so the parsing
// tests do not depend on which libraries this build has.
void EnsureTestLibraries() {
  BackendRegistry& r = BackendRegistry::Global();
  for (const char* name : {"test_lib_a", "test_lib_b"}) {
    if (r.Find(name)) continue;
    Backend b;
    b.name = name;
    b.external_codegen = [](const Function&, const std::string&, const Target&) {
      return runtime::Module();
    };
    r.Register(std::move(b));
  }
}

TEST(RuntimeTarget, ParsesNativeWithOptions) {
  EnsureTestLibraries();
  Target t = Target::Parse("native -num_threads=1 -libs=test_lib_a");
  EXPECT_EQ(t.kind(), "native");
  EXPECT_EQ(t.GetInt("num_threads"), 1);
  EXPECT_EQ(t.GetStringList("libs"), std::vector<std::string>{"test_lib_a"});
  EXPECT_TRUE(t.GetStringList("compiler").empty());
  EXPECT_EQ(t.ToString(), "native -libs=test_lib_a -num_threads=1");
  EXPECT_EQ(Target::Parse(t.ToString()), t);
  EXPECT_EQ(Target::Parse(t.ToString()).ToString(), t.ToString());
}

TEST(RuntimeTarget, DefaultsAndWhitespace) {
  Target t = Target::Parse("  native  ");
  EXPECT_EQ(t.GetInt("num_threads"), 0);
  EXPECT_TRUE(t.GetStringList("libs").empty());
  EXPECT_EQ(t.ToString(), "native");
  EnsureTestLibraries();
  Target u = Target::Parse("native   -libs=test_lib_a,test_lib_b\t-compiler=test_lib_b");
  EXPECT_EQ(u.GetStringList("libs"), (std::vector<std::string>{"test_lib_a", "test_lib_b"}));
  EXPECT_EQ(u.ToString(), "native -compiler=test_lib_b -libs=test_lib_a,test_lib_b");
  EXPECT_EQ(Target::Parse(u.ToString()), u);
}

TEST(RuntimeTarget, ThreadCountsLibsAndRepeatsAreChecked) {
  ExpectError([] { Target::Parse("native -num_threads=2147483648"); }, ErrorKind::kValue,
              {"-num_threads must be from 0 (all cores) to 4096, got 2147483648"});
  ExpectError([] { Target::Parse("native -num_threads=5000"); }, ErrorKind::kValue,
              {"to 4096, got 5000"});
  ExpectError([] { Target::Parse("native -libs=nonsense_lib"); }, ErrorKind::kValue,
              {"option -libs names unknown backend 'nonsense_lib' (library backends: "});
  ExpectError([] { Target::Parse("native -compiler=interp"); }, ErrorKind::kValue,
              {"option -compiler names 'interp', which compiles whole models, not partitions"});
  ExpectError([] { Target::Parse("native -num_threads=1 -num_threads=2"); }, ErrorKind::kValue,
              {"option -num_threads is given twice"});
}

TEST(RuntimeTarget, InterpKindAndExecutorOptions) {
  Target t = Target::Parse("interp -num_threads=3");
  EXPECT_EQ(t.kind(), "interp");
  EXPECT_EQ(ExecutorOptionsFor(t).num_threads, 3);
  EXPECT_EQ(ExecutorOptionsFor(Target("interp")).num_threads, 0);
}

TEST(RuntimeTarget, AllAttributeTypes) {
  EnsureAllTypes();
  Target t = Target::Parse("test_alltypes");
  EXPECT_EQ(t.GetInt("count"), 7);
  EXPECT_FALSE(t.GetBool("fast"));
  EXPECT_EQ(t.GetString("mode"), "auto");
  Target u = Target::Parse("test_alltypes -fast -mode=exact -count=-2 -names=a,b,c");
  EXPECT_TRUE(u.GetBool("fast"));
  EXPECT_EQ(u.GetString("mode"), "exact");
  EXPECT_EQ(u.GetInt("count"), -2);
  EXPECT_EQ(u.GetStringList("names"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(u.ToString(), "test_alltypes -count=-2 -fast=true -mode=exact -names=a,b,c");
  EXPECT_EQ(Target::Parse(u.ToString()), u);
  EXPECT_FALSE(Target::Parse("test_alltypes -fast=false").GetBool("fast"));
  ExpectError([&] { Target::Parse("test_alltypes -fast=maybe"); }, ErrorKind::kValue,
              {"-fast", "bool", "maybe"});
  ExpectError([&] { u.GetInt("mode"); }, ErrorKind::kValue, {"-mode", "a string", "not an int"});
}

TEST(RuntimeTarget, Errors) {
  ExpectError([] { Target::Parse("cuda -arch=sm_80"); }, ErrorKind::kValue,
              {"unknown target kind 'cuda'", "interp", "native"});
  ExpectError([] { Target::Parse("native -foo=1"); }, ErrorKind::kValue,
              {"no option 'foo'", "compiler, libs, min_parallel_work, num_threads"});
  ExpectError([] { Target::Parse("native -num_threads=abc"); }, ErrorKind::kValue,
              {"-num_threads", "expects an int", "'abc'"});
  ExpectError([] { Target::Parse("native -num_threads=4x"); }, ErrorKind::kValue, {"an int"});
  ExpectError([] { Target::Parse("native -num_threads=-1"); }, ErrorKind::kValue,
              {"from 0 (all cores) to 4096, got -1"});
  ExpectError([] { Target::Parse("native -num_threads"); }, ErrorKind::kValue, {"needs a value"});
  ExpectError([] { Target::Parse("native -min_parallel_work=-5"); }, ErrorKind::kValue,
              {"-min_parallel_work must be >= 0, got -5"});
  ExpectError([] { Target::Parse("native -compiler=nosuch"); }, ErrorKind::kValue,
              {"unknown backend 'nosuch'", "(library backends: "});
  ExpectError([] { Target::Parse("native -libs=a,,b"); }, ErrorKind::kValue,
              {"comma-separated string list"});
  ExpectError([] { Target::Parse("native libs=blas"); }, ErrorKind::kValue, {"'-name=value'"});
  ExpectError([] { Target::Parse("   "); }, ErrorKind::kValue, {"empty target"});
  ExpectError([] { Target("nosuch"); }, ErrorKind::kValue, {"unknown target kind"});
}

TEST(RuntimeTarget, RegistryRegistersBackendsAndLoaders) {
  BackendRegistry& r = BackendRegistry::Global();
  ASSERT_NE(r.Find("interp"), nullptr);
  std::vector<std::string> names = r.Names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  ExpectError([] { BackendRegistry::Global().Get("nosuch"); }, ErrorKind::kNotFound,
              {"unknown backend 'nosuch'", "interp"});
  Backend dup;
  dup.name = "interp";
  ExpectError([&] { r.Register(dup); }, ErrorKind::kValue, {"already registered"});
  // A registered backend's loader reads its modules back.
  if (!r.Find("test_loader")) {
    Backend b;
    b.name = "test_loader";
    b.loader = [](const std::string& bytes) -> runtime::Module {
      return std::make_shared<InterpModuleNode>(std::map<std::string, tir::PrimFunc>{});
      (void)bytes;
    };
    r.Register(std::move(b));
  }
  EXPECT_EQ(runtime::LoadModuleFromBytes("test_loader", "")->type_key(), "interp");
  EXPECT_EQ(GlobalSymbolOf("f", nullptr), "f");
}

}  // namespace
}  // namespace tessera
