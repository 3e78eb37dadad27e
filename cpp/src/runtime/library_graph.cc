// Library graphs (the partitions oneDNN and BLAS modules run): attribute access and the
// byte format.
#include "tessera/runtime/library_graph.h"

#include <cstring>
#include <nlohmann/json.hpp>

#include "tessera/runtime/thread_pool.h"
#include "tessera/support/error.h"

namespace tessera::runtime {

namespace {

constexpr char kMagic[] = "TSLIBGRAPH1\n";
constexpr const char* kKinds[] = {"param", "constant", "op"};

nlohmann::json AttrToJson(const KernelAttr& v) {
  // Tagged so ints and floats (and empty lists) keep their type through the JSON.
  return std::visit(
      [](const auto& x) -> nlohmann::json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) return {"none", nullptr};
        if constexpr (std::is_same_v<T, bool>) return {"bool", x};
        if constexpr (std::is_same_v<T, int64_t>) return {"int", x};
        if constexpr (std::is_same_v<T, double>) return {"float", x};
        if constexpr (std::is_same_v<T, std::string>) return {"str", x};
        if constexpr (std::is_same_v<T, std::vector<int64_t>>) return {"ints", x};
        if constexpr (std::is_same_v<T, std::vector<double>>) return {"floats", x};
      },
      v);
}

KernelAttr AttrFromJson(const nlohmann::json& j) {
  std::string tag = j.at(0).get<std::string>();
  const nlohmann::json& v = j.at(1);
  if (tag == "none") return std::monostate{};
  if (tag == "bool") return v.get<bool>();
  if (tag == "int") return v.get<int64_t>();
  if (tag == "float") return v.get<double>();
  if (tag == "str") return v.get<std::string>();
  if (tag == "ints") return v.get<std::vector<int64_t>>();
  if (tag == "floats") return v.get<std::vector<double>>();
  TS_THROW(kParse) << "unknown attribute tag '" << tag << "'";
}

const char* TypeName(const KernelAttr& v) {
  static constexpr const char* kNames[] = {"none", "bool", "int", "float",
                                           "string", "ints", "floats"};
  return kNames[v.index()];
}

}  // namespace

const KernelAttr& KernelAttrs::At(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) TS_THROW(kValue) << "kernel attribute '" << key << "' is not set";
  return it->second;
}

bool KernelAttrs::Has(const std::string& key) const {
  auto it = values_.find(key);
  return it != values_.end() && !std::holds_alternative<std::monostate>(it->second);
}

template <typename T>
static const T& Get(const KernelAttr& v, const std::string& key, const char* want) {
  if (const T* x = std::get_if<T>(&v)) return *x;
  TS_THROW(kValue) << "kernel attribute '" << key << "' is " << TypeName(v) << ", not " << want;
}

