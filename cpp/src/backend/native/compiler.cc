// The system C compiler driver: one translation unit to a shared object or an object file,
// linking, and the content-addressed on-disk cache of shared objects.
#include "tessera/backend/native/compiler.h"

#include <atomic>
#include <map>
#include <mutex>
#include <sstream>

#include "compile_cache.h"
#include "compile_driver.h"
#include "process.h"
#include "tessera/support/error.h"
#include "tessera/support/host_cpu.h"
#include "tessera/support/logging.h"
#include "tessera/support/sha256.h"

namespace tessera::native {

namespace {

std::atomic<uint64_t> g_compiler_runs{0}, g_cache_hits{0}, g_cache_rebuilds{0};

/// Runs the compiler command with `args`, then reads back `out` (`what` it should be).
std::string RunAndRead(std::vector<std::string> args, const std::string& out, const char* what,
                       size_t source_bytes) {
  std::vector<std::string> argv = CompilerCommand();
  argv.insert(argv.end(), args.begin(), args.end());
  if (LogDebugEnabled())
    LogDebug("native: " +
             (source_bytes ? "compiling " + std::to_string(source_bytes) + " bytes of C: "
                           : std::string("linking: ")) +
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
  if (!detail::ReadFile(out, &bytes) || bytes.empty())
    TS_THROW(kIO) << "C compiler produced no " << what << ": " << detail::CommandString(argv)
                  << "\n"
                  << r.output;
  return bytes;
}

}  // namespace

namespace detail {

std::string CompileUnit(const std::string& source, bool shared) {
  ScratchDir dir;
  std::string src = dir.File("kernels.c"), out = dir.File(shared ? "kernels.so" : "kernels.o");
  WriteNewFile(src, source);
  std::vector<std::string> args;
  for (const std::string& f : NativeCompileFlags())
    if (shared || f != "-shared") args.push_back(f);
  if (!shared) args.push_back("-c");
  for (const std::string& a : {std::string("-o"), out, src}) args.push_back(a);
  if (shared) args.push_back("-lm");
  ++g_compiler_runs;
  return RunAndRead(std::move(args), out, shared ? "shared object" : "object file", source.size());
}

std::string LinkObjects(const std::vector<std::string>& objects) {
  ScratchDir dir;
  std::string out = dir.File("kernels.so");
  std::vector<std::string> args = {"-shared", "-o", out};
  for (size_t i = 0; i < objects.size(); ++i) {
    std::string path = dir.File("unit" + std::to_string(i) + ".o");
    WriteNewFile(path, objects[i]);
    args.push_back(path);
  }
  args.push_back("-lm");
  return RunAndRead(std::move(args), out, "shared object", 0);
}

std::string CompilerKeyText() {
  std::string key = CompilerIdentity() + "\n";
  for (const std::string& w : CompilerCommand()) key += w + " ";
  for (const std::string& f : NativeCompileFlags()) key += f + " ";
  return key + "\n";
}

void CountCacheHit() {
  ++g_cache_hits;
}
void CountCacheRebuild() {
  ++g_cache_rebuilds;
}

}  // namespace detail

std::vector<std::string> CompilerCommand() {
  std::vector<std::string> words;
  std::istringstream in(detail::Getenv("TESSERA_CC"));
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty()) words.push_back("cc");
  return words;
}

bool CompilerIsGcc() {
  try {
    std::string id = CompilerIdentity();
    return id.find("Free Software Foundation") != std::string::npos &&
           id.find("clang") == std::string::npos;
  } catch (const Error&) {
    return false;  // no compiler: nothing will be compiled with these flags
  }
}

std::vector<std::string> NativeCompileFlags() {
  std::vector<std::string> flags = {"-O3",     "-march=native", "-fPIC",
                                    "-shared", "-std=gnu11",    "-fno-math-errno"};
  // GCC's -O3 clones functions for constant arguments (-fipa-cp-clone): a third of the
  // compile time of ResNet-18's NCHW conv kernels (5.7 -> 4.0 s of CPU in all), for no
  // measured run time on ResNet-18, MobileNetV2 and a transformer encoder (within 3%).
  if (CompilerIsGcc()) flags.push_back("-fno-ipa-cp-clone");
  if (HostSimdBytes() == 64) flags.push_back("-mprefer-vector-width=512");
  return flags;
}

std::string CacheDirectory(const CompileOptions& options) {
  if (!options.cache_dir.empty()) return options.cache_dir;
  if (std::string d = detail::Getenv("TESSERA_CACHE_DIR"); !d.empty()) return d;
  if (std::string d = detail::Getenv("XDG_CACHE_HOME"); !d.empty()) return d + "/tessera";
  if (std::string home = detail::Getenv("HOME"); !home.empty()) return home + "/.cache/tessera";
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
  std::string key_text = "tessera-native-object-v1\n" + detail::CompilerKeyText();
  if (!options.use_cache) return detail::CompileUnit(source, /*shared=*/true);
  std::string dir = CacheDirectory(options);
  std::string name = Sha256Hex(key_text + source) + ".so.entry";
  std::string payload;
  bool damaged = false;
  if (detail::ReadEntry(dir + "/" + name, &payload, &damaged)) {
    ++g_cache_hits;
    if (LogDebugEnabled())
      LogDebug("native: compiled kernels found in the cache: " + dir + "/" + name);
    return payload;
  }
  if (damaged) ++g_cache_rebuilds;
  payload = detail::CompileUnit(source, /*shared=*/true);
  detail::StoreEntry(dir, name, payload);
  return payload;
}

CompilerCounters GetCompilerCounters() {
  return CompilerCounters{g_compiler_runs.load(), g_cache_hits.load(), g_cache_rebuilds.load()};
}

}  // namespace tessera::native
