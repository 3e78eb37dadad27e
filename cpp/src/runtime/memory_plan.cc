// The static memory plan: linear scan over the kernel calls with a free list of storages.
#include "memory_plan.h"

#include <algorithm>

#include "tessera/support/error.h"

namespace tessera::runtime {

namespace {

constexpr size_t kAlign = 64;  // kernels may assume NDArray's alignment
/// Beyond this the arena's size (and its offsets) could wrap: a crafted file's slots.
constexpr size_t kMaxArenaBytes = size_t{1} << 48;

size_t AlignUp(size_t n) {
  return (n + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

MemoryPlanStats PlanMemory(std::vector<Slot>& slots, const std::vector<Instruction>& program) {
  MemoryPlanStats stats;
  // A part (Slot::view_of) lives in its whole's storage: the whole is placed when its first
  // part is written and released after the last call that reads or writes it or a part.
  auto root = [&](int s) { return slots[s].view_of >= 0 ? slots[s].view_of : s; };
  std::vector<int> last_event(slots.size(), -1);
  for (size_t i = 0; i < program.size(); ++i)
    for (int a : program[i].args) last_event[root(a)] = static_cast<int>(i);
  std::vector<size_t> storage_size;
  std::vector<int> free_list;  // storage ids, kept sorted for determinism
  auto allocate = [&](size_t bytes) {
    int best = -1;
    for (int s : free_list)
      if (storage_size[s] >= bytes && (best < 0 || storage_size[s] < storage_size[best])) best = s;
    if (best < 0)  // nothing fits: grow the largest free storage rather than add one
      for (int s : free_list)
        if (best < 0 || storage_size[s] > storage_size[best]) best = s;
    if (best < 0) {
      storage_size.push_back(bytes);
      return static_cast<int>(storage_size.size() - 1);
    }
    free_list.erase(std::find(free_list.begin(), free_list.end(), best));
    storage_size[best] = std::max(storage_size[best], bytes);
    return best;
  };
  auto release = [&](int storage) {
    free_list.insert(std::lower_bound(free_list.begin(), free_list.end(), storage), storage);
  };
  for (Slot& slot : slots)
    if (slot.kind == SlotKind::kIntermediate) slot.storage = -1;
  for (size_t i = 0; i < program.size(); ++i) {
    const Instruction& ins = program[i];
    size_t first_out = ins.args.size() - ins.num_outputs;
    for (size_t a = first_out; a < ins.args.size(); ++a) {
      Slot& slot = slots[root(ins.args[a])];
      if (slot.kind != SlotKind::kIntermediate || slot.storage >= 0) continue;
      slot.storage = allocate(AlignUp(slot.bytes));
      stats.num_intermediates += 1;
      stats.total_intermediate_bytes += AlignUp(slot.bytes);
    }
    // Released only after this call's outputs are placed, so they never alias its inputs.
    std::vector<int> done;
    for (int a : ins.args)
      if (slots[root(a)].kind == SlotKind::kIntermediate && last_event[root(a)] == int(i))
        done.push_back(root(a));
    std::sort(done.begin(), done.end());
    done.erase(std::unique(done.begin(), done.end()), done.end());
    for (int s : done)
      if (slots[s].storage >= 0) release(slots[s].storage);
  }
  std::vector<size_t> offset(storage_size.size());
  size_t total = 0;
  for (size_t s = 0; s < storage_size.size(); ++s) {
    offset[s] = total;
    if (storage_size[s] > kMaxArenaBytes - total)
      TS_THROW(kValue) << "executable: the intermediates need more than " << kMaxArenaBytes
                       << " bytes at once";
    total += storage_size[s];
  }
  for (Slot& slot : slots)
    if (slot.kind == SlotKind::kIntermediate && slot.view_of < 0 && slot.storage >= 0)
      slot.offset = offset[slot.storage];
  for (Slot& slot : slots)
    if (slot.kind == SlotKind::kIntermediate && slot.view_of >= 0) {
      slot.storage = slots[slot.view_of].storage;
      slot.offset = slots[slot.view_of].offset + slot.view_offset;
    }
  stats.arena_bytes = total;
  stats.num_storages = static_cast<int>(storage_size.size());
  return stats;
}

}  // namespace tessera::runtime