bool KernelAttrs::GetBool(const std::string& key) const { return Get<bool>(At(key), key, "bool"); }
int64_t KernelAttrs::GetInt(const std::string& key) const {
  return Get<int64_t>(At(key), key, "int");
}
double KernelAttrs::GetFloat(const std::string& key) const {
  const KernelAttr& v = At(key);
  if (const int64_t* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return Get<double>(v, key, "float");
}
const std::string& KernelAttrs::GetString(const std::string& key) const {
  return Get<std::string>(At(key), key, "string");
}
const std::vector<int64_t>& KernelAttrs::GetInts(const std::string& key) const {
  return Get<std::vector<int64_t>>(At(key), key, "a list of ints");
}

std::string SerializeLibraryGraph(const LibraryGraph& g) {
  nlohmann::json nodes = nlohmann::json::array();
  std::string blob;
  for (const LibraryNode& n : g.nodes) {
    nlohmann::json attrs = nlohmann::json::object();
    for (const auto& [k, v] : n.attrs.values()) attrs[k] = AttrToJson(v);
    nodes.push_back({{"kind", kKinds[static_cast<int>(n.kind)]},
                     {"param", n.param},
                     {"op", n.op},
                     {"attrs", attrs},
                     {"inputs", n.inputs},
                     {"shape", n.shape},
                     {"dtype", DTypeName(n.dtype)},
                     {"uses", n.uses}});
    if (n.kind == LibraryNode::Kind::kConstant)
      blob.append(static_cast<const char*>(n.data.data()), n.data.NumBytes());
  }
  std::string json =
      nlohmann::json{{"nodes", nodes}, {"outputs", g.outputs}, {"num_params", g.num_params}}.dump();
  return kMagic + std::to_string(json.size()) + "\n" + json + blob;
}

LibraryGraph DeserializeLibraryGraph(const std::string& bytes, const std::string& what) {
  size_t magic = std::strlen(kMagic);
  if (bytes.compare(0, magic, kMagic) != 0)
    TS_THROW(kParse) << what << ": not a library graph (no header; a program saved by an "
                                "older Tessera must be rebuilt)";
  size_t eol = bytes.find('\n', magic);
  size_t json_size = 0;
  try {
    json_size = std::stoull(bytes.substr(magic, eol - magic));
  } catch (const std::exception&) {
    TS_THROW(kParse) << what << ": malformed library graph header";
  }
  if (eol == std::string::npos || json_size > bytes.size() - eol - 1)
    TS_THROW(kParse) << what << ": library graph is truncated";
  LibraryGraph g;
  size_t pos = eol + 1 + json_size;
  try {
    nlohmann::json j = nlohmann::json::parse(bytes.substr(eol + 1, json_size));
    g.num_params = j.at("num_params").get<int>();
    g.outputs = j.at("outputs").get<std::vector<int>>();
    for (const nlohmann::json& jn : j.at("nodes")) {
      LibraryNode n;
      std::string kind = jn.at("kind").get<std::string>();
      int k = 0;
      while (k < 3 && kind != kKinds[k]) ++k;
      if (k == 3) TS_THROW(kParse) << "unknown node kind '" << kind << "'";
      n.kind = static_cast<LibraryNode::Kind>(k);
      n.param = jn.at("param").get<int>();
      n.op = jn.at("op").get<std::string>();
      for (const auto& [key, v] : jn.at("attrs").items()) n.attrs.Set(key, AttrFromJson(v));
      n.inputs = jn.at("inputs").get<std::vector<int>>();
      n.shape = jn.at("shape").get<std::vector<int64_t>>();
      n.dtype = ParseDTypeOrThrow(jn.at("dtype").get<std::string>(), "partition node");
      n.uses = jn.at("uses").get<int>();
      int id = static_cast<int>(g.nodes.size());
      for (int in : n.inputs)
        if (in < 0 || in >= id) TS_THROW(kParse) << "node " << id << " reads node " << in;
      if (n.kind == LibraryNode::Kind::kParam && (n.param < 0 || n.param >= g.num_params))
        TS_THROW(kParse) << "node " << id << " is parameter " << n.param;
      if (n.kind == LibraryNode::Kind::kConstant) {
        n.data = NDArray::Empty(n.shape, n.dtype);
        size_t nb = n.data.NumBytes();
        if (nb > bytes.size() - pos) TS_THROW(kParse) << "constant " << id << " is truncated";
        if (nb) std::memcpy(n.data.data(), bytes.data() + pos, nb);
        pos += nb;
      }
      g.nodes.push_back(std::move(n));
    }
    for (int o : g.outputs)
      if (o < 0 || o >= static_cast<int>(g.nodes.size())) TS_THROW(kParse) << "bad output " << o;
    // Modules fuse an op into its only reader by this count, so it must be the graph's.
    std::vector<int> uses(g.nodes.size(), 0);
    for (const LibraryNode& n : g.nodes)
      for (int in : n.inputs) ++uses[static_cast<size_t>(in)];
    for (int o : g.outputs) ++uses[static_cast<size_t>(o)];
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].uses != uses[i])
        TS_THROW(kParse) << "node " << i << " records " << g.nodes[i].uses << " uses, the graph has "
                         << uses[i];
  } catch (const nlohmann::json::exception& e) {
    TS_THROW(kParse) << what << ": malformed library graph: " << e.what();
  } catch (const Error& e) {
    TS_THROW(kParse) << what << ": malformed library graph: " << e.what();
  }
  if (pos != bytes.size()) TS_THROW(kParse) << what << ": library graph has trailing bytes";
  return g;
}

std::string SaveLibraryModule(const std::string& symbol, int num_threads, const LibraryGraph& g) {
  return symbol + "\n" + std::to_string(num_threads) + "\n" + SerializeLibraryGraph(g);
}

LibraryModuleBytes LoadLibraryModule(const std::string& bytes, const std::string& what) {
  size_t a = bytes.find('\n');
  size_t b = a == std::string::npos ? a : bytes.find('\n', a + 1);
  if (b == std::string::npos) TS_THROW(kParse) << what << ": malformed header";
  LibraryModuleBytes out;
  out.symbol = bytes.substr(0, a);
  try {
    out.num_threads = std::stoi(bytes.substr(a + 1, b - a - 1));
  } catch (const std::exception&) {
    TS_THROW(kParse) << what << ": malformed thread count";
  }
  out.graph = DeserializeLibraryGraph(bytes.substr(b + 1), what);
  return out;
}

int ThreadsFor(int num_threads, const TsKernelEnv* env) {
  if (env && env->pool) return static_cast<const ThreadPool*>(env->pool)->num_threads();
  return num_threads > 0 ? num_threads : 1;
}

}  // namespace tessera::runtime
