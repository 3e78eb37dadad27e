// Runtime modules: the module tree's serialised form (incl. damaged bytes and unknown
// kinds) and the interp module's kernels, save and load.
#include "runtime_test_util.h"

namespace tessera {
namespace {

using testing_runtime::ExpectError;
using testing_runtime::Iota;

// A module whose bytes are its symbols joined by ','; kernels write the symbol's length.
class FakeModule : public runtime::ModuleNode {
 public:
  explicit FakeModule(std::vector<std::string> symbols) : symbols_(std::move(symbols)) {}
  std::string type_key() const override { return "test_fake"; }
  runtime::KernelFunction GetFunction(const std::string& symbol) override {
    for (const std::string& s : symbols_)
      if (s == symbol)
        return [n = s.size()](void* const* buffers, const TsKernelEnv*) {
          *static_cast<float*>(buffers[0]) = static_cast<float>(n);
        };
    return nullptr;
  }
  std::vector<std::string> ListFunctions() const override { return symbols_; }
  std::string SaveToBytes() const override {
    std::string out;
    for (const std::string& s : symbols_) out += (out.empty() ? "" : ",") + s;
    return out;
  }
  static runtime::Module Load(const std::string& bytes) {
    std::vector<std::string> symbols;
    size_t start = 0;
    while (start < bytes.size()) {
      size_t comma = bytes.find(',', start);
      if (comma == std::string::npos) comma = bytes.size();
      symbols.push_back(bytes.substr(start, comma - start));
      start = comma + 1;
    }
    return std::make_shared<FakeModule>(symbols);
  }

 private:
  std::vector<std::string> symbols_;
};

class UnknownModule : public FakeModule {
 public:
  using FakeModule::FakeModule;
  std::string type_key() const override { return "test_unknown_kind"; }
};

runtime::Module MakeTree() {
  runtime::RegisterModuleLoader("test_fake", FakeModule::Load);
  auto root = std::make_shared<FakeModule>(std::vector<std::string>{"a", "bb"});
  auto child = std::make_shared<FakeModule>(std::vector<std::string>{"ccc"});
  child->imports.push_back(std::make_shared<FakeModule>(std::vector<std::string>{"dddd"}));
  root->imports.push_back(child);
  root->imports.push_back(std::make_shared<FakeModule>(std::vector<std::string>{}));
  return root;
}

float CallKernel(const runtime::Module& mod, const std::string& symbol) {
  float out = 0;
  void* buffers[] = {&out};
  runtime::FindKernel(mod, symbol)(buffers, nullptr);
  return out;
}

TEST(RuntimeModule, TreeRoundTrips) {
  runtime::Module tree = MakeTree();
  std::string bytes = runtime::SerializeModuleTree(tree);
  runtime::Module back = runtime::DeserializeModuleTree(bytes);
  EXPECT_EQ(back->type_key(), "test_fake");
  EXPECT_EQ(back->ListFunctions(), (std::vector<std::string>{"a", "bb"}));
  ASSERT_EQ(back->imports.size(), 2u);
  ASSERT_EQ(back->imports[0]->imports.size(), 1u);
  EXPECT_EQ(back->imports[0]->imports[0]->ListFunctions(), std::vector<std::string>{"dddd"});
  EXPECT_EQ(CallKernel(back, "dddd"), 4.0f);
  EXPECT_EQ(CallKernel(back, "bb"), 2.0f);
  EXPECT_EQ(runtime::SerializeModuleTree(back), bytes);
  ExpectError([&] { runtime::FindKernel(back, "zz"); }, ErrorKind::kNotFound,
              {"'zz'", "a, bb, ccc, dddd"});
}

TEST(RuntimeModule, DamagedBytesAreParseErrors) {
  std::string bytes = runtime::SerializeModuleTree(MakeTree());
  for (size_t n = 0; n < bytes.size(); ++n)
    ExpectError([&] { runtime::DeserializeModuleTree(bytes.substr(0, n)); }, ErrorKind::kParse,
                {"module file"});
  ExpectError([&] { runtime::DeserializeModuleTree(bytes + "x"); }, ErrorKind::kParse,
              {"trailing bytes"});
  ExpectError([&] { runtime::DeserializeModuleTree("garbage"); }, ErrorKind::kParse,
              {"not a Tessera module file"});
  std::string huge = bytes;
  huge[10 + 7] = '\x7f';  // the first length's top byte: claims petabytes
  ExpectError([&] { runtime::DeserializeModuleTree(huge); }, ErrorKind::kParse, {"truncated"});
}

TEST(RuntimeModule, UnknownKindNamesTheKnownOnes) {
  auto mod = std::make_shared<UnknownModule>(std::vector<std::string>{"k"});
  std::string bytes = runtime::SerializeModuleTree(mod);
  BackendRegistry::Global();  // the built-in loaders
  ExpectError([&] { runtime::DeserializeModuleTree(bytes); }, ErrorKind::kNotFound,
              {"'test_unknown_kind'", "interp"});
}

TEST(RuntimeModule, InterpModuleRunsSavesAndLoads) {
  IRModule mod = ParseModule(testing_runtime::StdKernels(8));
  runtime::Module kernels = testing_runtime::InterpKernels(mod);
  EXPECT_EQ(kernels->type_key(), "interp");
  EXPECT_EQ(kernels->ListFunctions(),
            (std::vector<std::string>{"add_k", "add_one_k", "mul_k", "twice_k"}));
  NDArray a = Iota({8}, 1.0f), b = Iota({8}, -3.0f), out = NDArray::Zeros({8}, DType::kFloat32);
  void* buffers[] = {a.data(), b.data(), out.data()};
  TsKernelEnv env{nullptr, nullptr};
  runtime::FindKernel(kernels, "mul_k")(buffers, &env);
  for (int i = 0; i < 8; ++i)
    EXPECT_FLOAT_EQ(out.data_as<float>()[i], (1.0f + 0.5f * i) * (-3.0f + 0.5f * i));

  runtime::Module back = runtime::DeserializeModuleTree(runtime::SerializeModuleTree(kernels));
  EXPECT_EQ(back->ListFunctions(), kernels->ListFunctions());
  EXPECT_EQ(back->SaveToBytes(), kernels->SaveToBytes());
  NDArray out2 = NDArray::Zeros({8}, DType::kFloat32);
  void* buffers2[] = {a.data(), b.data(), out2.data()};
  runtime::FindKernel(back, "mul_k")(buffers2, &env);
  EXPECT_TRUE(out2.BitwiseEqual(out));

  ExpectError([] { InterpModuleNode::LoadFromBytes("primfn @f("); }, ErrorKind::kParse, {""});
  ExpectError([&] { InterpCodegen(mod, {"nope"}, Target("interp")); }, ErrorKind::kNotFound,
              {"'nope'", "add_one_k"});
  // Only the asked-for symbols are compiled.
  EXPECT_EQ(InterpCodegen(mod, {"twice_k"}, Target("interp"))->ListFunctions(),
            std::vector<std::string>{"twice_k"});
}

}  // namespace
}  // namespace tessera
