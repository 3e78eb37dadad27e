// JSON export and import of modules (the machine format; round-trips like the text).
#pragma once

#include <string>
#include <string_view>

#include "tessera/ir/module.h"

namespace tessera {

/// Serialises a module to JSON: a node table (sharing preserved), the function list,
/// and constants as base64 data.
std::string ModuleToJson(const IRModule& mod, int indent = -1);
/// Parses JSON written by ModuleToJson; throws a parse error naming the JSON path of
/// the problem on malformed input.
IRModule ModuleFromJson(std::string_view json);

}  // namespace tessera
