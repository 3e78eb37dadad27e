// The C prelude of generated code (kernel ABI typedefs, exact conversion and integer
// helpers, SIMD types) and the identifier rules shared by the emitter.
#include <string>
#include <unordered_set>

#include "codegen_internal.h"
#include "tessera/support/error.h"

namespace tessera::native::detail {

namespace {

// Helpers mirror the reference interpreter (backend/interp/tir_interpreter.cc) and the
// NDArray conversions (runtime/ndarray.cc) operation for operation.
constexpr const char* kScalarHelpers =
    R"(/* float16 / bfloat16 <-> float, round to nearest even (as tessera::FloatToHalf). */
static inline uint32_t ts_f32_bits(float f) { uint32_t x; __builtin_memcpy(&x, &f, 4); return x; }
static inline float ts_bits_f32(uint32_t x) { float f; __builtin_memcpy(&f, &x, 4); return f; }
static inline uint16_t ts_f2h(float value) {
  uint32_t x = ts_f32_bits(value);
  uint32_t sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
  int32_t exp = (int32_t)((x >> 23) & 0xffu);
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0u));
  int32_t e = exp - 127 + 15;
  if (e >= 0x1f) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (uint16_t)sign;
    mant |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t half = mant >> shift, rem = mant & ((1u << shift) - 1u), mid = 1u << (shift - 1u);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return (uint16_t)(sign | half);
  }
  uint32_t half = sign | ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return (uint16_t)half;
}
static inline float ts_h2f(uint16_t h) {
  uint32_t sign = ((uint32_t)h & 0x8000u) << 16, exp = ((uint32_t)h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) {
    if (mant == 0) return ts_bits_f32(sign);
    float f = (float)mant * 5.9604644775390625e-8f; /* mant * 2^-24, exact */
    return sign ? -f : f;
  }
  if (exp == 0x1f) return ts_bits_f32(sign | 0x7f800000u | (mant << 13));
  return ts_bits_f32(sign | ((exp - 15u + 127u) << 23) | (mant << 13));
}
static inline uint16_t ts_f2bf(float value) {
  uint32_t x = ts_f32_bits(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
static inline float ts_bf2f(uint16_t b) { return ts_bits_f32((uint32_t)b << 16); }
static inline float ts_round_f16(float v) { return ts_h2f(ts_f2h(v)); }
static inline float ts_round_bf16(float v) { return ts_bf2f(ts_f2bf(v)); }

/* float -> integer: truncation toward zero, saturating, NaN and infinities to 0. */
static inline int64_t ts_f2i(double v) {
  if (!__builtin_isfinite(v)) return 0;
  if (v >= 9.2233720368547758e18) return INT64_MAX;
  if (v <= -9.2233720368547758e18) return INT64_MIN;
  return (int64_t)v;
}

/* Integer division family in int64 (callers wrap to the result type); a zero divisor
 * sets *st = 2 and yields 0. Division by -1 negates with wrap-around. */
static inline int64_t ts_neg_i64(int64_t x) { return (int64_t)(0u - (uint64_t)x); }
static inline int64_t ts_div_i64(int64_t x, int64_t y, int32_t* st) {
  if (y == 0) { *st = 2; return 0; }
  return y == -1 ? ts_neg_i64(x) : x / y;
}
static inline int64_t ts_floordiv_i64(int64_t x, int64_t y, int32_t* st) {
  if (y == 0) { *st = 2; return 0; }
  if (y == -1) return ts_neg_i64(x);
  int64_t q = x / y;
  if (x % y != 0 && ((x < 0) != (y < 0))) --q;
  return q;
}
static inline int64_t ts_floormod_i64(int64_t x, int64_t y, int32_t* st) {
  if (y == 0) { *st = 2; return 0; }
  if (y == -1) return 0;
  int64_t r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return r;
}
static inline int64_t ts_fmod_i64(int64_t x, int64_t y, int32_t* st) {
  if (y == 0) { *st = 2; return 0; }
  return y == -1 ? 0 : x % y;
}
/* The same for a divisor known to be a non-zero constant other than -1. */
static inline int64_t ts_floordiv_c(int64_t x, int64_t y) {
  int64_t q = x / y;
  if (x % y != 0 && ((x < 0) != (y < 0))) --q;
  return q;
}
static inline int64_t ts_floormod_c(int64_t x, int64_t y) {
  int64_t r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return r;
}
static inline int64_t ts_abs_i64(int64_t x) { return x < 0 ? ts_neg_i64(x) : x; }
static inline int64_t ts_min_i64(int64_t a, int64_t b) { return b < a ? b : a; }
static inline int64_t ts_max_i64(int64_t a, int64_t b) { return a < b ? b : a; }
/* std::min / std::max, NaN behaviour included. */
static inline float ts_min_f32(float a, float b) { return b < a ? b : a; }
static inline float ts_max_f32(float a, float b) { return a < b ? b : a; }
static inline double ts_min_f64(double a, double b) { return b < a ? b : a; }
static inline double ts_max_f64(double a, double b) { return a < b ? b : a; }
/* Branchless select (a tensor-IR Select may evaluate both sides): a `c ? a : b` on
   floats can compile to a data-dependent branch, which mispredicts on real activations
   (a clip epilogue's scalar tail ran the whole kernel 1.6x slower). */
#define TS_DEFINE_SEL(name, T, U)                                 \
  static inline T name(int c, T a, T b) {                         \
    U m = (U)0 - (U)(c != 0), x, y;                               \
    __builtin_memcpy(&x, &a, sizeof x);                           \
    __builtin_memcpy(&y, &b, sizeof y);                           \
    x = (x & m) | (y & ~m);                                       \
    __builtin_memcpy(&a, &x, sizeof a);                           \
    return a;                                                     \
  }
TS_DEFINE_SEL(ts_sel_f32, float, uint32_t)
TS_DEFINE_SEL(ts_sel_f64, double, uint64_t)
#undef TS_DEFINE_SEL
/* Float floordiv / floormod, computed in double as the interpreter does. */
static inline double ts_floordiv_f64(double x, double y) { return __builtin_floor(x / y); }
static inline double ts_floormod_f64(double x, double y) {
  volatile double p = __builtin_floor(x / y) * y; /* volatile: no fused multiply-add */
  return x - p;
}
static inline float ts_floordiv_f32(float x, float y) { return (float)ts_floordiv_f64(x, y); }
static inline float ts_floormod_f32(float x, float y) { return (float)ts_floormod_f64(x, y); }
)";

constexpr const char* kVectorMath =
    R"(/* Vector math on float32 lanes for vectorized loops (at most 2 ulp from the correctly
 * rounded result; float64 loops call libm per element). exp: range reduction by ln 2,
 * Cephes' polynomial, and scaling by two exact powers of two so results in the subnormal
 * range stay right (AVX-512's SCALEF does that scaling in one instruction, rounding once:
 * the exponent bit arithmetic and the two products were a third of exp's operations, and
 * an exact-GELU loop ran 0.54 -> 0.43 ns per element with it); NaN, overflow to inf and
 * underflow to 0 as libm, with no select: the
 * clamp's ends are past the edges (89: 2^128 overflows to inf; -104: below half the least
 * subnormal, rounds to 0) and a NaN passes the clamp and the arithmetic as NaN. */
