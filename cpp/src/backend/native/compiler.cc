// The system C compiler driver with a content-addressed on-disk cache of shared objects.
#include "tessera/backend/native/compiler.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "process.h"
#include "tessera/support/sha256.h"
#include "tessera/support/error.h"
#include "tessera/support/host_cpu.h"
#include "tessera/support/logging.h"

namespace tessera::native {

namespace {

std::atomic<uint64_t> g_compiler_runs{0}, g_cache_hits{0}, g_cache_rebuilds{0};

/// Cache entries: magic, the payload's SHA-256 and size, then the payload.
constexpr char kEntryMagic[] = "TSOBJ1\n";

std::string Getenv(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return !in.bad();
}

void WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) TS_THROW(kIO) << "cannot write '" << path << "': " << std::strerror(errno);
    done += static_cast<size_t>(n);
  }
}

/// mkdir -p; throws an IO error naming the directory on failure.
void MakeDirs(const std::string& path) {
  std::string prefix;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    prefix = path.substr(0, pos);
    if (prefix.empty()) continue;
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      TS_THROW(kIO) << "cannot create cache directory '" << prefix << "': " << std::strerror(errno);
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    TS_THROW(kIO) << "cache path '" << path << "' is not a directory";
}

/// Writes `data` to `path` atomically: a unique temp file in the same directory, then
/// rename, so readers see either the old entry or the whole new one.
void WriteFileAtomic(const std::string& dir, const std::string& path, const std::string& data) {
  std::string tmpl = dir + "/.tmp-XXXXXX";
  int fd = mkstemp(tmpl.data());
  if (fd < 0) TS_THROW(kIO) << "cannot create a file in '" << dir << "': " << std::strerror(errno);
  try {
    WriteAll(fd, data, tmpl);
  } catch (...) {
    close(fd);
    unlink(tmpl.c_str());
    throw;
  }
  close(fd);
  if (rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    unlink(tmpl.c_str());
    TS_THROW(kIO) << "cannot rename into '" << path << "': " << std::strerror(err);
  }
}

