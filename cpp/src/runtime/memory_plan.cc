// The static memory plan: linear scan over the kernel calls with a free list of storages.
#include "memory_plan.h"

#include <algorithm>

namespace tessera::runtime {

namespace {

constexpr size_t kAlign = 64;  // kernels may assume NDArray's alignment

size_t AlignUp(size_t n) {
  return (n + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

MemoryPlanStats PlanMemory(std::vector<Slot>& slots, const std::vector<Instruction>& program) {
  MemoryPlanStats stats;
  std::vector<int> last_use(slots.size(), -1);
  for (size_t i = 0; i < program.size(); ++i) {
    const Instruction& ins = program[i];
    for (size_t a = 0; a < ins.args.size() - ins.num_outputs; ++a)
      last_use[ins.args[a]] = static_cast<int>(i);
  }
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
  for (size_t i = 0; i < program.size(); ++i) {
    const Instruction& ins = program[i];
    size_t first_out = ins.args.size() - ins.num_outputs;
    for (size_t a = first_out; a < ins.args.size(); ++a) {
      Slot& slot = slots[ins.args[a]];
      if (slot.kind != SlotKind::kIntermediate) continue;
      slot.storage = allocate(AlignUp(slot.bytes));
      stats.num_intermediates += 1;
      stats.total_intermediate_bytes += AlignUp(slot.bytes);
    }
    // Released only after this call's outputs are placed, so they never alias its inputs.
    std::vector<int> done;
    for (size_t a = 0; a < first_out; ++a)
      if (slots[ins.args[a]].kind == SlotKind::kIntermediate && last_use[ins.args[a]] == int(i))
        done.push_back(ins.args[a]);
    for (size_t a = first_out; a < ins.args.size(); ++a)
      if (slots[ins.args[a]].kind == SlotKind::kIntermediate && last_use[ins.args[a]] < 0)
        done.push_back(ins.args[a]);  // an output nobody reads
    std::sort(done.begin(), done.end());
    done.erase(std::unique(done.begin(), done.end()), done.end());
    for (int s : done) release(slots[s].storage);
  }
  std::vector<size_t> offset(storage_size.size());
  size_t total = 0;
  for (size_t s = 0; s < storage_size.size(); ++s) {
    offset[s] = total;
    total += storage_size[s];
  }
  for (Slot& slot : slots)
    if (slot.kind == SlotKind::kIntermediate && slot.storage >= 0)
      slot.offset = offset[slot.storage];
  stats.arena_bytes = total;
  stats.num_storages = static_cast<int>(storage_size.size());
  return stats;
}

}  // namespace tessera::runtime