static inline ts_vf32 ts_vexp_f32(ts_vf32 x) {
  const ts_vf32 hi = ts_vbcast_f32(89.0f), lo = ts_vbcast_f32(-104.0f);
  ts_vf32 c = ts_vmin_f32(ts_vmax_f32(x, lo), hi);
  const ts_vf32 magic = ts_vbcast_f32(12582912.0f); /* 1.5 * 2^23: round to nearest */
  ts_vf32 t = c * ts_vbcast_f32(1.44269504088896341f) + magic;
  ts_vf32 n = t - magic;
  ts_vf32 r = c - n * ts_vbcast_f32(0.693359375f);
  r = r - n * ts_vbcast_f32(-2.12194440e-4f);
  ts_vf32 p = ts_vbcast_f32(1.9875691500E-4f);
  p = p * r + ts_vbcast_f32(1.3981999507E-3f);
  p = p * r + ts_vbcast_f32(8.3334519073E-3f);
  p = p * r + ts_vbcast_f32(4.1665795894E-2f);
  p = p * r + ts_vbcast_f32(1.6666665459E-1f);
  p = p * r + ts_vbcast_f32(5.0000001201E-1f);
  p = p * (r * r) + r + ts_vbcast_f32(1.0f);
#if defined(TS_VSCALEF_f32)
  return TS_VSCALEF_f32(p, n);
#else
  ts_mf32 ni = (ts_mf32)t - (ts_mf32)magic;
  ts_mf32 n1 = ni >> 1, n2 = ni - n1;
  return p * (ts_vf32)((n1 + 127) << 23) * (ts_vf32)((n2 + 127) << 23);
#endif
}
/* |a| with the sign of b. */
static inline ts_vf32 ts_vcopysign_f32(ts_vf32 a, ts_vf32 b) {
  const ts_mf32 sign = (ts_mf32)ts_vbcast_f32(-0.0f);
  return (ts_vf32)(((ts_mf32)a & ~sign) | ((ts_mf32)b & sign));
}
static inline ts_vf32 ts_vsigmoid_f32(ts_vf32 x) {
  return ts_vbcast_f32(1.0f) / (ts_vbcast_f32(1.0f) + ts_vexp_f32(-x));
}
/* tanh: Cephes' odd polynomial below 0.625, else 1 - 2 / (exp(2|x|) + 1). */
static inline ts_vf32 ts_vtanh_f32(ts_vf32 x) {
  ts_vf32 ax = ts_vabs_f32(x), z = x * x;
  ts_vf32 s = ts_vbcast_f32(-5.70498872745E-3f);
  s = s * z + ts_vbcast_f32(2.06390887954E-2f);
  s = s * z + ts_vbcast_f32(-5.37397155531E-2f);
  s = s * z + ts_vbcast_f32(1.33314422036E-1f);
  s = s * z + ts_vbcast_f32(-3.33332819422E-1f);
  s = s * z * x + x;
  ts_vf32 l = ts_vbcast_f32(1.0f) -
              ts_vbcast_f32(2.0f) / (ts_vexp_f32(ax + ax) + ts_vbcast_f32(1.0f));
  return ts_vsel_f32(ax < ts_vbcast_f32(0.625f), s, ts_vcopysign_f32(l, x));
}
/* erf: Cephes' odd polynomial below 1, else 1 - erfc with the Numerical Recipes erfc
 * (relative error below 1.2e-7). */
