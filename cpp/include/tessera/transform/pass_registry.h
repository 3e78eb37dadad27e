// The pass registry (passes by name, with typed options) and the textual pipeline syntax.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/ir/attrs.h"
#include "tessera/transform/pass.h"

namespace tessera {

/// One option a registered pass accepts in a pipeline (`FuseOps{max_depth=4}`).
struct PassOption {
  std::string name;
  AttrValue::Kind kind;
  AttrValue default_value;
  std::string description;
};

/// A registered pass: how to build it from (validated) options.
struct PassRegistration {
  std::string name;
  std::string description;
  std::vector<PassOption> options;
  std::function<Pass(const Attrs& options)> factory;
};

/// Appends the transform layer's passes (InferType, PrintIR, the standard optimisations,
/// the BYOC partitioning) to the built-in table.
void AppendTransformPasses(std::vector<PassRegistration>& passes);
/// Every built-in pass of every layer, in no particular order (the registry sorts by
/// name); defined by the top-level wiring (cpp/src/registry/builtins.cc).
std::vector<PassRegistration> BuiltinPassRegistrations();

/// Registers a pass by name (throws an internal error if the name is taken).
void RegisterPass(PassRegistration registration);
/// Every registered pass, sorted by name.
std::vector<const PassRegistration*> ListPasses();
/// Builds registered pass `name` with `options` (unknown names list the registered
/// ones; unknown options and wrong kinds are value errors naming the pass and option).
Pass GetPass(std::string_view name, const Attrs& options = {});

/// Parses a textual pipeline:
///   pipeline := element (',' element)*
///   element  := NAME options? | 'Sequential' options? '(' pipeline? ')'
///   options  := '{' KEY '=' VALUE (',' KEY '=' VALUE)* '}'
/// e.g. "InferType,FoldConstant,Sequential{opt_level=2}(FuseOps{max_depth=4})". A VALUE
/// holding `,`, `}` or spaces is written in double quotes (`\"` and `\\` escape). A
/// top-level list becomes one Sequential named "pipeline". Errors are parse errors giving
/// the 1-based column.
Pass ParsePipeline(std::string_view text);
/// Prints a pass back in the same syntax; ParsePipeline(PrintPipeline(p)) prints the same.
std::string PrintPipeline(const Pass& pass);

}  // namespace tessera
