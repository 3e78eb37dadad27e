// ExecutableModuleNode: an Executable run as one kernel, on the caller's buffers.
#include "tessera/runtime/executable_module.h"

#include <cstring>

#include "tessera/support/error.h"

namespace tessera::runtime {

namespace {
constexpr char kMagic[] = "TSEXEMOD1\n";
}  // namespace

ExecutableModuleNode::ExecutableModuleNode(std::shared_ptr<Executable> exe, std::string symbol)
    : exe_(std::move(exe)), symbol_(std::move(symbol)) {
  if (!exe_) TS_THROW(kValue) << "executable module: no executable";
  if (symbol_.empty() || symbol_.find('\n') != std::string::npos)
    TS_THROW(kValue) << "executable module: bad symbol '" << symbol_ << "'";
  // The parameters' slots in order, looked up once (every kernel call needs them).
  input_slots_.assign(exe_->input_names().size(), nullptr);
  for (const Slot& s : exe_->slots())
    if (s.kind == SlotKind::kInput) input_slots_[s.index] = &s;
  for (size_t i = 0; i < input_slots_.size(); ++i)
    if (!input_slots_[i]) TS_THROW(kInternal) << "executable module: parameter " << i << " has no slot";
}

Executor& ExecutableModuleNode::ExecutorFor(const TsKernelEnv* env) {
  void* pool = env ? env->pool : nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = executors_.find(pool);
  if (it != executors_.end()) return *it->second;
  ExecutorOptions options;
  if (pool)  // the caller's pool, not owned: it outlives the caller's kernel calls
    options.pool = std::shared_ptr<ThreadPool>(static_cast<ThreadPool*>(pool), [](ThreadPool*) {});
  else
    options.num_threads = 1;
  return *executors_.emplace(pool, std::make_unique<Executor>(exe_, options)).first->second;
}

KernelFunction ExecutableModuleNode::GetFunction(const std::string& symbol) {
  if (symbol != symbol_) return nullptr;
  return [this](void* const* buffers, const TsKernelEnv* env) {
    std::map<std::string, NDArray> inputs;
    for (size_t i = 0; i < input_slots_.size(); ++i)
      inputs[exe_->input_names()[i]] =
          NDArray::FromBorrowed(buffers[i], input_slots_[i]->shape, input_slots_[i]->dtype);
    ExecutorFor(env).RunInto(inputs, buffers + input_slots_.size());
  };
}

std::string ExecutableModuleNode::SaveToBytes() const {
  return std::string(kMagic) + symbol_ + "\n" + exe_->SaveToBytes();
}

Module LoadExecutableModule(const std::string& bytes) {
  size_t magic = std::strlen(kMagic);
  if (bytes.compare(0, magic, kMagic) != 0)
    TS_THROW(kParse) << "not an executable module (no header)";
  size_t eol = bytes.find('\n', magic);
  if (eol == std::string::npos) TS_THROW(kParse) << "executable module bytes are truncated";
  std::string symbol = bytes.substr(magic, eol - magic);
  return std::make_shared<ExecutableModuleNode>(Executable::LoadFromBytes(bytes.substr(eol + 1)),
                                                symbol);
}

}  // namespace tessera::runtime
