// The native runtime module: dlopen of shared-object bytes through a temp file, kernel
// lookup by symbol, and its byte format.
#include "tessera/runtime/native_module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "byte_io.h"
#include "tessera/support/error.h"

namespace tessera::runtime {

/// A dlopen handle, closed when the last module or kernel function using it goes.
class LoadedLibrary {
 public:
  explicit LoadedLibrary(const std::string& bytes) {
    const char* tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/tessera-native-XXXXXX.so";
    int fd = mkstemps(path.data(), 3);
    if (fd < 0)
      TS_THROW(kIO) << "native module: cannot create a temporary file '" << path
                    << "': " << std::strerror(errno);
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int err = errno;
        close(fd);
        unlink(path.c_str());
        TS_THROW(kIO) << "native module: cannot write '" << path << "': " << std::strerror(err);
      }
      done += static_cast<size_t>(n);
    }
    close(fd);
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    std::string error = handle_ ? "" : dlerror();
    unlink(path.c_str());  // the mapping stays valid; nothing is left behind
    if (!handle_) TS_THROW(kIO) << "native module: cannot load the shared object: " << error;
  }
  ~LoadedLibrary() { dlclose(handle_); }
  LoadedLibrary(const LoadedLibrary&) = delete;
  LoadedLibrary& operator=(const LoadedLibrary&) = delete;

  void* Symbol(const std::string& symbol, const std::string& cname) {
    dlerror();
    void* f = dlsym(handle_, cname.c_str());
    if (!f)
      TS_THROW(kNotFound) << "native module: the shared object has no function '" << cname
                          << "' for kernel '" << symbol << "'";
    return f;
  }

 private:
  void* handle_ = nullptr;
};

namespace {

constexpr char kMagic[] = "TSNATIVE1";

const char* StatusMeaning(int32_t status) {
  switch (status) {
    case 1:
      return "a scratch allocation failed";
    case 2:
      return "integer division by zero";
    default:
      return "unknown failure";
  }
}

}  // namespace

NativeModuleNode::NativeModuleNode(std::string shared_object,
                                   std::vector<std::pair<std::string, std::string>> symbols,
                                   std::string source)
    : shared_object_(std::move(shared_object)),
      symbols_(std::move(symbols)),
      source_(std::move(source)) {
  std::sort(symbols_.begin(), symbols_.end());
  for (size_t i = 1; i < symbols_.size(); ++i)
    if (symbols_[i].first == symbols_[i - 1].first)
      TS_THROW(kValue) << "native module: kernel '" << symbols_[i].first << "' is listed twice";
  library_ = std::make_shared<LoadedLibrary>(shared_object_);
  for (const auto& [symbol, cname] : symbols_)
    functions_.push_back(library_->Symbol(symbol, cname));
}

NativeModuleNode::~NativeModuleNode() = default;

KernelFunction NativeModuleNode::GetFunction(const std::string& symbol) {
  auto it =
      std::lower_bound(symbols_.begin(), symbols_.end(), symbol,
                       [](const auto& entry, const std::string& s) { return entry.first < s; });
  if (it == symbols_.end() || it->first != symbol) return nullptr;
  auto fn = reinterpret_cast<TsKernelFn>(functions_[static_cast<size_t>(it - symbols_.begin())]);
  std::shared_ptr<LoadedLibrary> keep = library_;  // the code lives as long as the function
  return [fn, keep, symbol](void* const* buffers, const TsKernelEnv* env) {
    int32_t status = fn(buffers, env);
    if (status != 0)
      TS_THROW(kValue) << "native kernel '" << symbol << "' failed with status " << status << " ("
                       << StatusMeaning(status) << ")";
  };
}

std::vector<std::string> NativeModuleNode::ListFunctions() const {
  std::vector<std::string> names;
  for (const auto& entry : symbols_) names.push_back(entry.first);
  return names;
}

std::string NativeModuleNode::SaveToBytes() const {
  std::string out = kMagic;
  PutU64(out, symbols_.size());
  for (const auto& [symbol, cname] : symbols_) {
    PutString(out, symbol);
    PutString(out, cname);
  }
  PutString(out, shared_object_);
  return out;
}

Module LoadNativeModule(const std::string& bytes) {
  ByteReader r(bytes, "native module");
  r.Expect(kMagic);
  uint64_t count = r.U64("the symbol count");
  std::vector<std::pair<std::string, std::string>> symbols;
  for (uint64_t i = 0; i < count; ++i) {
    std::string symbol = r.String("a symbol");
    std::string cname = r.String("a C function name");
    symbols.emplace_back(std::move(symbol), std::move(cname));
  }
  std::string object = r.String("the shared object");
  if (!r.AtEnd()) TS_THROW(kParse) << "native module bytes have trailing data";
  return std::make_shared<NativeModuleNode>(std::move(object), std::move(symbols));
}

}  // namespace tessera::runtime
