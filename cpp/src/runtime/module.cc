// Runtime modules: kernel lookup through imports, the loader registry and the
// serialised form of a module tree.
#include "tessera/runtime/module.h"

#include <cstring>
#include <map>
#include <mutex>

#include "builtin_loaders.h"
#include "byte_io.h"
#include "tessera/support/error.h"

namespace tessera::runtime {

namespace {

struct LoaderRegistry {
  std::mutex mutex;
  // Ordered: error messages list them sorted. Starts with the runtime's own kinds.
  std::map<std::string, ModuleLoader> loaders = BuiltinModuleLoaders();
};

LoaderRegistry& Loaders() {
  static LoaderRegistry* registry = new LoaderRegistry();  // never destroyed: safe at exit
  return *registry;
}

void CollectSymbols(const ModuleNode& mod, std::vector<std::string>& out) {
  for (const std::string& s : mod.ListFunctions()) out.push_back(s);
  for (const Module& m : mod.imports) CollectSymbols(*m, out);
}

KernelFunction FindIn(ModuleNode& mod, const std::string& symbol) {
  if (KernelFunction f = mod.GetFunction(symbol)) return f;
  for (const Module& m : mod.imports)
    if (KernelFunction f = FindIn(*m, symbol)) return f;
  return nullptr;
}

// The tree format: "TSMODTREE1", then per module (pre-order) the kind, the bytes and the
// number of imports; strings are a little-endian uint64 length and the raw bytes.
constexpr char kMagic[] = "TSMODTREE1";
constexpr int kMaxDepth = 64;

void WriteTree(const Module& mod, std::string& out) {
  PutString(out, mod->type_key());
  PutString(out, mod->SaveToBytes());
  PutU64(out, mod->imports.size());
  for (const Module& m : mod->imports) WriteTree(m, out);
}

Module ReadTree(ByteReader& in, int depth) {
  if (depth > kMaxDepth) TS_THROW(kParse) << "module file nests imports deeper than " << kMaxDepth;
  std::string kind = in.String("a module kind");
  std::string bytes = in.String("module bytes");
  Module mod = LoadModuleFromBytes(kind, bytes);
  uint64_t num_imports = in.U64("an import count");
  for (uint64_t i = 0; i < num_imports; ++i) mod->imports.push_back(ReadTree(in, depth + 1));
  return mod;
}

}  // namespace

KernelFunction FindKernel(const Module& mod, const std::string& symbol) {
  if (!mod) TS_THROW(kValue) << "no runtime module to find kernel '" << symbol << "' in";
  if (KernelFunction f = FindIn(*mod, symbol)) return f;
  std::vector<std::string> symbols;
  CollectSymbols(*mod, symbols);
  std::string list;
  for (const std::string& s : symbols) list += (list.empty() ? "" : ", ") + s;
  TS_THROW(kNotFound) << "no kernel '" << symbol
                      << "' in the runtime module (it has: " << (list.empty() ? "none" : list)
                      << ")";
}

void RegisterModuleLoader(const std::string& type_key, ModuleLoader loader) {
  LoaderRegistry& r = Loaders();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.loaders[type_key] = std::move(loader);
}

Module LoadModuleFromBytes(const std::string& type_key, const std::string& bytes) {
  ModuleLoader loader;
  {
    LoaderRegistry& r = Loaders();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.loaders.find(type_key);
    if (it == r.loaders.end()) {
      std::string kinds;
      for (const auto& [k, _] : r.loaders) kinds += (kinds.empty() ? "" : ", ") + k;
      TS_THROW(kNotFound) << "no loader for runtime modules of kind '" << type_key
                          << "' (known: " << (kinds.empty() ? "none" : kinds)
                          << "; kinds made by a compiler backend, such as 'interp', load only "
                             "where the compiler library is linked)";
    }
    loader = it->second;
  }
  Module mod = loader(bytes);
  if (!mod) TS_THROW(kInternal) << "the loader for '" << type_key << "' returned no module";
  return mod;
}

std::string SerializeModuleTree(const Module& mod) {
  if (!mod) TS_THROW(kValue) << "cannot serialise an empty runtime module";
  std::string out = kMagic;
  WriteTree(mod, out);
  return out;
}

Module DeserializeModuleTree(const std::string& bytes) {
  ByteReader in(bytes, "module file");
  in.Expect(kMagic);
  Module mod = ReadTree(in, 0);
  if (!in.AtEnd()) TS_THROW(kParse) << "module file has trailing bytes after the module tree";
  return mod;
}

}  // namespace tessera::runtime