static inline ts_vf32 ts_verf_f32(ts_vf32 x) {
  ts_vf32 ax = ts_vabs_f32(x), z = x * x;
  ts_vf32 s = ts_vbcast_f32(7.853861353153693E-5f);
  s = s * z + ts_vbcast_f32(-8.010193625184903E-4f);
  s = s * z + ts_vbcast_f32(5.188327685732524E-3f);
  s = s * z + ts_vbcast_f32(-2.685381193529856E-2f);
  s = s * z + ts_vbcast_f32(1.128358514861418E-1f);
  s = s * z + ts_vbcast_f32(-3.761262582423300E-1f);
  s = s * z + ts_vbcast_f32(1.128379165726710E+0f);
  s = s * x;
  ts_vf32 t = ts_vbcast_f32(1.0f) / (ts_vbcast_f32(1.0f) + ts_vbcast_f32(0.5f) * ax);
  ts_vf32 q = ts_vbcast_f32(0.17087277f);
  q = q * t + ts_vbcast_f32(-0.82215223f);
  q = q * t + ts_vbcast_f32(1.48851587f);
  q = q * t + ts_vbcast_f32(-1.13520398f);
  q = q * t + ts_vbcast_f32(0.27886807f);
  q = q * t + ts_vbcast_f32(-0.18628806f);
  q = q * t + ts_vbcast_f32(0.09678418f);
  q = q * t + ts_vbcast_f32(0.37409196f);
  q = q * t + ts_vbcast_f32(1.00002368f);
  q = q * t + ts_vbcast_f32(-1.26551223f);
  ts_vf32 l = ts_vbcast_f32(1.0f) - t * ts_vexp_f32(q - z);
  return ts_vsel_f32(ax < ts_vbcast_f32(1.0f), s, ts_vcopysign_f32(l, x));
}
)";

}  // namespace

