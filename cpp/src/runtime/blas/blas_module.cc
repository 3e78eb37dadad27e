// The BLAS runtime module: a partition's dense / matmul / batch_matmul (+ bias, + relu) run
// as cblas_sgemm calls; the module saves the partition graph and replans at load.
#include <cblas.h>

#include <atomic>
#include <cstring>

#include "../builtin_loaders.h"
#include "tessera/runtime/library_modules.h"
#include "tessera/runtime/object_pool.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"

namespace tessera::runtime {

namespace {

/// One GEMM (batched) with its fused bias and relu.
struct GemmStep {
  int a = -1, b = -1, out = -1;  // nodes read and written
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool ta = false, tb = false;
  int64_t a_stride = 0, b_stride = 0;  // elements between batches (0 broadcasts)
  int bias = -1;                       // constant node of n values, or -1
  bool relu = false;
};

int64_t Prod(const std::vector<int64_t>& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= s[i];
  return p;
}

bool AttrBool(const KernelAttrs& a, const char* key, bool def) {
  return a.Has(key) ? a.GetBool(key) : def;
}

/// The plan of one partition: GEMM steps over the nodes of its flattened graph.
struct BlasPlan {
  LibraryGraph g;
  std::vector<GemmStep> steps;

  explicit BlasPlan(LibraryGraph graph) : g(std::move(graph)) {
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].dtype != DType::kFloat32)  // sgemm reads 4-byte elements
        TS_THROW(kValue) << "backend 'blas': node " << i << " is " << DTypeName(g.nodes[i].dtype)
                         << "; the module runs float32 only";
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const LibraryNode& n = g.nodes[i];
      if (n.kind != LibraryNode::Kind::kOp) continue;
      int id = static_cast<int>(i);
      if (n.op == "nn.dense" || n.op == "nn.matmul" || n.op == "nn.batch_matmul") {
        steps.push_back(Anchor(n, id));
        continue;
      }
      GemmStep* last = steps.empty() ? nullptr : &steps.back();
      bool follows =
          last && n.inputs.size() >= 1 && n.inputs[0] == last->out && g.nodes[last->out].uses == 1;
      if (follows && !last->relu && last->bias < 0 && IsBias(n, *last)) {
        last->bias = n.inputs[1];
        last->out = id;
        continue;
      }
      if (follows && !last->relu && n.op == "nn.relu") {
        last->relu = true;
        last->out = id;
        continue;
      }
      TS_THROW(kUnsupported) << "backend 'blas' cannot run op '" << n.op
                             << "' here: it runs nn.dense, nn.matmul and nn.batch_matmul, each "
                                "optionally followed by a constant bias and nn.relu";
    }
    for (int o : g.outputs)
      if (g.nodes[o].kind != LibraryNode::Kind::kOp)
        TS_THROW(kUnsupported) << "backend 'blas': a partition result must be computed by it";
  }

  bool IsBias(const LibraryNode& n, const GemmStep& s) const {
    if (n.inputs.size() != 2 || g.nodes[n.inputs[1]].kind != LibraryNode::Kind::kConstant)
      return false;
    const LibraryNode& b = g.nodes[n.inputs[1]];
    int64_t numel = ShapeNumElements(b.shape);
    int rank = static_cast<int>(n.shape.size());
    if (n.op == "nn.bias_add") {
      int64_t axis = n.attrs.Has("axis") ? n.attrs.GetInt("axis") : 1;
      if (axis < 0) axis += rank;
      return axis == rank - 1 && numel == s.n;
    }
    if (n.op != "add" || b.shape.empty() || b.shape.back() != s.n || numel != s.n) return false;
    return b.shape.size() <= n.shape.size();  // broadcasts along the last axis only
  }

  GemmStep Anchor(const LibraryNode& n, int id) const {
    // A partition from a damaged file must be an error, never a read outside its arrays.
    if (n.inputs.size() != 2)
      TS_THROW(kValue) << "backend 'blas': node " << id << " (" << n.op << ") has "
                       << n.inputs.size() << " input(s), needs 2";
    for (int v : {n.inputs[0], n.inputs[1], id})
      if ((v == id ? n.shape : g.nodes[static_cast<size_t>(v)].shape).size() < 2)
        TS_THROW(kValue) << "backend 'blas': node " << id << " (" << n.op
                         << ") has an operand of rank below 2";
    GemmStep s = Gemm(n, id);
    // The GEMM must cover exactly its operands' elements (a broadcast batch reads one).
    const auto& as = g.nodes[static_cast<size_t>(s.a)].shape;
    const auto& bs = g.nodes[static_cast<size_t>(s.b)].shape;
    int64_t a_batches = s.a_stride == 0 && s.batch > 1 ? 1 : s.batch;
    int64_t b_batches = s.b_stride == 0 && s.batch > 1 ? 1 : s.batch;
    bool fits = s.m > 0 && s.n > 0 && s.k > 0 && ShapeNumElements(as) == a_batches * s.m * s.k &&
                ShapeNumElements(bs) == (n.op == "nn.batch_matmul" ? b_batches : 1) * s.k * s.n &&
                ShapeNumElements(n.shape) == s.batch * s.m * s.n;
    if (!fits)
      TS_THROW(kValue) << "backend 'blas': node " << id << " (" << n.op << ") has shapes "
                       << ShapeToString(as) << " x " << ShapeToString(bs) << " -> "
                       << ShapeToString(n.shape) << " that are not one GEMM";
    return s;
  }

  GemmStep Gemm(const LibraryNode& n, int id) const {
    GemmStep s;
    s.a = n.inputs[0];
    s.b = n.inputs[1];
    s.out = id;
    const auto& as = g.nodes[s.a].shape;
    const auto& bs = g.nodes[s.b].shape;
    const auto& os = n.shape;
    size_t r = os.size();
    s.n = os[r - 1];
    if (n.op == "nn.dense") {
      s.k = as.back();
      s.m = Prod(as, 0, as.size() - 1);
      s.tb = true;
    } else if (n.op == "nn.matmul") {
      s.ta = AttrBool(n.attrs, "transpose_a", false);
      s.tb = AttrBool(n.attrs, "transpose_b", false);
      s.k = s.tb ? bs[1] : bs[0];
      if (!s.ta) {
        s.m = Prod(as, 0, as.size() - 1);
      } else {
        s.m = as.back();
        s.batch = Prod(as, 0, as.size() - 2);
        s.a_stride = s.m * s.k;
      }
    } else {
      s.ta = AttrBool(n.attrs, "transpose_a", false);
      s.tb = AttrBool(n.attrs, "transpose_b", true);
      s.m = os[r - 2];
      s.k = s.ta ? as[as.size() - 2] : as.back();
      s.batch = os[0];
      s.a_stride = as[0] == 1 ? 0 : s.m * s.k;
      s.b_stride = bs[0] == 1 ? 0 : s.n * s.k;
    }
    return s;
  }
};