/// A private temporary directory, removed with its files.
class ScratchDir {
 public:
  ScratchDir() {
    std::string base = Getenv("TMPDIR");
    if (base.empty()) base = "/tmp";
    path_ = base + "/tessera-cc-XXXXXX";
    if (!mkdtemp(path_.data()))
      TS_THROW(kIO) << "cannot create a temporary directory under '" << base
                    << "': " << std::strerror(errno);
  }
  ~ScratchDir() {
    for (const std::string& f : files_) unlink((path_ + "/" + f).c_str());
    rmdir(path_.c_str());
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string File(const std::string& name) {
    files_.push_back(name);
    return path_ + "/" + name;
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

std::string RunCompiler(const std::string& source) {
  ScratchDir dir;
  std::string src = dir.File("kernels.c"), obj = dir.File("kernels.so");
  {
    int fd = open(src.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) TS_THROW(kIO) << "cannot write '" << src << "': " << std::strerror(errno);
    try {
      WriteAll(fd, source, src);
    } catch (...) {
      close(fd);
      throw;
    }
    close(fd);
  }
  std::vector<std::string> argv = CompilerCommand();
  for (const std::string& f : NativeCompileFlags()) argv.push_back(f);
  for (const char* a : {"-o", obj.c_str(), src.c_str(), "-lm"}) argv.push_back(a);
  ++g_compiler_runs;
  if (LogDebugEnabled())
    LogDebug("native: compiling " + std::to_string(source.size()) + " bytes of C: " +
             detail::CommandString(argv));
  detail::ProcessResult r = detail::RunProcess(argv);
  if (!r.started)
    TS_THROW(kNotFound) << "C compiler '" << argv[0] << "' could not be run (" << r.error
                        << "); install a C compiler or set TESSERA_CC";
  if (r.exit_code != 0)
    TS_THROW(kIO) << "C compiler failed (exit code " << r.exit_code
                  << "): " << detail::CommandString(argv) << "\n"
                  << r.output;
  std::string bytes;
  if (!ReadFile(obj, &bytes) || bytes.empty())
    TS_THROW(kIO) << "C compiler produced no shared object: " << detail::CommandString(argv) << "\n"
                  << r.output;
  return bytes;
}

std::string EntryBytes(const std::string& payload) {
  return std::string(kEntryMagic) + Sha256Hex(payload) + "\n" +
         std::to_string(payload.size()) + "\n" + payload;
}

/// The payload of an intact cache entry, or false.
bool ParseEntry(const std::string& entry, std::string* payload) {
  size_t magic = std::strlen(kEntryMagic);
  if (entry.compare(0, magic, kEntryMagic) != 0) return false;
  size_t hash_end = entry.find('\n', magic);
  if (hash_end == std::string::npos) return false;
  size_t size_end = entry.find('\n', hash_end + 1);
  if (size_end == std::string::npos) return false;
  std::string hash = entry.substr(magic, hash_end - magic);
  std::string size = entry.substr(hash_end + 1, size_end - hash_end - 1);
  std::string data = entry.substr(size_end + 1);
  if (size != std::to_string(data.size()) || hash != Sha256Hex(data)) return false;
  *payload = std::move(data);
  return true;
}

}  // namespace

std::vector<std::string> CompilerCommand() {
  std::vector<std::string> words;
  std::istringstream in(Getenv("TESSERA_CC"));
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty()) words.push_back("cc");
  return words;
}

std::vector<std::string> NativeCompileFlags() {
  std::vector<std::string> flags = {"-O3",     "-march=native", "-fPIC",
                                    "-shared", "-std=gnu11",    "-fno-math-errno"};
  if (HostSimdBytes() == 64) flags.push_back("-mprefer-vector-width=512");
  return flags;
}

std::string CacheDirectory(const CompileOptions& options) {
  if (!options.cache_dir.empty()) return options.cache_dir;
  if (std::string d = Getenv("TESSERA_CACHE_DIR"); !d.empty()) return d;
  if (std::string d = Getenv("XDG_CACHE_HOME"); !d.empty()) return d + "/tessera";
  if (std::string home = Getenv("HOME"); !home.empty()) return home + "/.cache/tessera";
  return "/tmp/tessera-cache";
}

std::string CompilerIdentity() {
  static std::mutex mutex;
  static std::map<std::string, std::string>* known = new std::map<std::string, std::string>();
  std::vector<std::string> argv = CompilerCommand();
  std::string key = detail::CommandString(argv);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known->find(key); it != known->end()) return it->second;
  }
  argv.push_back("--version");
  detail::ProcessResult r = detail::RunProcess(argv);
  if (!r.started || r.exit_code == 127)
    TS_THROW(kNotFound) << "C compiler '" << key << "' was not found"
                        << (r.error.empty() ? "" : " (" + r.error + ")")
                        << "; install a C compiler or set TESSERA_CC";
  if (r.exit_code != 0)
    TS_THROW(kIO) << "'" << detail::CommandString(argv) << "' failed (exit code " << r.exit_code
                  << "):\n"
                  << r.output;
  std::lock_guard<std::mutex> lock(mutex);
  (*known)[key] = r.output;
  return r.output;
}

std::string CompileSharedObject(const std::string& source, const CompileOptions& options) {
  std::string identity = CompilerIdentity();
  if (!options.use_cache) return RunCompiler(source);
  std::string key_text = "tessera-native-object-v1\n" + identity + "\n";
  for (const std::string& w : CompilerCommand()) key_text += w + " ";
  for (const std::string& f : NativeCompileFlags()) key_text += f + " ";
  key_text += "\n" + source;
  std::string dir = CacheDirectory(options);
  std::string path = dir + "/" + Sha256Hex(key_text) + ".so.entry";
  std::string entry, payload;
  bool existed = ReadFile(path, &entry);
  if (existed && ParseEntry(entry, &payload)) {
    ++g_cache_hits;
    if (LogDebugEnabled()) LogDebug("native: compiled kernels found in the cache: " + path);
    return payload;
  }
  if (existed) {
    ++g_cache_rebuilds;
    LogWarn("native compiler cache: damaged entry '" + path + "' is rebuilt");
  }
  payload = RunCompiler(source);
  try {
    MakeDirs(dir);
    WriteFileAtomic(dir, path, EntryBytes(payload));
  } catch (const Error& e) {
    LogWarn(std::string("native compiler cache disabled for this object: ") + e.what());
  }
  return payload;
}

CompilerCounters GetCompilerCounters() {
  return CompilerCounters{g_compiler_runs.load(), g_cache_hits.load(), g_cache_rebuilds.load()};
}

}  // namespace tessera::native
