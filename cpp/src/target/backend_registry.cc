// The backend registry: registration, lookup and the shared CPU target options.
#include "tessera/target/backend_registry.h"

#include "tessera/runtime/thread_pool.h"

#include "tessera/support/error.h"

namespace tessera {

namespace {

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

}  // namespace

std::vector<TargetAttrSpec> CpuTargetAttrs() {
  std::vector<TargetAttrSpec> specs;
  specs.push_back({"num_threads", TargetAttrType::kInt, AttrValue(int64_t{0}),
                   "worker threads of the executor's pool (0 = all cores)", nullptr});
  specs.back().validate = [](const AttrValue& v) {
    if (v.AsInt() < 0 || v.AsInt() > runtime::ThreadPool::kMaxThreads)
      TS_THROW(kValue) << "option -num_threads must be from 0 (all cores) to "
                       << runtime::ThreadPool::kMaxThreads << ", got " << v.AsInt();
  };
  // -compiler and -libs name library backends (with an external codegen) of this build.
  auto known_backends = [](const char* option) {
    return [option](const AttrValue& v) {
      const BackendRegistry& registry = BackendRegistry::Global();
      std::vector<std::string> libraries;
      for (const std::string& name : registry.Names())
        if (registry.Find(name)->external_codegen) libraries.push_back(name);
      for (const AttrValue& item : v.AsArray()) {
        const Backend* backend = registry.Find(item.AsString());
        if (!backend)
          TS_THROW(kValue) << "option -" << option << " names unknown backend '" << item.AsString()
                           << "' (library backends: " << Join(libraries) << ")";
        if (!backend->external_codegen)
          TS_THROW(kValue) << "option -" << option << " names '" << item.AsString()
                           << "', which compiles whole models, not partitions (library "
                              "backends: "
                           << Join(libraries) << ")";
      }
    };
  };
  specs.push_back({"compiler", TargetAttrType::kStringList, AttrValue(std::vector<AttrValue>{}),
                   "external library backends to offload supported subgraphs to (e.g. dnnl)",
                   nullptr});
  specs.back().validate = known_backends("compiler");
  specs.push_back({"libs", TargetAttrType::kStringList, AttrValue(std::vector<AttrValue>{}),
                   "external kernel libraries to call (e.g. blas)", nullptr});
  specs.back().validate = known_backends("libs");
  return specs;
}

BackendRegistry& BackendRegistry::Global() {
  // Never destroyed (safe at exit); filled by explicit registration, not static ctors.
  static BackendRegistry* registry = [] {
    auto* r = new BackendRegistry();
    RegisterBuiltinBackends(*r);
    return r;
  }();
  return *registry;
}

void BackendRegistry::Register(Backend backend) {
  if (backend.name.empty()) TS_THROW(kValue) << "cannot register a backend without a name";
  std::string name = backend.name;
  runtime::ModuleLoader loader = backend.loader;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (backends_.count(name)) TS_THROW(kValue) << "backend '" << name << "' is already registered";
    backends_[name] = std::make_unique<Backend>(std::move(backend));
  }
  if (loader) runtime::RegisterModuleLoader(name, std::move(loader));
}

bool BackendRegistry::IsBuiltinName(const std::string& name) {
  return name == "native" || name == "interp" || name == "dnnl" || name == "blas" ||
         name == "host";
}

void BackendRegistry::RegisterOrReplace(Backend backend) {
  if (backend.name.empty()) TS_THROW(kValue) << "cannot register a backend without a name";
  if (IsBuiltinName(backend.name))
    TS_THROW(kValue) << "backend '" << backend.name
                     << "' is built in and cannot be replaced (choose another name)";
  std::string name = backend.name;
  runtime::ModuleLoader loader = backend.loader;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = backends_.find(name);
    if (it != backends_.end()) replaced_.push_back(std::move(it->second));
    backends_[name] = std::make_unique<Backend>(std::move(backend));
  }
  if (loader) runtime::RegisterModuleLoader(name, std::move(loader));
}

const Backend* BackendRegistry::Find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = backends_.find(name);
  return it == backends_.end() ? nullptr : it->second.get();
}

const Backend& BackendRegistry::Get(const std::string& name) const {
  if (const Backend* b = Find(name)) return *b;
  TS_THROW(kNotFound) << "unknown backend '" << name << "' (known: " << Join(Names()) << ")";
}

std::vector<std::string> BackendRegistry::Names() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [name, _] : backends_) names.push_back(name);
  return names;
}

bool CompilesWholeModels(const std::string& kind) {
  const Backend* backend = BackendRegistry::Global().Find(kind);
  return backend && backend->codegen;
}

std::string GlobalSymbolOf(const std::string& name, const BaseFuncNode* func) {
  if (func)
    if (const AttrValue* v = func->attrs.Find(attr::kGlobalSymbol); v && v->is_string())
      return v->AsString();
  return name;
}

std::vector<std::pair<std::string, tir::PrimFunc>> SelectPrimFuncs(
    const IRModule& lowered, const std::vector<std::string>& symbols, const std::string& backend) {
  std::map<std::string, tir::PrimFunc> by_symbol;
  for (const auto& [name, func] : lowered.functions())
    if (const auto* pf = func.as<tir::PrimFuncNode>())
      by_symbol.emplace(GlobalSymbolOf(name, pf), tir::PrimFunc(pf));
  std::vector<std::pair<std::string, tir::PrimFunc>> chosen;
  for (const std::string& s : symbols) {
    auto it = by_symbol.find(s);
    if (it == by_symbol.end()) {
      std::string known;
      for (const auto& [k, _] : by_symbol) known += (known.empty() ? "" : ", ") + k;
      TS_THROW(kNotFound) << backend << " codegen: no PrimFunc with symbol '" << s
                          << "' in the module (PrimFuncs: " << (known.empty() ? "none" : known)
                          << ")";
    }
    chosen.push_back(*it);
  }
  return chosen;
}

}  // namespace tessera
