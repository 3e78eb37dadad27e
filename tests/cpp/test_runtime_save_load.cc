// Executables saved to one file and loaded back (also in a child process) run the same;
// damaged or truncated files are parse errors.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "runtime_test_util.h"
#include "tessera/ir/op.h"
#include "tessera/support/sha256.h"

namespace tessera {
namespace {

using runtime::Executable;
using runtime::Executor;
using testing_runtime::Compile;
using testing_runtime::ExpectError;
using testing_runtime::Iota;

/// A module with a multi-output kernel, a constant, a diamond and a tuple result.
IRModule SampleModule() {
  IRModule kernels = ParseModule(testing_runtime::StdKernels());
  Type t = MakeTensorType({8});
  Var x = MakeVar("x", t), y = MakeVar("y", t);
  Constant c = MakeConstant(Iota({8}, 0.125f));
  auto call = [&](const char* f, std::vector<Expr> args) {
    return MakeOpCall(kCallTirOp, {MakeGlobalVar(f), MakeTuple(std::move(args))}, {}, {t});
  };
  Expr a = call("add", {x, c});
  Expr b = call("twice", {a});
  Expr d = call("add_one", {a});
  Expr e = call("mul", {b, d});
  return kernels.WithFunction("main", MakeFunction({x, y}, MakeTuple({e, call("add", {e, y})})));
}

std::map<std::string, NDArray> Inputs() {
  return {{"x", Iota({8}, 1.0f)}, {"y", Iota({8}, -4.0f)}};
}

bool SameOutputs(const std::vector<NDArray>& a, const std::vector<NDArray>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!a[i].BitwiseEqual(b[i])) return false;
  return true;
}

std::string TempPath(const char* name) {
  return ::testing::TempDir() + "/tessera_" + name + "_" + std::to_string(getpid()) + ".tsx";
}

TEST(RuntimeSaveLoad, BytesRoundTrip) {
  IRModule mod = SampleModule();
  auto exe = Compile(mod);
  std::vector<NDArray> want = Executor(exe).Run(Inputs());
  testing_runtime::ExpectMatchesInterpreter(mod, want, Inputs());
  std::string bytes = exe->SaveToBytes();
  auto back = Executable::LoadFromBytes(bytes);
  EXPECT_TRUE(SameOutputs(Executor(back).Run(Inputs()), want));
  EXPECT_EQ(back->memory_plan().arena_bytes, exe->memory_plan().arena_bytes);
  EXPECT_EQ(back->memory_plan().num_storages, exe->memory_plan().num_storages);
  EXPECT_EQ(back->input_names(), exe->input_names());
  EXPECT_EQ(back->SaveToBytes(), bytes);  // deterministic
}

TEST(RuntimeSaveLoad, FileRoundTripInChildProcess) {
  auto exe = Compile(SampleModule());
  std::vector<NDArray> want = Executor(exe).Run(Inputs());
  std::string path = TempPath("exe");
  exe->Save(path);
  EXPECT_TRUE(SameOutputs(Executor(Executable::Load(path)).Run(Inputs()), want));
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = 3;
    try {
      code = SameOutputs(Executor(Executable::Load(path)).Run(Inputs()), want) ? 0 : 1;
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

TEST(RuntimeSaveLoad, DamagedFilesAreParseErrors) {
  std::string bytes = Compile(SampleModule())->SaveToBytes();
  for (size_t n = 0; n < bytes.size(); n += (n < 64 ? 1 : 97))
    ExpectError([&] { Executable::LoadFromBytes(bytes.substr(0, n)); }, ErrorKind::kParse, {""});
  for (size_t i = 0; i < bytes.size(); i += 131) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    ExpectError([&] { Executable::LoadFromBytes(bad); }, ErrorKind::kParse, {""});
  }
  ExpectError([&] { Executable::LoadFromBytes(bytes + "zz"); }, ErrorKind::kParse, {"checksum"});
  ExpectError([&] { Executable::LoadFromBytes("hello"); }, ErrorKind::kParse,
              {"not a Tessera executable"});
  std::string path = TempPath("trunc");
  {
    std::ofstream out(path, std::ios::binary);
    out << bytes.substr(0, bytes.size() / 2);
  }
  ExpectError([&] { Executable::Load(path); }, ErrorKind::kParse, {path, "truncated"});
  std::remove(path.c_str());
  ExpectError([&] { Executable::Load(path); }, ErrorKind::kNotFound, {path});
}

/// `bytes` with its program JSON replaced by edit(JSON), the length and digest redone (the
/// layout executable_io.cc writes: magic and version, three u64-prefixed sections, SHA-256).
std::string WithProgram(const std::string& bytes,
                        const std::function<std::string(std::string)>& edit) {
  const size_t head = 16;
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t(static_cast<unsigned char>(bytes[head + i])) << (8 * i);
  std::string json = edit(bytes.substr(head + 8, n));
  std::string out = bytes.substr(0, head);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((json.size() >> (8 * i)) & 0xff));
  out += json;
  out += bytes.substr(head + 8 + n, bytes.size() - 64 - (head + 8 + n));
  return out + Sha256Hex(out.data(), out.size());
}

/// `text` with the first `from` replaced by `to`.
std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from << " in " << text;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(RuntimeSaveLoad, ProgramsWithBadNumbersAreErrors) {
  std::string bytes = Compile(SampleModule())->SaveToBytes();
  // The unchanged program loads (the rewriting itself is right).
  EXPECT_NO_THROW(Executable::LoadFromBytes(WithProgram(bytes, [](std::string j) { return j; })));
  // Floats and out-of-range numbers where integers belong: parse errors, not conversions.
  for (const char* bad : {"1.5", "1e300", "-1e300", "4294967296"})
    ExpectError([&] {
      Executable::LoadFromBytes(WithProgram(bytes, [&](std::string j) {
        return Replaced(j, "\"num_threads\":", std::string("\"num_threads\":") + bad + ",\"x\":");
      }));
    }, ErrorKind::kParse, {"the thread count is not an integer in range"});
  // A result that names an intermediate slot would be missing from the results.
  auto exe = Compile(SampleModule());
  int intermediate = -1;
  for (size_t i = 0; i < exe->slots().size(); ++i)
    if (exe->slots()[i].kind == runtime::SlotKind::kIntermediate)
      intermediate = static_cast<int>(i);
  ASSERT_GE(intermediate, 0);
  runtime::Program p;
  p.input_names = exe->input_names();
  p.slots = exe->slots();
  p.instructions = exe->instructions();
  p.constants = exe->constants();
  p.output_slots = exe->output_slots();
  p.output_slots[0] = intermediate;
  ExpectError([&] { Executable::Create(p, exe->module()); }, ErrorKind::kValue,
              {"is an intermediate"});
}

}  // namespace
}  // namespace tessera
