// Element data types shared by tensor types, NDArrays and tensor-level scalars.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera {

/// The element type of a tensor or a tensor-IR scalar.
enum class DType : uint8_t {
  kFloat32,
  kFloat16,
  kBFloat16,
  kFloat64,
  kInt8,
  kInt32,
  kInt64,
  kUInt8,
  kBool,
};

/// Canonical name ("float32", "int64", "bool", ...).
const char* DTypeName(DType dtype);
/// Parses a canonical name; nullopt when unknown.
std::optional<DType> ParseDType(std::string_view name);
/// Parses a canonical name or throws a value error naming `what` and the valid names.
DType ParseDTypeOrThrow(std::string_view name, std::string_view what);
/// Size of one element in bytes.
int DTypeBytes(DType dtype);
/// True for float16/bfloat16/float32/float64.
bool IsFloat(DType dtype);
/// True for the signed and unsigned integer types (not bool).
bool IsInteger(DType dtype);

// Value facts every evaluator (interpreter, constant folding, code generation) must agree on.

/// `v` wrapped to the width of integer dtype `dtype` (two's complement, as a C cast and a
/// store do); bool gives v != 0; other dtypes return `v` unchanged.
int64_t WrapToDType(DType dtype, int64_t v);
/// `v` rounded to the precision of float dtype `dtype` (to nearest even, as a store does);
/// other dtypes return `v` unchanged.
double RoundToDType(DType dtype, double v);
/// Whether integer `v` is representable in int or bool dtype `dtype` (false for floats).
bool FitsDType(DType dtype, int64_t v);
/// The most negative finite value of `dtype` (what max pooling starts from).
double LowestValue(DType dtype);

}  // namespace tessera
