// The oneDNN backend's registration: `Compiler="dnnl"` partitions flattened into the
// runtime's oneDNN module.
#include "tessera/backend/dnnl/dnnl_backend.h"

#include "../extern/flatten_partition.h"
#include "dnnl_layout_transform.h"
#include "tessera/runtime/library_modules.h"
#include "tessera/support/error.h"
#include "tessera/target/backend_registry.h"

namespace tessera {

namespace {

/// The runtime knows no index maps: each layout_transform gets the data layouts it converts
/// between (src_layout, dst_layout), proved here on its map.
runtime::LibraryGraph NameLayoutTransforms(runtime::LibraryGraph g) {
  for (runtime::LibraryNode& n : g.nodes) {
    if (n.kind != runtime::LibraryNode::Kind::kOp || n.op != "layout_transform") continue;
    std::string map = n.attrs.Has("index_map") ? n.attrs.GetString("index_map") : "";
    std::string src, dst;
    if (n.inputs.size() != 1 ||
        !dnnl_backend::DataLayoutConversion(map, g.nodes[n.inputs[0]].shape, n.shape, &src, &dst))
      TS_THROW(kUnsupported) << "backend 'dnnl': layout_transform '" << map
                             << "' is not a conversion between NCHW and NCHW{x}c without padding";
    n.attrs.Set("src_layout", src);
    n.attrs.Set("dst_layout", dst);
  }
  return g;
}

}  // namespace

void RegisterDnnlBackend(BackendRegistry& registry) {
  Backend b;
  b.name = "dnnl";
  b.description =
      "oneDNN primitives (conv2d / dense / matmul with bias and post-ops, pooling, softmax, "
      "norms, elementwise) in the formats oneDNN picks, or on channel-blocked NCHW{x}c "
      "tensors in place";
  b.attrs = CpuTargetAttrs();
  b.external_codegen = [](const Function& fn, const std::string& symbol, const Target& target) {
    return runtime::MakeDnnlModule(NameLayoutTransforms(ext::FlattenPartition(fn, "dnnl")), symbol,
                                   static_cast<int>(target.GetInt("num_threads")));
  };
  b.identity = [] { return "oneDNN " + runtime::DnnlVersion(); };
  b.runtime_identity = b.identity;
  registry.Register(std::move(b));
}

}  // namespace tessera
