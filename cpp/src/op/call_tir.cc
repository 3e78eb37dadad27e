// call_tir: the destination-passing call from a graph function into a PrimFunc.
#include "op_defs.h"
#include "tessera/support/error.h"

namespace tessera::op_defs {

void RegisterCallTir(OpRegistry& registry) {
  OpDef def;
  def.name = kCallTirOp;
  def.description =
      "calls PrimFunc @f with the tuple of inputs; the runtime allocates the "
      "outputs of type out_type and passes them as trailing buffers";
  def.inputs = {"func", "args"};
  def.pattern = OpPatternKind::kOpaque;
  // Checking the arguments against the PrimFunc's buffers needs the module, so type
  // inference does that; the relation only reads the declared output type.
  def.type_rel = [](const std::vector<Type>&, const Attrs&, const std::vector<Type>& type_args) {
    if (type_args.size() != 1 || !type_args[0])
      TS_THROW(kType) << "call_tir needs exactly one output type, got " << type_args.size();
    return type_args[0];
  };
  registry.Register(std::move(def));
}

}  // namespace tessera::op_defs
