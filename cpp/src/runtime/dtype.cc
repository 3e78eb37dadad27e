// Element data type names and sizes.
#include "tessera/runtime/dtype.h"

#include <limits>

#include "tessera/runtime/ndarray.h"
#include "tessera/support/error.h"

namespace tessera {

namespace {
struct DTypeInfo {
  DType dtype;
  const char* name;
  int bytes;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::kFloat32, "float32", 4},   {DType::kFloat16, "float16", 2},
    {DType::kBFloat16, "bfloat16", 2}, {DType::kFloat64, "float64", 8},
    {DType::kInt8, "int8", 1},         {DType::kInt32, "int32", 4},
    {DType::kInt64, "int64", 8},       {DType::kUInt8, "uint8", 1},
    {DType::kBool, "bool", 1},
};
}  // namespace

const char* DTypeName(DType dtype) {
  return kDTypes[static_cast<int>(dtype)].name;
}

int DTypeBytes(DType dtype) {
  return kDTypes[static_cast<int>(dtype)].bytes;
}

std::optional<DType> ParseDType(std::string_view name) {
  for (const auto& info : kDTypes)
    if (name == info.name) return info.dtype;
  return std::nullopt;
}

DType ParseDTypeOrThrow(std::string_view name, std::string_view what) {
  if (auto dtype = ParseDType(name)) return *dtype;
  std::string valid;
  for (const auto& info : kDTypes) valid += std::string(valid.empty() ? "" : ", ") + info.name;
  TS_THROW(kValue) << what << ": unknown dtype '" << name << "' (valid: " << valid << ")";
}

bool IsFloat(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat16 || dtype == DType::kBFloat16 ||
         dtype == DType::kFloat64;
}

bool IsInteger(DType dtype) {
  return dtype == DType::kInt8 || dtype == DType::kInt32 || dtype == DType::kInt64 ||
         dtype == DType::kUInt8;
}

int64_t WrapToDType(DType dtype, int64_t v) {
  switch (dtype) {
    case DType::kInt8:
      return static_cast<int8_t>(v);
    case DType::kInt32:
      return static_cast<int32_t>(v);
    case DType::kUInt8:
      return static_cast<uint8_t>(v);
    case DType::kBool:
      return v != 0;
    default:
      return v;
  }
}

double RoundToDType(DType dtype, double v) {
  switch (dtype) {
    case DType::kFloat32:
      return static_cast<float>(v);
    case DType::kFloat16:
      return HalfToFloat(FloatToHalf(static_cast<float>(v)));
    case DType::kBFloat16:
      return BFloat16ToFloat(FloatToBFloat16(static_cast<float>(v)));
    default:
      return v;
  }
}

bool FitsDType(DType dtype, int64_t v) {
  switch (dtype) {
    case DType::kInt8:
      return v >= INT8_MIN && v <= INT8_MAX;
    case DType::kUInt8:
      return v >= 0 && v <= UINT8_MAX;
    case DType::kInt32:
      return v >= INT32_MIN && v <= INT32_MAX;
    case DType::kInt64:
      return true;
    case DType::kBool:
      return v == 0 || v == 1;
    default:
      return false;
  }
}

double LowestValue(DType dtype) {
  switch (dtype) {
    case DType::kFloat64:
      return std::numeric_limits<double>::lowest();
    case DType::kFloat16:
      return -65504.0;
    case DType::kBFloat16:
      return -3.3895313892515355e38;
    case DType::kInt8:
      return -128.0;
    case DType::kInt32:
      return static_cast<double>(std::numeric_limits<int32_t>::min());
    case DType::kInt64:
      return static_cast<double>(std::numeric_limits<int64_t>::min());
    case DType::kUInt8:
    case DType::kBool:
      return 0.0;
    case DType::kFloat32:
      break;
  }
  return std::numeric_limits<float>::lowest();
}

}  // namespace tessera
