// The host CPU's SIMD width (read once through the compiler's cpuid builtins), and its
// model and ISA extensions from /proc/cpuinfo.
#include "tessera/support/host_cpu.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace tessera {

int HostSimdBytes() {
  static const int bytes = [] {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 64;
    if (__builtin_cpu_supports("avx2") || __builtin_cpu_supports("avx")) return 32;
#endif
    return 16;
  }();
  return bytes;
}

namespace {

/// The value of the first "`field` : value" line of /proc/cpuinfo, or "".
std::string CpuInfoField(const std::string& field) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name != field) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    return value;
  }
  return "";
}

}  // namespace

std::string HostCpuModel() {
  static const std::string model = [] {
    std::string m = CpuInfoField("model name");
    if (m.empty()) m = CpuInfoField("cpu model");  // some non-x86 kernels
    return m.empty() ? std::string("unknown") : m;
  }();
  return model;
}

std::vector<std::string> HostIsaExtensions() {
  static const std::vector<std::string> extensions = [] {
    std::string flags = CpuInfoField("flags");
    if (flags.empty()) flags = CpuInfoField("Features");  // aarch64
    std::vector<std::string> out;
    std::istringstream in(flags);
    std::string f;
    // Only extensions that change which instructions kernels use; the rest (bug flags,
    // virtualisation details) vary between hosts of one model without changing speed.
    static const char* const kExact[] = {"sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c",
                                         "asimd", "sve", "sve2", "bf16", "i8mm"};
    while (in >> f) {
      bool keep = f.rfind("avx512", 0) == 0 || f.rfind("amx", 0) == 0 || f.rfind("avx_", 0) == 0;
      for (const char* e : kExact) keep |= f == e;
      if (keep) out.push_back(f);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }();
  return extensions;
}

}  // namespace tessera
