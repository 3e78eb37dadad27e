// The oneDNN backend's runtime module and registration: a partition compiled to a
// DnnlPlan; saved as the partition function, from which a load rebuilds the plan.
#include <omp.h>

#include <memory>
#include <mutex>
#include <sstream>

#include "dnnl_plan.h"
#include "tessera/backend/dnnl/dnnl_backend.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"
#include "tessera/target/backend_registry.h"

namespace tessera {

namespace {

class DnnlModule : public runtime::ModuleNode {
 public:
  DnnlModule(Function fn, std::string symbol, int num_threads)
      : fn_(std::move(fn)), symbol_(std::move(symbol)), num_threads_(num_threads) {
    BuildPlan(num_threads_ > 0 ? num_threads_ : omp_get_num_procs());
    LogDebug("dnnl: @" + symbol_ + " as " + std::to_string(plan_->num_steps()) + " primitive(s)");
  }

  std::string type_key() const override { return "dnnl"; }
  std::vector<std::string> ListFunctions() const override { return {symbol_}; }

  runtime::KernelFunction GetFunction(const std::string& symbol) override {
    if (symbol != symbol_) return nullptr;
    return [this](void* const* buffers, const TsKernelEnv* env) {
      std::lock_guard<std::mutex> lock(mutex_);  // the plan's memories serve one run at a time
      // Debian's libdnnl runs on OpenMP: the calling thread's team size is the knob.
      int threads = ext::ThreadsFor(num_threads_, env);
      if (threads != plan_threads_) BuildPlan(threads);
      omp_set_num_threads(threads);
      try {
        plan_->Run(buffers);
      } catch (const dnnl::error& e) {
        TS_THROW(kInternal) << "dnnl: running @" << symbol_ << " failed: " << e.what();
      }
    };
  }

  /// Builds the plan for a team of `threads`: oneDNN sizes a primitive's parallel work
  /// when the primitive is created, from the creating thread's OpenMP team size (built
  /// for all cores, a `-num_threads=1` partition still ran on two threads).
  void BuildPlan(int threads) {
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    try {
      plan_ = std::make_unique<dnnl_backend::DnnlPlan>(fn_);
    } catch (...) {
      omp_set_num_threads(saved);
      throw;
    }
    omp_set_num_threads(saved);
    plan_threads_ = threads;
  }

  std::string SaveToBytes() const override {
    std::ostringstream out;
    out << symbol_ << '\n' << num_threads_ << '\n' << ext::SavePartitionFunction(fn_);
    return out.str();
  }

 private:
  Function fn_;
  std::string symbol_;
  int num_threads_;
  std::unique_ptr<dnnl_backend::DnnlPlan> plan_;
  int plan_threads_ = 0;  // the team size plan_ was built for
  std::mutex mutex_;
};

runtime::Module LoadDnnlModule(const std::string& bytes) {
  size_t a = bytes.find('\n');
  size_t b = a == std::string::npos ? a : bytes.find('\n', a + 1);
  if (b == std::string::npos) TS_THROW(kParse) << "dnnl module: malformed header";
  int threads = 0;
  try {
    threads = std::stoi(bytes.substr(a + 1, b - a - 1));
  } catch (const std::exception&) {
    TS_THROW(kParse) << "dnnl module: malformed thread count";
  }
  return std::make_shared<DnnlModule>(ext::LoadPartitionFunction(bytes.substr(b + 1)),
                                      bytes.substr(0, a), threads);
}

}  // namespace

void RegisterDnnlBackend(BackendRegistry& registry) {
  Backend b;
  b.name = "dnnl";
  b.description =
      "oneDNN primitives (conv2d / dense / matmul with bias and post-ops, pooling, softmax, "
      "norms, elementwise) in the formats oneDNN picks";
  b.attrs = CpuTargetAttrs();
  b.external_codegen = [](const Function& fn, const std::string& symbol, const Target& target) {
    return runtime::Module(
        std::make_shared<DnnlModule>(fn, symbol, static_cast<int>(target.GetInt("num_threads"))));
  };
  b.loader = LoadDnnlModule;
  registry.Register(std::move(b));
}

}  // namespace tessera
