// The ONNX importer of a build without libonnx/protobuf: every import is an unsupported error.
#include "tessera/frontend/onnx.h"
#include "tessera/support/error.h"

namespace tessera {
namespace frontend {

IRModule FromOnnxFile(const std::string& path, const OnnxImportOptions&) {
  TS_THROW(kUnsupported) << "cannot import '" << path
                         << "': this Tessera was built without ONNX support (TESSERA_WITH_ONNX)";
}

IRModule FromOnnxBytes(const std::string&, const OnnxImportOptions&, const std::string& source) {
  TS_THROW(kUnsupported) << "cannot import " << source
                         << ": this Tessera was built without ONNX support (TESSERA_WITH_ONNX)";
}

std::vector<std::string> OnnxSupportedOps() {
  return {};
}

std::pair<int64_t, int64_t> OnnxSupportedOpsetRange() {
  return {11, 17};
}

bool OnnxImporterAvailable() {
  return false;
}

}  // namespace frontend
}  // namespace tessera
