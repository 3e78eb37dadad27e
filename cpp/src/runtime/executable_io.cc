// Saving and loading an Executable: one file with a header, the graph as JSON (@main and
// its constants; the PrimFuncs are dropped) and the serialised module tree.
#include <fstream>
#include <sstream>

#include "tessera/ir/json.h"
#include "tessera/runtime/executable.h"
#include "tessera/support/error.h"
#include "tessera/target/backend_registry.h"

namespace tessera::runtime {

namespace {

// Layout: magic, u32 version, u64 length + graph JSON, u64 length + module tree, then a
// u64 FNV-1a checksum of everything before it (so damaged bytes never reach a kernel).
constexpr char kMagic[] = "TESSERA-EXEC";
constexpr size_t kMagicLen = sizeof(kMagic) - 1;
constexpr uint32_t kVersion = 1;
constexpr char kSymbolsAttr[] = "executable.symbols";

uint64_t Fnv1a(const char* data, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ull;
  }
  return h;
}

void PutU64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetU64(const std::string& in, size_t pos) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(static_cast<unsigned char>(in[pos + i])) << (8 * i);
  return v;
}

}  // namespace

std::string Executable::SaveToBytes() const {
  std::vector<AttrValue> symbols;
  for (const auto& [name, symbol] : symbols_) symbols.push_back(AttrValue{name, symbol});
  IRModule graph = IRModule::FromExpr(main_).WithAttr(kSymbolsAttr, AttrValue(symbols));
  std::string json = ModuleToJson(graph);
  std::string tree = SerializeModuleTree(module_);
  std::string out(kMagic, kMagicLen);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((kVersion >> (8 * i)) & 0xff));
  PutU64(out, json.size());
  out += json;
  PutU64(out, tree.size());
  out += tree;
  PutU64(out, Fnv1a(out.data(), out.size()));
  return out;
}

std::shared_ptr<Executable> Executable::LoadFromBytes(const std::string& bytes) {
  if (bytes.size() < kMagicLen || bytes.compare(0, kMagicLen, kMagic) != 0)
    TS_THROW(kParse) << "not a Tessera executable (no '" << kMagic << "' header)";
  if (bytes.size() < kMagicLen + 4 + 8 + 8 + 8)
    TS_THROW(kParse) << "executable is truncated (" << bytes.size() << " bytes)";
  uint32_t version = 0;
  for (int i = 0; i < 4; ++i)
    version |= uint32_t(static_cast<unsigned char>(bytes[kMagicLen + i])) << (8 * i);
  if (version != kVersion)
    TS_THROW(kParse) << "executable has format version " << version << "; this build reads "
                     << kVersion;
  size_t body_end = bytes.size() - 8;
  if (GetU64(bytes, body_end) != Fnv1a(bytes.data(), body_end))
    TS_THROW(kParse) << "executable is damaged or truncated (checksum mismatch)";
  size_t pos = kMagicLen + 4;
  auto take = [&](const char* what) {
    if (body_end - pos < 8) TS_THROW(kParse) << "executable is truncated before " << what;
    uint64_t n = GetU64(bytes, pos);
    pos += 8;
    if (n > body_end - pos) TS_THROW(kParse) << "executable is truncated inside " << what;
    std::string s = bytes.substr(pos, n);
    pos += n;
    return s;
  };
  std::string json = take("the graph");
  std::string tree = take("the module tree");
  if (pos != body_end) TS_THROW(kParse) << "executable has unexpected trailing bytes";

  IRModule graph = ModuleFromJson(json);
  std::map<std::string, std::string> symbols;
  const AttrValue* list = graph.attrs().Find(kSymbolsAttr);
  if (!list || !list->is_array()) TS_THROW(kParse) << "executable graph has no symbol table";
  for (const AttrValue& pair : list->AsArray()) {
    if (!pair.is_array() || pair.AsArray().size() != 2 || !pair.AsArray()[0].is_string() ||
        !pair.AsArray()[1].is_string())
      TS_THROW(kParse) << "executable symbol table entry is malformed";
    symbols[pair.AsArray()[0].AsString()] = pair.AsArray()[1].AsString();
  }
  BaseFunc main = graph.Find("main");
  const auto* fn = main.as<FunctionNode>();
  if (!fn) TS_THROW(kParse) << "executable graph has no @main function";
  BackendRegistry::Global();  // registers the built-in backends' module loaders
  std::shared_ptr<Executable> exe(new Executable());
  exe->module_ = DeserializeModuleTree(tree);
  exe->Build(Function(fn), symbols);
  return exe;
}

void Executable::Save(const std::string& path) const {
  std::string bytes = SaveToBytes();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) TS_THROW(kIO) << "cannot open '" << path << "' for writing";
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) TS_THROW(kIO) << "failed writing executable to '" << path << "'";
}

std::shared_ptr<Executable> Executable::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) TS_THROW(kNotFound) << "cannot open executable file '" << path << "'";
  std::ostringstream buf;
  buf << in.rdbuf();
  try {
    return LoadFromBytes(buf.str());
  } catch (const Error& err) {
    throw Error(err.kind(), "'" + path + "': " + err.what());
  }
}

}  // namespace tessera::runtime
