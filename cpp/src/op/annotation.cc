// BYOC region annotations: annotation.compiler_begin / compiler_end mark where a
// region for an external compiler starts and ends (identity at run time).
#include "op_defs.h"
#include "tessera/support/error.h"

namespace tessera::op_defs {

void RegisterAnnotationOps(OpRegistry& registry) {
  for (const char* name : {"annotation.compiler_begin", "annotation.compiler_end"}) {
    OpDef def;
    def.name = name;
    def.description = std::string(name) == "annotation.compiler_begin"
                          ? "marks an input of a region for external compiler `compiler`"
                          : "marks an output of a region for external compiler `compiler`";
    def.inputs = {"data"};
    def.attrs = {{"compiler", AttrType::kString, AttrValue(), "the region's compiler"}};
    def.pattern = OpPatternKind::kOpaque;
    def.type_rel = [](const std::vector<Type>& args, const Attrs&, const std::vector<Type>&) {
      return args[0];
    };
    def.kernel = [](const std::vector<NDArray>& in, const Attrs&, const Type&) { return in; };
    registry.Register(std::move(def));
  }
}

}  // namespace tessera::op_defs
