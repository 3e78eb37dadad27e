// The ONNX importer: reads an ONNX model (opsets 11-17) into an IRModule whose @main
// takes the graph inputs and returns the graph outputs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tessera/ir/module.h"

namespace tessera {
namespace frontend {

/// Options of the ONNX importer.
struct OnnxImportOptions {
  /// Static shapes for graph inputs, by name; required for inputs whose ONNX shape has
  /// symbolic or unknown dimensions, and allowed to replace a static shape.
  std::map<std::string, std::vector<int64_t>> shape_overrides;
  /// When true, initializers become @main parameters (after the graph inputs, in the
  /// file's initializer order) instead of constants.
  bool params_as_inputs = false;
};

/// Imports the ONNX model file at `path`. Throws a tessera::Error: an IO error for an
/// unreadable file, a parse error for a malformed model, an unsupported error naming the
/// op type, node name, opset and attribute for what the importer does not cover.
IRModule FromOnnxFile(const std::string& path, const OnnxImportOptions& options = {});

/// Imports a serialized ModelProto held in memory; `source` names it in messages.
IRModule FromOnnxBytes(const std::string& bytes, const OnnxImportOptions& options = {},
                       const std::string& source = "<onnx bytes>");

/// The ONNX op types (default domain) the importer converts, sorted.
std::vector<std::string> OnnxSupportedOps();

/// The opset range of the default domain the importer accepts: {11, 17}.
std::pair<int64_t, int64_t> OnnxSupportedOpsetRange();

/// False when Tessera was built without ONNX support (every import then throws an
/// unsupported error).
bool OnnxImporterAvailable();

}  // namespace frontend
}  // namespace tessera