std::string Prelude(int vector_bytes) {
  std::string s;
  s += "/* Generated by Tessera: C kernels following tessera/runtime/kernel_abi.h. */\n";
  s += native::KernelAbiDeclarations() + "\n";
  s += R"(extern int posix_memalign(void** memptr, size_t alignment, size_t size);
extern void free(void* ptr);

)";
  s += kScalarHelpers;
  // SIMD types for vectorized loops: one register of float32 / float64 lanes and the
  // matching comparison masks.
  int f32_lanes = vector_bytes / 4, f64_lanes = vector_bytes / 8;
  std::string vb = std::to_string(vector_bytes);
  s += "\n/* SIMD: " + vb + "-byte vectors (" + std::to_string(f32_lanes) + " x float32, " +
       std::to_string(f64_lanes) + " x float64). */\n";
  // A permutation of a vector's lanes (the lane indices after the mask type): GCC before
  // 12 has only __builtin_shuffle, clang only __builtin_shufflevector.
  s += "#if defined(__clang__) || __GNUC__ >= 12\n"
       "#define TS_SWAP_LANES(v, mask_type, ...) __builtin_shufflevector(v, v, __VA_ARGS__)\n"
       "#else\n"
       "#define TS_SWAP_LANES(v, mask_type, ...) __builtin_shuffle(v, (mask_type){__VA_ARGS__})\n"
       "#endif\n";
  struct Kind {
    const char* suffix;
    const char* elem;
    const char* mask_elem;
    int lanes;
    const char* abs_mask;
  };
  for (const Kind& k :
       {Kind{"f32", "float", "int32_t", f32_lanes, "0x7fffffff"},
        Kind{"f64", "double", "int64_t", f64_lanes, "INT64_C(0x7fffffffffffffff)"}}) {
    std::string v = std::string("ts_v") + k.suffix, m = std::string("ts_m") + k.suffix;
    std::string e = k.elem, me = k.mask_elem, sfx = k.suffix;
    s += "typedef " + e + " " + v + " __attribute__((vector_size(" + vb + ")));\n";
    s += "typedef " + me + " " + m + " __attribute__((vector_size(" + vb + ")));\n";
    auto lanes = [&](const std::string& x) {
      std::string r = "{";
      for (int i = 0; i < k.lanes; ++i) r += (i ? ", " : "") + x;
      return r + "}";
    };
    s += "static inline " + v + " ts_vload_" + sfx + "(const " + e + "* p) { " + v +
         " r; __builtin_memcpy(&r, p, sizeof r); return r; }\n";
    s += "static inline void ts_vstore_" + sfx + "(" + e + "* p, " + v +
         " x) { __builtin_memcpy(p, &x, sizeof x); }\n";
    s += "static inline " + v + " ts_vbcast_" + sfx + "(" + e + " x) { " + v +
         " r = " + lanes("x") + "; return r; }\n";
    s += "static inline " + m + " ts_vmask_" + sfx + "(int c) { " + me + " x = c ? -1 : 0; " + m +
         " r = " + lanes("x") + "; return r; }\n";
    s += "static inline " + v + " ts_vsel_" + sfx + "(" + m + " c, " + v + " t, " + v +
         " f) { return (" + v + ")((c & (" + m + ")t) | (~c & (" + m + ")f)); }\n";
    // min / max as std::min / std::max (b < a ? b : a, a < b ? b : a): x86's MIN/MAX
    // return their second operand when either is NaN, so MIN(b, a) and MAX(b, a) are
    // exactly these, in one instruction instead of a compare and a bitwise select (which
    // made exp's clamp a third of its cost). Other CPUs, or an ISA the C compiler does
    // not target, take the select.
    const bool f32 = sfx == "f32";
    const std::string ps = f32 ? "ps" : "pd", all = f32 ? "(unsigned short)-1" : "(unsigned char)-1";
    if (vector_bytes == 64) {
      s += "#if defined(__AVX512F__) && defined(__clang__)\n";
      s += "#define TS_VMIN_" + sfx + "(x, y) __builtin_ia32_min" + ps + "512(x, y, 4)\n";
      s += "#define TS_VMAX_" + sfx + "(x, y) __builtin_ia32_max" + ps + "512(x, y, 4)\n";
      s += "#elif defined(__AVX512F__)\n";
      s += "#define TS_VMIN_" + sfx + "(x, y) __builtin_ia32_min" + ps + "512_mask(x, y, x, " + all +
           ", 4)\n";
      s += "#define TS_VMAX_" + sfx + "(x, y) __builtin_ia32_max" + ps + "512_mask(x, y, x, " + all +
           ", 4)\n";
      s += "#endif\n";
    } else {
      std::string guard = vector_bytes == 32 ? "__AVX__" : f32 ? "__SSE__" : "__SSE2__";
      std::string w = vector_bytes == 32 ? "256" : "";
      s += "#if defined(" + guard + ")\n";
      s += "#define TS_VMIN_" + sfx + "(x, y) __builtin_ia32_min" + ps + w + "(x, y)\n";
      s += "#define TS_VMAX_" + sfx + "(x, y) __builtin_ia32_max" + ps + w + "(x, y)\n";
      s += "#endif\n";
    }
    s += "#if defined(TS_VMIN_" + sfx + ")\n";
    s += "static inline " + v + " ts_vmin_" + sfx + "(" + v + " a, " + v + " b) { return TS_VMIN_" +
         sfx + "(b, a); }\n";
    s += "static inline " + v + " ts_vmax_" + sfx + "(" + v + " a, " + v + " b) { return TS_VMAX_" +
         sfx + "(b, a); }\n";
    s += "#else\n";
    s += "static inline " + v + " ts_vmin_" + sfx + "(" + v + " a, " + v + " b) { return ts_vsel_" +
         sfx + "(b < a, b, a); }\n";
    s += "static inline " + v + " ts_vmax_" + sfx + "(" + v + " a, " + v + " b) { return ts_vsel_" +
         sfx + "(a < b, b, a); }\n";
    s += "#endif\n";
    s += "static inline " + v + " ts_vabs_" + sfx + "(" + v + " a) { " + me + " x = " + k.abs_mask +
         "; " + m + " k = " + lanes("x") + "; return (" + v + ")((" + m + ")a & k); }\n";
  }
  if (vector_bytes == 64) {
    // x * 2^floor(y) for float32 lanes (exp's final scaling).
    s += "#if defined(__AVX512F__)\n"
         "#define TS_VSCALEF_f32(x, y) __builtin_ia32_scalefps512_mask(x, y, x, (unsigned short)-1, 4)\n"
         "#endif\n";
    // Masked loads and stores of the first n lanes (a vectorized loop's tail on AVX-512):
    // the compilers' AVX-512 builtins, or lane by lane where the C compiler targets less.
    s += R"(#if defined(__AVX512F__)
static inline ts_vf32 ts_vloadm_f32(const float* p, int64_t n) { return __builtin_ia32_loadups512_mask(p, ts_vbcast_f32(0.0f), (unsigned short)((1u << n) - 1u)); }
static inline void ts_vstorem_f32(float* p, ts_vf32 x, int64_t n) { __builtin_ia32_storeups512_mask(p, x, (unsigned short)((1u << n) - 1u)); }
static inline ts_vf64 ts_vloadm_f64(const double* p, int64_t n) { return __builtin_ia32_loadupd512_mask(p, ts_vbcast_f64(0.0), (unsigned char)((1u << n) - 1u)); }
static inline void ts_vstorem_f64(double* p, ts_vf64 x, int64_t n) { __builtin_ia32_storeupd512_mask(p, x, (unsigned char)((1u << n) - 1u)); }
#else
static inline ts_vf32 ts_vloadm_f32(const float* p, int64_t n) { ts_vf32 r = ts_vbcast_f32(0.0f); for (int64_t i = 0; i < n; ++i) r[i] = p[i]; return r; }
static inline void ts_vstorem_f32(float* p, ts_vf32 x, int64_t n) { for (int64_t i = 0; i < n; ++i) p[i] = x[i]; }
static inline ts_vf64 ts_vloadm_f64(const double* p, int64_t n) { ts_vf64 r = ts_vbcast_f64(0.0); for (int64_t i = 0; i < n; ++i) r[i] = p[i]; return r; }
static inline void ts_vstorem_f64(double* p, ts_vf64 x, int64_t n) { for (int64_t i = 0; i < n; ++i) p[i] = x[i]; }
#endif
)";
  }
  s += kVectorMath;
  s += "\n";
  return s;
}

