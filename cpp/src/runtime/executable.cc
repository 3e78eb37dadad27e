// Executable: a Program checked for consistency against itself and its kernels, with its
// static memory plan.
#include "tessera/runtime/executable.h"

#include <algorithm>

#include "memory_plan.h"
#include "tessera/support/error.h"

namespace tessera::runtime {

namespace {

/// Checks the slots that are parts of others (Slot::view_of): each an intermediate of an
/// intermediate whole that is no part itself, of its dtype, at a 64-byte aligned offset; the
/// parts of a whole tile it exactly. Returns, per slot, how many parts it has.
std::vector<int> CheckParts(const Program& p) {
  const int num_slots = static_cast<int>(p.slots.size());
  std::vector<std::vector<std::pair<size_t, size_t>>> ranges(num_slots);
  std::vector<int> parts(num_slots, 0);
  for (int i = 0; i < num_slots; ++i) {
    const Slot& s = p.slots[i];
    if (s.view_of == -1) continue;
    int w = s.view_of;
    if (w < 0 || w >= num_slots || w == i || s.kind != SlotKind::kIntermediate ||
        p.slots[w].kind != SlotKind::kIntermediate || p.slots[w].view_of != -1 ||
        p.slots[w].dtype != s.dtype)
      TS_THROW(kValue) << "executable: slot " << i << " is a part of slot " << w
                       << ", which is not an intermediate of its dtype that is no part itself";
    if (s.view_offset % 64 != 0 || s.view_offset > p.slots[w].bytes ||
        s.bytes > p.slots[w].bytes - s.view_offset)
      TS_THROW(kValue) << "executable: slot " << i << " at byte " << s.view_offset
                       << " is not an aligned part of slot " << w;
    ranges[w].push_back({s.view_offset, s.view_offset + s.bytes});
    parts[w] += 1;
  }
  for (int w = 0; w < num_slots; ++w) {
    if (ranges[w].empty()) continue;
    std::sort(ranges[w].begin(), ranges[w].end());
    size_t end = 0;
    for (const auto& [lo, hi] : ranges[w]) {
      if (lo != end)
        TS_THROW(kValue) << "executable: the parts of slot " << w
                         << " overlap or leave a gap at byte " << std::min(lo, end);
      end = hi;
    }
    if (end != p.slots[w].bytes)
      TS_THROW(kValue) << "executable: the parts of slot " << w << " end at byte " << end
                       << " of " << p.slots[w].bytes;
  }
  return parts;
}

/// Checks every index, size and reference of `p`, so a damaged or hand-made program is an
/// error here rather than a wild pointer in a kernel. Returns the output buffer count.
int CheckProgram(const Program& p) {
  const int num_slots = static_cast<int>(p.slots.size());
  std::vector<int> input_seen(p.input_names.size(), 0);
  std::vector<int> const_seen(p.constants.size(), 0);
  std::vector<int> output_seen(p.slots.size(), 0);
  int num_outputs = 0;
  for (int i = 0; i < num_slots; ++i) {
    const Slot& s = p.slots[i];
    int64_t n = ShapeNumElements(s.shape);
    if (n > INT64_MAX / 8 || s.bytes != static_cast<size_t>(n) * DTypeBytes(s.dtype))
      TS_THROW(kValue) << "executable: slot " << i << " has " << s.bytes
                       << " bytes, not what its shape and dtype take";
    switch (s.kind) {
      case SlotKind::kInput:
        if (s.index < 0 || s.index >= static_cast<int>(input_seen.size()) || input_seen[s.index]++)
          TS_THROW(kValue) << "executable: input slot " << i << " has a bad parameter index "
                           << s.index;
        break;
      case SlotKind::kConstant: {
        if (s.index < 0 || s.index >= static_cast<int>(const_seen.size()) || const_seen[s.index]++)
          TS_THROW(kValue) << "executable: constant slot " << i << " has a bad constant index "
                           << s.index;
        const NDArray& c = p.constants[s.index];
        if (c.shape() != s.shape || c.dtype() != s.dtype)
          TS_THROW(kValue) << "executable: constant " << s.index << " does not match slot " << i;
        break;
      }
      case SlotKind::kOutput:
        if (s.index < 0 || s.index >= num_slots || output_seen[s.index]++)
          TS_THROW(kValue) << "executable: output slot " << i << " has a bad buffer index "
                           << s.index;
        num_outputs = std::max(num_outputs, s.index + 1);
        break;
      case SlotKind::kIntermediate:
        break;
      default:
        TS_THROW(kValue) << "executable: slot " << i << " has an unknown kind";
    }
  }
  std::vector<int> parts_left = CheckParts(p);
  for (size_t i = 0; i < input_seen.size(); ++i)
    if (!input_seen[i]) TS_THROW(kValue) << "executable: parameter " << i << " has no slot";
  for (int i = 0; i < num_outputs; ++i)
    if (!output_seen[i]) TS_THROW(kValue) << "executable: output buffer " << i << " has no slot";
  std::vector<bool> defined(num_slots, false);
  for (int i = 0; i < num_slots; ++i)
    defined[i] = p.slots[i].kind == SlotKind::kInput || p.slots[i].kind == SlotKind::kConstant;
  for (size_t k = 0; k < p.instructions.size(); ++k) {
    const Instruction& ins = p.instructions[k];
    int n = static_cast<int>(ins.args.size());
    if (ins.num_outputs < 0 || ins.num_outputs > n)
      TS_THROW(kValue) << "executable: call " << k << " (" << ins.symbol
                       << ") has a bad output count";
    for (int a = 0; a < n; ++a) {
      int slot = ins.args[a];
      if (slot < 0 || slot >= num_slots)
        TS_THROW(kValue) << "executable: call " << k << " (" << ins.symbol
                         << ") names slot " << slot << " of " << num_slots;
      bool is_output = a >= n - ins.num_outputs;
      SlotKind kind = p.slots[slot].kind;
      if (is_output && (kind == SlotKind::kInput || kind == SlotKind::kConstant || defined[slot] ||
                        parts_left[slot] > 0))
        TS_THROW(kValue) << "executable: call " << k << " (" << ins.symbol << ") writes slot "
                         << slot << ", which is an input, a constant, made of parts or already "
                                    "written";
      if (!is_output && !defined[slot])
        TS_THROW(kValue) << "executable: call " << k << " (" << ins.symbol << ") reads slot "
                         << slot << " before it is written";
      if (!is_output) continue;
      // Marked here, not after the call, so a slot a call writes twice is an error above.
      defined[slot] = true;
      // A slot made of parts is written once its last part is.
      if (int whole = p.slots[slot].view_of; whole >= 0 && --parts_left[whole] == 0)
        defined[whole] = true;
    }
  }
  for (int slot : p.output_slots) {
    if (slot < 0 || slot >= num_slots || !defined[slot])
      TS_THROW(kValue) << "executable: result slot " << slot << " is never written";
    // The executor returns output buffers, inputs and constants; an intermediate's arena
    // storage is reused, so it would be a result missing from the list.
    if (p.slots[slot].kind == SlotKind::kIntermediate)
      TS_THROW(kValue) << "executable: result slot " << slot << " is an intermediate";
  }
  return num_outputs;
}

}  // namespace

std::shared_ptr<Executable> Executable::Create(Program program, Module kernels) {
  if (!kernels) TS_THROW(kValue) << "executor: no runtime module with the kernels";
  std::shared_ptr<Executable> exe(new Executable());
  exe->num_output_buffers_ = CheckProgram(program);
  exe->program_ = std::move(program);
  exe->module_ = std::move(kernels);
  for (const Instruction& ins : exe->program_.instructions)
    FindKernel(exe->module_, ins.symbol);  // fail early
  exe->plan_ = PlanMemory(exe->program_.slots, exe->program_.instructions);
  return exe;
}

void Executable::SetDefaultNumThreads(int num_threads) {
  if (num_threads < 0) TS_THROW(kValue) << "executable: num_threads must be >= 0";
  num_threads_ = num_threads;
}

std::string Executable::ModuleKindOf(const std::string& symbol) const {
  // Same search order as FindKernel: the module itself, then its imports depth first.
  std::vector<const ModuleNode*> stack{module_.get()};
  while (!stack.empty()) {
    const ModuleNode* m = stack.back();
    stack.pop_back();
    for (const std::string& s : m->ListFunctions())
      if (s == symbol) return m->type_key();
    for (auto it = m->imports.rbegin(); it != m->imports.rend(); ++it) stack.push_back(it->get());
  }
  return "?";
}

}  // namespace tessera::runtime
