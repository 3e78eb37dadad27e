// The host CPU's SIMD width, read once through the compiler's cpuid builtins.
#include "tessera/support/host_cpu.h"

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

}  // namespace tessera
