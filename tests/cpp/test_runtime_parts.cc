// Slots that are parts of others (Slot::view_of): kernels write the parts in place, a later
// call reads the whole, the memory plan keeps the whole alive, files keep the parts, and
// programs whose parts overlap, leave gaps or are misplaced are errors.
#include "runtime_test_util.h"
#include "tessera/support/sha256.h"

namespace tessera {
namespace {

using runtime::Executable;
using runtime::Executor;
using runtime::Program;
using runtime::Slot;
using runtime::SlotKind;
using testing_runtime::ExpectError;
using testing_runtime::Iota;

Slot MakeSlot(SlotKind kind, int64_t n, int index = -1) {
  Slot s;
  s.kind = kind;
  s.shape = {n};
  s.bytes = static_cast<size_t>(n) * 4;
  s.index = index;
  return s;
}

/// x (16 floats) -> a = x + 1 and b = 2 x, the two halves of w (32 floats); out = w + 1.
/// Slots: 0 x, 1 a, 2 b, 3 w, 4 out.
Program PartsProgram() {
  Program p;
  p.input_names = {"x"};
  p.slots = {MakeSlot(SlotKind::kInput, 16, 0), MakeSlot(SlotKind::kIntermediate, 16),
             MakeSlot(SlotKind::kIntermediate, 16), MakeSlot(SlotKind::kIntermediate, 32),
             MakeSlot(SlotKind::kOutput, 32, 0)};
  p.slots[1].view_of = 3;
  p.slots[2].view_of = 3;
  p.slots[2].view_offset = 64;
  p.instructions = {{"add_one_k", {0, 1}, 1}, {"twice_k", {0, 2}, 1}, {"add_one32_k", {3, 4}, 1}};
  p.output_slots = {4};
  return p;
}

/// One kernel writing both halves: B = A + 1, C = 2 A.
const char* kSplit = R"(primfn @split(%A: Buffer[(16), float32], global_symbol="split_k") -> (%B: Buffer[(16), float32], %C: Buffer[(16), float32]) {
  for %i: int32 in 0 +: 16 {
    block "c"(%vi: int32 in 0 +: 16 spatial = %i) reads(%A[%vi]) writes(%B[%vi], %C[%vi]) {
      %B[%vi] = %A[%vi] + 1f;
      %C[%vi] = %A[%vi] * 2f;
    }
  }
}
)";

runtime::Module Kernels() {
  IRModule mod = ParseModule(testing_runtime::StdKernels(16) +
                             testing_runtime::ElemwiseFn("add_one32", 32, 1, "%A[%vi] + 1f") +
                             kSplit);
  return testing_runtime::InterpKernels(mod);
}

/// The format version in a saved executable's header.
uint32_t SavedVersion(const Executable& exe) {
  std::string bytes = exe.SaveToBytes();
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(static_cast<unsigned char>(bytes[12 + i])) << (8 * i);
  return v;
}

/// `bytes` (a saved executable) with the format version `version` in its header, the
/// digest redone: what an earlier build wrote for the same program.
std::string WithVersion(std::string bytes, uint32_t version) {
  for (int i = 0; i < 4; ++i) bytes[12 + i] = static_cast<char>((version >> (8 * i)) & 0xff);
  bytes.resize(bytes.size() - 64);
  return bytes + Sha256Hex(bytes.data(), bytes.size());
}

/// What PartsProgram computes for x = Iota({16}, -3).
NDArray Expected() {
  NDArray x = Iota({16}, -3.0f);
  std::vector<float> want;
  for (int64_t i = 0; i < 16; ++i) want.push_back(static_cast<float>(x.GetFloat(i)) + 1 + 1);
  for (int64_t i = 0; i < 16; ++i) want.push_back(static_cast<float>(x.GetFloat(i)) * 2 + 1);
  return NDArray::FromFloats({32}, want);
}

