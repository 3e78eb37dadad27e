// Running an Executable: input checks, the preplanned arena and the kernel calls.
#include <chrono>
#include <cstring>
#include <random>

#include "tessera/runtime/executable.h"
#include "tessera/support/error.h"

namespace tessera::runtime {

namespace {

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

std::string TypeText(const std::vector<int64_t>& shape, DType dtype) {
  return std::string(DTypeName(dtype)) + ShapeToString(shape);
}

}  // namespace

std::map<std::string, NDArray> RandomInputs(const Executable& exe, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::map<std::string, NDArray> inputs;
  for (const Slot& s : exe.slots()) {
    if (s.kind != SlotKind::kInput) continue;
    NDArray a = NDArray::Zeros(s.shape, s.dtype);
    if (s.dtype == DType::kFloat32) {
      float* p = a.data_as<float>();
      for (int64_t i = 0, n = a.NumElements(); i < n; ++i) p[i] = uniform(rng);
    } else if (IsFloat(s.dtype)) {
      for (int64_t i = 0, n = a.NumElements(); i < n; ++i) a.SetFloat(i, uniform(rng));
    }
    inputs[exe.input_names()[s.index]] = a;
  }
  return inputs;
}

Executor::Executor(std::shared_ptr<const Executable> exe, ExecutorOptions options)
    : exe_(std::move(exe)) {
  if (!exe_) TS_THROW(kValue) << "executor: no executable";
  int threads = options.num_threads > 0 ? options.num_threads : exe_->default_num_threads();
  pool_ = options.pool ? options.pool : std::make_shared<ThreadPool>(threads);
  env_ = KernelEnvFor(pool_.get());
  for (const Instruction& ins : exe_->program_.instructions)
    kernels_.push_back(FindKernel(exe_->module_, ins.symbol));
  states_.Put(NewState());  // the first call's memory, allocated up front
}

Executor::~Executor() = default;

Executor::RunState Executor::NewState() const {
  RunState state;
  state.env = env_;
  // One allocation for every intermediate; never resized.
  state.arena = NDArray::Empty({static_cast<int64_t>(exe_->plan_.arena_bytes) + 64}, DType::kUInt8);
  char* base = static_cast<char*>(state.arena.data());
  for (const Instruction& ins : exe_->program_.instructions) {
    std::vector<void*> bufs(ins.args.size(), nullptr);
    for (size_t a = 0; a < ins.args.size(); ++a) {
      const Slot& s = exe_->program_.slots[ins.args[a]];
      if (s.kind == SlotKind::kIntermediate) bufs[a] = base + s.offset;
      if (s.kind == SlotKind::kConstant) bufs[a] = exe_->program_.constants[s.index].data();
    }
    state.buffers.push_back(std::move(bufs));
  }
  return state;
}

std::vector<NDArray> Executor::RunImpl(const std::map<std::string, NDArray>& inputs,
                                       std::vector<double>* kernel_ms,
                                       std::vector<NDArray>* reuse_outputs) {
  const Executable& exe = *exe_;
  const std::vector<std::string>& names = exe.program_.input_names;
  std::vector<const NDArray*> given(names.size(), nullptr);
  for (const auto& [name, array] : inputs) {
    size_t i = 0;
    while (i < names.size() && names[i] != name) ++i;
    if (i == names.size())
      TS_THROW(kValue) << "unknown input '" << name << "' (expected: " << Join(names) << ")";
    given[i] = &array;
  }
  for (const Slot& s : exe.program_.slots) {
    if (s.kind != SlotKind::kInput) continue;
    const std::string& name = names[s.index];
    const NDArray* a = given[s.index];
    if (!a) TS_THROW(kValue) << "missing input '" << name << "' (expected: " << Join(names) << ")";
    if (a->shape() != s.shape || a->dtype() != s.dtype)
      TS_THROW(kType) << "input '" << name << "': expected " << TypeText(s.shape, s.dtype)
                      << ", got " << TypeText(a->shape(), a->dtype());
    if (!a->defined() && s.bytes > 0) TS_THROW(kValue) << "input '" << name << "' has no data";
  }
  std::vector<NDArray> fresh;
  std::vector<NDArray>& out_buffers = reuse_outputs ? *reuse_outputs : fresh;
  if (out_buffers.size() != static_cast<size_t>(exe.num_output_buffers_)) {
    out_buffers.assign(exe.num_output_buffers_, NDArray());
    for (const Slot& s : exe.program_.slots)
      if (s.kind == SlotKind::kOutput) out_buffers[s.index] = NDArray::Empty(s.shape, s.dtype);
  }

  auto state = states_.Take([this] { return NewState(); });  // a concurrent call: its own arena
  state->env.reverse = !state->env.reverse;
  for (size_t i = 0; i < exe.program_.instructions.size(); ++i) {
    const Instruction& ins = exe.program_.instructions[i];
    std::vector<void*>& bufs = state->buffers[i];
    for (size_t a = 0; a < ins.args.size(); ++a) {
      const Slot& s = exe.program_.slots[ins.args[a]];
      if (s.kind == SlotKind::kInput) bufs[a] = given[s.index]->data();
      if (s.kind == SlotKind::kOutput) bufs[a] = out_buffers[s.index].data();
    }
    auto start = std::chrono::steady_clock::now();
    try {
      kernels_[i](bufs.data(), &state->env);
    } catch (const Error& err) {
      throw Error(err.kind(), "kernel '" + ins.symbol + "': " + err.what());
    }
    if (kernel_ms)
      (*kernel_ms)[i] +=
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
  }
  std::vector<NDArray> results;
  for (int slot : exe.program_.output_slots) {
    const Slot& s = exe.program_.slots[slot];
    if (s.kind == SlotKind::kOutput) results.push_back(out_buffers[s.index]);
    if (s.kind == SlotKind::kInput) results.push_back(given[s.index]->Copy());
    if (s.kind == SlotKind::kConstant) results.push_back(exe.program_.constants[s.index].Copy());
  }
  return results;
}

std::vector<NDArray> Executor::RunInto(const std::map<std::string, NDArray>& inputs,
                                       void* const* outputs) {
  const Executable& exe = *exe_;
  // Direct when each flattened output is an output buffer of its own; otherwise (an
  // output that is an input, a constant or repeated) run, then copy.
  std::vector<NDArray> buffers(exe.num_output_buffers_);
  bool direct = true;
  for (size_t k = 0; k < exe.program_.output_slots.size(); ++k) {
    const Slot& s = exe.program_.slots[exe.program_.output_slots[k]];
    if (s.kind != SlotKind::kOutput || buffers[s.index].defined()) {
      direct = false;
      break;
    }
    buffers[s.index] = NDArray::FromBorrowed(outputs[k], s.shape, s.dtype);
  }
  for (const NDArray& b : buffers) direct = direct && b.defined();
  if (direct) return RunImpl(inputs, nullptr, &buffers);
  std::vector<NDArray> results = RunImpl(inputs, nullptr);
  std::vector<NDArray> out;
  for (size_t k = 0; k < results.size(); ++k) {
    std::memcpy(outputs[k], results[k].data(), results[k].NumBytes());
    out.push_back(NDArray::FromBorrowed(outputs[k], results[k].shape(), results[k].dtype()));
  }
  return out;
}

std::vector<NDArray> Executor::Run(const std::map<std::string, NDArray>& inputs) {
  return RunImpl(inputs, nullptr);
}

}  // namespace tessera::runtime