std::atomic<int> g_blas_threads{-1};

class BlasModule : public ModuleNode {
 public:
  BlasModule(LibraryGraph graph, std::string symbol, int num_threads)
      : symbol_(std::move(symbol)), num_threads_(num_threads), plan_(std::move(graph)) {
    scratch_.Put(NewScratch());
    LogDebug("blas: @" + symbol_ + " with " + std::to_string(plan_.steps.size()) +
             " GEMM(s) on OpenBLAS core " + BlasCoreName());
  }

  std::string type_key() const override { return "blas"; }
  std::vector<std::string> ListFunctions() const override { return {symbol_}; }

  KernelFunction GetFunction(const std::string& symbol) override {
    if (symbol != symbol_) return nullptr;
    return [this](void* const* buffers, const TsKernelEnv* env) { Run(buffers, env); };
  }

  std::string SaveToBytes() const override {
    return SaveLibraryModule(symbol_, num_threads_, plan_.g);
  }

 private:
  using Scratch = std::map<int, NDArray>;  // intermediate node -> its buffer

  /// Buffers for the intermediates of one call (kept and reused: no allocation per run).
  Scratch NewScratch() const {
    Scratch scratch;
    for (const GemmStep& s : plan_.steps) {
      bool is_output = false;
      for (int o : plan_.g.outputs) is_output |= o == s.out;
      if (!is_output)
        scratch.emplace(s.out, NDArray::Empty(plan_.g.nodes[s.out].shape, DType::kFloat32));
    }
    return scratch;
  }

