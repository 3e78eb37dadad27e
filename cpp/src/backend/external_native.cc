// External backends compiled by the native code generator: registration and the
// partition compiler (Composite functions inlined, the partition built as a program).
#include "tessera/backend/external_native.h"

#include <set>
#include <unordered_map>

#include "tessera/backend/build.h"
#include "tessera/backend/native/codegen_c.h"
#include "tessera/backend/native/compiler.h"
#include "tessera/backend/native/native_backend.h"
#include "tessera/runtime/native_module.h"
#include "tessera/backend/lower/lower_to_tir.h"
#include "tessera/ir/visitor.h"
#include "tessera/runtime/executable_module.h"
#include "tessera/support/error.h"
#include "tessera/target/backend_registry.h"
#include "tessera/ir/infer_type.h"

namespace tessera {

namespace {

/// Replaces every call of a Composite function literal by the function's body.
class CompositeInliner : public ExprMutator {
 protected:
  Expr Rewrite(const Expr&, const Expr& rebuilt) override {
    const auto* call = rebuilt.as<CallNode>();
    const auto* fn = call ? call->callee.as<FunctionNode>() : nullptr;
    if (!fn || !fn->attrs.Has(attr::kComposite)) return rebuilt;
    std::unordered_map<const VarNode*, Expr> bind;
    for (size_t i = 0; i < fn->params.size() && i < call->args.size(); ++i)
      bind[fn->params[i].get()] = call->args[i];
    return Substitute(fn->body, bind);
  }
};

}  // namespace

runtime::Module CompilePartitionNatively(const Function& func, const std::string& symbol,
                                         const Target& target) {
  Attrs attrs{{attr::kPrimitive, AttrValue(int64_t{1})}};
  Function kernel =
      MakeFunction(func->params, CompositeInliner().Mutate(func->body), func->ret_type, attrs);
  // @main takes the kernel ABI's buffers: every parameter, tuples flattened.
  std::vector<Var> params;
  std::vector<Expr> args;
  for (const Var& p : func->params) {
    Type t = p->type_annotation.defined() ? p->type_annotation : p->checked_type_or_null();
    if (const auto* tt = t.as<TupleTypeNode>()) {
      std::vector<Expr> fields;
      for (const Type& f : tt->fields) {
        params.push_back(MakeVar("p" + std::to_string(params.size()), f));
        fields.push_back(params.back());
      }
      args.push_back(MakeTuple(std::move(fields)));
    } else {
      params.push_back(MakeVar("p" + std::to_string(params.size()), t));
      args.push_back(params.back());
    }
  }
  IRModule mod = InferTypes(IRModule::FromExpr(MakeFunction(params, MakeCall(kernel, args))));
  // The partition's options that the native generator also has (threads, the serial
  // threshold) carry over to the native build of its kernels.
  Target host("native");
  for (const char* option : {"num_threads", "min_parallel_work"})
    if (target.HasAttr(option) && target.attrs().count(option))
      host.Set(option, std::to_string(target.GetInt(option)));
  auto exe = BuildLowered(LowerModuleToTIR(mod), {host});
  return std::make_shared<runtime::ExecutableModuleNode>(exe, symbol);
}

namespace {

/// The kernel `c_source` writes for `func`, compiled and exported as `symbol`.
runtime::Module CompilePartitionC(const PartitionCSource& c_source, const Function& func,
                                  const std::string& symbol) {
  std::string c_name = native::CSymbolNames({symbol}).front();
  std::string source = native::KernelAbiDeclarations() + "\n" + c_source(func, c_name);
  std::string object = native::CompileSharedObject(source);
  return std::make_shared<runtime::NativeModuleNode>(
      std::move(object), std::vector<std::pair<std::string, std::string>>{{symbol, c_name}},
      std::move(source));
}

}  // namespace

void RegisterExternalBackend(const std::string& name, std::vector<PatternTableEntry> patterns,
                             const std::string& compile_with, PartitionCSource c_source) {
  if (name.empty() || name.find_first_of(" .;,=") != std::string::npos)
    TS_THROW(kValue) << "external backend name '" << name
                     << "' must be non-empty without spaces, dots, commas, ';' or '='";
  if (BackendRegistry::IsBuiltinName(name))
    TS_THROW(kValue) << "backend '" << name << "' is built in and cannot be replaced";
  if (compile_with != "native" && compile_with != "c")
    TS_THROW(kValue) << "external backend '" << name
                     << "': compile_with must be \"native\" or \"c\", got '" << compile_with << "'";
  if ((compile_with == "c") != static_cast<bool>(c_source))
    TS_THROW(kValue) << "external backend '" << name << "': "
                     << (c_source ? "a C source function needs compile_with \"c\""
                                  : "compile_with \"c\" needs a function writing each kernel's C");
  if (patterns.empty())
    TS_THROW(kValue) << "external backend '" << name
                     << "' needs at least one (label, pattern) entry: it takes only what its "
                        "patterns match";
  std::set<std::string> labels;
  for (PatternTableEntry& e : patterns) {
    if (e.label.rfind(name + ".", 0) != 0) e.label = name + "." + e.label;
    if (!e.pattern.defined()) TS_THROW(kValue) << "external backend '" << name << "': pattern '"
                                               << e.label << "' is None";
    if (!labels.insert(e.label).second)
      TS_THROW(kValue) << "external backend '" << name << "': label '" << e.label
                       << "' is given twice";
  }
  // The table first: if it is refused, no backend without patterns is left behind.
  PatternTableRegistry::Global().ReplacePatterns(name, patterns);
  Backend b;
  b.name = name;
  b.attrs = {CpuTargetAttrs().front()};  // num_threads
  if (!c_source) b.attrs.push_back(MinParallelWorkAttr());
  if (c_source) {
    b.description = "external backend from a pattern table, kernels written in C by a function";
    b.external_codegen = [c_source](const Function& fn, const std::string& symbol, const Target&) {
      return CompilePartitionC(c_source, fn, symbol);
    };
  } else {
    b.description = "external backend from a pattern table, compiled by the native code generator";
    b.external_codegen = CompilePartitionNatively;
  }
  b.identity = [compile_with] { return "external " + compile_with; };
  BackendRegistry::Global().RegisterOrReplace(std::move(b));
}

}  // namespace tessera
