// Element data type names and sizes.
#include "tessera/runtime/dtype.h"

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

}  // namespace tessera
