// The oneDNN runtime module: a partition graph compiled to a DnnlPlan; saved as the graph,
// from which a load rebuilds the plan.
#include <omp.h>

#include <memory>
#include <mutex>

#include "dnnl_plan.h"
#include "../builtin_loaders.h"
#include "tessera/runtime/library_modules.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"

namespace tessera::runtime {

namespace {

class DnnlModule : public ModuleNode {
 public:
  DnnlModule(LibraryGraph graph, std::string symbol, int num_threads)
      : graph_(std::move(graph)), symbol_(std::move(symbol)), num_threads_(num_threads) {
    BuildPlan(num_threads_ > 0 ? num_threads_ : omp_get_num_procs());
    LogDebug("dnnl: @" + symbol_ + " as " + std::to_string(plan_->num_steps()) + " primitive(s)");
  }

  std::string type_key() const override { return "dnnl"; }
  std::vector<std::string> ListFunctions() const override { return {symbol_}; }

  KernelFunction GetFunction(const std::string& symbol) override {
    if (symbol != symbol_) return nullptr;
    return [this](void* const* buffers, const TsKernelEnv* env) {
      std::lock_guard<std::mutex> lock(mutex_);  // the plan's memories serve one run at a time
      // Debian's libdnnl runs on OpenMP: the calling thread's team size is the knob.
      int threads = ThreadsFor(num_threads_, env);
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
      plan_ = std::make_unique<dnnl_impl::DnnlPlan>(graph_);
    } catch (...) {
      omp_set_num_threads(saved);
      throw;
    }
    omp_set_num_threads(saved);
    plan_threads_ = threads;
  }

  std::string SaveToBytes() const override {
    return SaveLibraryModule(symbol_, num_threads_, graph_);
  }

 private:
  LibraryGraph graph_;
  std::string symbol_;
  int num_threads_;
  std::unique_ptr<dnnl_impl::DnnlPlan> plan_;
  int plan_threads_ = 0;  // the team size plan_ was built for
  std::mutex mutex_;
};

}  // namespace

Module LoadDnnlModule(const std::string& bytes) {
  LibraryModuleBytes m = LoadLibraryModule(bytes, "dnnl module");
  return std::make_shared<DnnlModule>(std::move(m.graph), std::move(m.symbol), m.num_threads);
}


bool HasDnnlModules() { return true; }

Module MakeDnnlModule(LibraryGraph graph, std::string symbol, int num_threads) {
  return std::make_shared<DnnlModule>(std::move(graph), std::move(symbol), num_threads);
}

}  // namespace tessera::runtime