TEST(RuntimeParts, KernelsWriteThePartsOfTheWholeALaterCallReads) {
  auto exe = Executable::Create(PartsProgram(), Kernels());
  const auto& s = exe->slots();
  EXPECT_EQ(s[1].storage, s[3].storage);
  EXPECT_EQ(s[2].storage, s[3].storage);
  EXPECT_EQ(s[1].offset, s[3].offset);
  EXPECT_EQ(s[2].offset, s[3].offset + 64);
  EXPECT_EQ(exe->memory_plan().num_intermediates, 1);  // the whole; its parts take no storage
  EXPECT_EQ(exe->memory_plan().arena_bytes, 128u);
  std::map<std::string, NDArray> in{{"x", Iota({16}, -3.0f)}};
  EXPECT_TRUE(Executor(exe).Run(in)[0].BitwiseEqual(Expected()));
  // The parts survive a file (of format version 5, which every program is written as now;
  // files of version 4, and of 3 without parts, are still read).
  EXPECT_EQ(SavedVersion(*exe), 5u);
  Program plain = PartsProgram();
  plain.slots[1].view_of = plain.slots[2].view_of = -1;
  plain.instructions = {{"add_one_k", {0, 1}, 1}};
  plain.slots[4].shape = {16};
  plain.slots[4].bytes = 64;
  plain.output_slots = {1};
  plain.slots[1].kind = SlotKind::kOutput;
  plain.slots[1].index = 0;
  plain.slots[4].kind = SlotKind::kIntermediate;
  plain.slots[4].index = -1;
  auto plain_exe = Executable::Create(plain, Kernels());
  EXPECT_EQ(SavedVersion(*plain_exe), 5u);
  for (uint32_t version : {3u, 4u, 5u})
    EXPECT_EQ(Executable::LoadFromBytes(WithVersion(plain_exe->SaveToBytes(), version))
                  ->slots()
                  .size(),
              plain.slots.size());
  ExpectError([&] { Executable::LoadFromBytes(WithVersion(plain_exe->SaveToBytes(), 6)); },
              ErrorKind::kParse, {"format version 6"});
  auto loaded = Executable::LoadFromBytes(WithVersion(exe->SaveToBytes(), 4));
  EXPECT_EQ(loaded->slots()[2].view_of, 3);
  EXPECT_EQ(loaded->slots()[2].view_offset, 64u);
  EXPECT_TRUE(Executor(loaded).Run(in)[0].BitwiseEqual(Expected()));
}

TEST(RuntimeParts, OneKernelWritesBothParts) {
  Program p = PartsProgram();
  p.instructions = {{"split_k", {0, 1, 2}, 2}, {"add_one32_k", {3, 4}, 1}};
  auto exe = Executable::Create(p, Kernels());
  std::map<std::string, NDArray> in{{"x", Iota({16}, -3.0f)}};
  EXPECT_TRUE(Executor(exe).Run(in)[0].BitwiseEqual(Expected()));
}

TEST(RuntimeParts, MisplacedPartsAreErrors) {
  auto bad = [](const std::function<void(Program&)>& edit, const char* needle) {
    Program p = PartsProgram();
    edit(p);
    ExpectError([&] { Executable::Create(p, Kernels()); }, ErrorKind::kValue, needle);
  };
  bad([](Program& p) { p.slots[2].view_offset = 0; }, "overlap or leave a gap at byte 0");
  bad([](Program& p) { p.slots[2].view_offset = 128; }, "not an aligned part of slot 3");
  bad([](Program& p) { p.slots[2].view_offset = 32; }, "not an aligned part");
  bad(
      [](Program& p) {
        p.slots[3] = MakeSlot(SlotKind::kIntermediate, 48);
        p.slots[4] = MakeSlot(SlotKind::kOutput, 48, 0);
      },
      "end at byte 128 of 192");
  bad([](Program& p) { p.slots[2].view_of = 1; }, "no part itself");
  bad([](Program& p) { p.slots[2].view_of = 0; }, "is a part of slot 0");
  bad([](Program& p) { p.slots[2].view_of = 9; }, "is a part of slot 9");
  bad([](Program& p) { p.slots[2].view_of = -2; }, "is a part of slot -2");
  bad([](Program& p) { p.slots[2].dtype = DType::kInt32; }, "of its dtype");
  // The whole is read only once every part is written, and no call writes it whole.
  bad([](Program& p) { std::swap(p.instructions[1], p.instructions[2]); },
      "reads slot 3 before it is written");
  bad([](Program& p) { p.instructions[2].args = {0, 3}; }, "made of parts");
  // One call writing a part twice would leave the other part unwritten.
  bad([](Program& p) { p.instructions = {{"split_k", {0, 1, 1}, 2}, {"add_one32_k", {3, 4}, 1}}; },
      "already written");
}

}  // namespace
}  // namespace tessera