namespace {

const std::unordered_set<std::string>& ReservedNames() {
  static const std::unordered_set<std::string> names = {
      // C keywords
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
      "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
      "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
      "union", "unsigned", "void", "volatile", "while", "asm", "typeof", "bool", "true", "false",
      // types and names the generated code uses
      "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
      "size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "NULL", "buffers", "env", "main",
      "posix_memalign", "free", "malloc", "calloc", "memcpy", "memset", "memmove", "abort",
      // libm functions the builtins may call
      "exp", "expf", "log", "logf", "sqrt", "sqrtf", "tanh", "tanhf", "erf", "erff", "fabs",
      "fabsf", "floor", "floorf", "ceil", "ceilf", "nearbyint", "nearbyintf", "sin", "sinf", "cos",
      "cosf", "pow", "powf", "fmod", "fmodf", "isnan", "isfinite"};
  return names;
}

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::string SanitizeIdentifier(const std::string& name, const char* reserved_prefix) {
  std::string s;
  for (char c : name) s += IsIdentChar(c) ? c : '_';
  bool clash = s.empty() || (s[0] >= '0' && s[0] <= '9') || s[0] == '_' || s.rfind("ts", 0) == 0 ||
               s.rfind("Ts", 0) == 0 || s.rfind("TS", 0) == 0 || s.rfind("INT", 0) == 0 ||
               s.rfind("UINT", 0) == 0 || ReservedNames().count(s);
  return clash ? reserved_prefix + s : s;
}

const char* StorageCType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "float";
    case DType::kFloat64:
      return "double";
    case DType::kFloat16:
    case DType::kBFloat16:
      return "uint16_t";
    case DType::kInt8:
      return "int8_t";
    case DType::kInt32:
      return "int32_t";
    case DType::kInt64:
      return "int64_t";
    case DType::kUInt8:
    case DType::kBool:
      return "uint8_t";
  }
  TS_THROW(kInternal) << "unknown dtype";
}