  float* Ptr(int node, void* const* buffers, Scratch& scratch) const {
    const LibraryNode& n = plan_.g.nodes[node];
    if (n.kind == LibraryNode::Kind::kParam) return static_cast<float*>(buffers[n.param]);
    if (n.kind == LibraryNode::Kind::kConstant) return static_cast<float*>(n.data.data());
    for (size_t o = 0; o < plan_.g.outputs.size(); ++o)
      if (plan_.g.outputs[o] == node) return static_cast<float*>(buffers[plan_.g.num_params + o]);
    return static_cast<float*>(scratch.at(node).data());
  }

  void Run(void* const* buffers, const TsKernelEnv* env) {
    // Concurrent calls each take scratch of their own.
    auto scratch = scratch_.Take([this] { return NewScratch(); });
    RunWith(buffers, env, *scratch);
  }

  void RunWith(void* const* buffers, const TsKernelEnv* env, Scratch& scratch) {
    int threads = ThreadsFor(num_threads_, env);
    if (g_blas_threads.exchange(threads) != threads) openblas_set_num_threads(threads);
    for (const GemmStep& s : plan_.steps) {
      const float* a = Ptr(s.a, buffers, scratch);
      const float* b = Ptr(s.b, buffers, scratch);
      float* c = Ptr(s.out, buffers, scratch);
      float beta = 0.f;
      if (s.bias >= 0) {
        // The bias pre-broadcast into C, accumulated by the GEMM (beta = 1).
        const float* bias = Ptr(s.bias, buffers, scratch);
        for (int64_t row = 0; row < s.batch * s.m; ++row)
          std::memcpy(c + row * s.n, bias, sizeof(float) * s.n);
        beta = 1.f;
      }
      for (int64_t i = 0; i < s.batch; ++i)
        cblas_sgemm(
            CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans, s.tb ? CblasTrans : CblasNoTrans,
            static_cast<int>(s.m), static_cast<int>(s.n), static_cast<int>(s.k), 1.f,
            a + i * s.a_stride, static_cast<int>(s.ta ? s.m : s.k), b + i * s.b_stride,
            static_cast<int>(s.tb ? s.k : s.n), beta, c + i * s.m * s.n, static_cast<int>(s.n));
      if (s.relu)
        for (int64_t i = 0, e = s.batch * s.m * s.n; i < e; ++i) c[i] = c[i] > 0.f ? c[i] : 0.f;
    }
  }

  std::string symbol_;
  int num_threads_;
  BlasPlan plan_;
  ObjectPool<Scratch> scratch_;  // scratch no call is using
};

}  // namespace

Module LoadBlasModule(const std::string& bytes) {
  LibraryModuleBytes m = LoadLibraryModule(bytes, "blas module");
  return std::make_shared<BlasModule>(std::move(m.graph), std::move(m.symbol), m.num_threads);
}


std::string BlasCoreName() {
  const char* name = openblas_get_corename();
  return name ? name : "unknown";
}

std::string BlasConfig() {
  const char* cfg = openblas_get_config();
  return cfg ? cfg : "unknown";
}

bool HasBlasModules() { return true; }

Module MakeBlasModule(LibraryGraph graph, std::string symbol, int num_threads) {
  return std::make_shared<BlasModule>(std::move(graph), std::move(symbol), num_threads);
}

}  // namespace tessera::runtime
