// The oneDNN runtime module: a library graph compiled to DnnlPlans (one per concurrent
// call); saved as the graph, from which a load rebuilds the plan.
#include <omp.h>

#include <memory>

#include "dnnl_plan.h"
#include "../builtin_loaders.h"
#include "tessera/runtime/library_modules.h"
#include "tessera/runtime/object_pool.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"

namespace tessera::runtime {

namespace {

class DnnlModule : public ModuleNode {
 public:
  DnnlModule(LibraryGraph graph, std::string symbol, int num_threads)
      : graph_(std::move(graph)), symbol_(std::move(symbol)), num_threads_(num_threads) {
    // One plan up front (it also reports a partition oneDNN rejects, at build time).
    Plan first = BuildPlan(num_threads_ > 0 ? num_threads_ : omp_get_num_procs());
    LogDebug("dnnl: @" + symbol_ + " as " + std::to_string(first.plan->num_steps()) +
             " primitive(s), " + std::to_string(first.plan->num_run_reorders()) +
             " of them reorders");
    plans_.Put(std::move(first));
  }

  std::string type_key() const override { return "dnnl"; }
  std::vector<std::string> ListFunctions() const override { return {symbol_}; }

  KernelFunction GetFunction(const std::string& symbol) override {
    if (symbol != symbol_) return nullptr;
    return [this](void* const* buffers, const TsKernelEnv* env) {
      // Debian's libdnnl runs on OpenMP: the calling thread's team size is the knob.
      int threads = ThreadsFor(num_threads_, env);
      // A plan's memories serve one call at a time: concurrent calls each take their own.
      auto plan = plans_.Take([&] { return BuildPlan(threads); });
      if (plan->threads != threads) *plan = BuildPlan(threads);  // made for another team
      omp_set_num_threads(threads);
      try {
        plan->plan->Run(buffers);
      } catch (const dnnl::error& e) {
        TS_THROW(kInternal) << "dnnl: running @" << symbol_ << " failed: " << e.what();
      }
    };
  }

  std::string SaveToBytes() const override {
    return SaveLibraryModule(symbol_, num_threads_, graph_);
  }

 private:
  /// A plan and the OpenMP team size it was built for.
  struct Plan {
    std::unique_ptr<dnnl_impl::DnnlPlan> plan;
    int threads = 0;
  };

  /// Builds a plan for a team of `threads`: oneDNN sizes a primitive's parallel work when
  /// the primitive is created, from the creating thread's OpenMP team size (built for all
  /// cores, a `-num_threads=1` partition still ran on two threads).
  Plan BuildPlan(int threads) const {
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    Plan p;
    try {
      p.plan = std::make_unique<dnnl_impl::DnnlPlan>(graph_);
    } catch (...) {
      omp_set_num_threads(saved);
      throw;
    }
    omp_set_num_threads(saved);
    p.threads = threads;
    return p;
  }

  LibraryGraph graph_;
  std::string symbol_;
  int num_threads_;
  ObjectPool<Plan> plans_;  // plans no call is running
};

}  // namespace

Module LoadDnnlModule(const std::string& bytes) {
  LibraryModuleBytes m = LoadLibraryModule(bytes, "dnnl module");
  return std::make_shared<DnnlModule>(std::move(m.graph), std::move(m.symbol), m.num_threads);
}


bool HasDnnlModules() { return true; }

std::string DnnlVersion() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) +
         " (commit " + v->hash + ", cpu runtime " + std::to_string(v->cpu_runtime) + ")";
}

std::vector<DnnlStep> DescribeDnnlPlan(const LibraryGraph& graph) {
  return dnnl_impl::DnnlPlan(graph).Describe();
}

Module MakeDnnlModule(LibraryGraph graph, std::string symbol, int num_threads) {
  return std::make_shared<DnnlModule>(std::move(graph), std::move(symbol), num_threads);
}

}  // namespace tessera::runtime