const char* ValueCType(DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
    case DType::kBFloat16:
      return "float";
    case DType::kBool:
      return "int";
    default:
      return StorageCType(dtype);
  }
}

}  // namespace tessera::native::detail

namespace tessera::native {

std::vector<std::string> CSymbolNames(const std::vector<std::string>& symbols) {
  std::vector<std::string> out;
  std::unordered_set<std::string> taken;
  for (const std::string& sym : symbols) {
    std::string base = detail::SanitizeIdentifier(sym, "tsk_");
    std::string name = base;
    for (int n = 1; taken.count(name); ++n) name = base + "_" + std::to_string(n);
    taken.insert(name);
    out.push_back(name);
  }
  return out;
}

std::string KernelAbiDeclarations() {
  return R"(#include <stddef.h>
#include <stdint.h>

#ifndef TESSERA_RUNTIME_KERNEL_ABI_H_
#define TESSERA_RUNTIME_KERNEL_ABI_H_
typedef void (*TsParallelBody)(void* closure, int64_t begin, int64_t end);
typedef struct TsKernelEnv {
  void* pool;
  void (*parallel_for)(void* pool, int64_t n, TsParallelBody body, void* closure);
  int32_t reverse;
} TsKernelEnv;
typedef int32_t (*TsKernelFn)(void* const* buffers, const TsKernelEnv* env);
#endif /* TESSERA_RUNTIME_KERNEL_ABI_H_ */
)";
}

}  // namespace tessera::native
