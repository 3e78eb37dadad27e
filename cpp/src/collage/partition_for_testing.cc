// PartitionForTesting: one partition from explicit indices, with nested Composites.
#include "tessera/collage/partition_for_testing.h"

#include <map>

#include "tessera/collage/sub_graph.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"
#include "tessera/ir/infer_type.h"

namespace tessera::collage {

Pass PartitionForTesting(size_t max_exits, bool allow_taps, std::string compiler,
                         std::vector<size_t> indexes, std::vector<std::string> labels) {
  if (!labels.empty() && labels.size() != indexes.size())
    TS_THROW(kValue) << "PartitionForTesting: " << labels.size() << " labels for " << indexes.size()
                     << " indexes (give one label per index, or none)";
  return CreateModulePass(
      [=](IRModule mod, const PassContext&) {
        mod = InferTypes(mod);
        Function main = mod.LookupFunction("main");
        DataflowGraph graph(main);
        IndexSet inside = IndexSetFromUser(graph, indexes, "PartitionForTesting");
        std::map<std::string, IndexSet> by_label;
        for (size_t k = 0; k < indexes.size(); ++k) {
          size_t i = indexes[k];
          const std::string label = labels.empty() ? "" : labels[k];
          if (label.empty()) continue;
          auto it = by_label.try_emplace(label, graph.EmptySet()).first;
          it->second.Add(i);
        }
        std::vector<NestedSubGraph> nested;
        for (auto& [label, set] : by_label)
          nested.push_back(
              NestedSubGraph{SubGraph(graph, set), Attrs{{attr::kComposite, AttrValue(label)}}});
        SubGraph sub_graph(graph, inside, std::move(nested));
        std::string why = sub_graph.InvalidReason(graph, SubGraphConfig{max_exits, allow_taps, 0});
        if (!why.empty()) {
          // As in TVM, an invalid sub-graph leaves the module unchanged (the tests rely on
          // it); the warning says why.
          LogWarn("PartitionForTesting: " + inside.ToString() + " is invalid (" + why +
                  "); @main is left unchanged");
          return mod;
        }
        Attrs attrs = compiler.empty() ? Attrs{{attr::kPrimitive, AttrValue(int64_t{1})}}
                                       : Attrs{{attr::kCompiler, AttrValue(compiler)}};
        Function rewritten = ParallelRewrite(graph, {NestedSubGraph{sub_graph, attrs}});
        return InferTypes(mod.WithFunction("main", rewritten));
      },
      PassInfo{"PartitionForTesting", 0, {}});
}

}  // namespace tessera::collage
