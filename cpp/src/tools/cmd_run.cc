// `tessera run FILE`: evaluates @main on .npy inputs and writes or prints the outputs.
#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>

#include "cli.h"
#include "tessera/backend/interp/interpreter.h"
#include "tessera/runtime/npy.h"
#include "tessera/support/error.h"

namespace tessera::cli {

static const char* kRunHelp =
    "usage: tessera run FILE --input NAME=FILE.npy ... [--output OUT.npy] [--time]\n"
    "\n"
    "Evaluates @main of a module (text IR or JSON) with the reference interpreter.\n"
    "  --input NAME=PATH   value of parameter NAME from a .npy file (repeat per parameter)\n"
    "  --output PATH       write the result to PATH (a tuple result writes PATH with\n"
    "                      _0, _1, ... before the extension); default: print it\n"
    "  --time              print the evaluation time to stderr\n";

/// Prints up to 16 leading values of a tensor.
static std::string Summarize(const NDArray& array) {
  std::ostringstream out;
  out << array.Describe() << " [";
  int64_t n = array.NumElements();
  for (int64_t i = 0; i < n && i < 16; ++i) out << (i ? ", " : "") << array.GetFloat(i);
  if (n > 16) out << ", ...";
  out << "]";
  return out.str();
}

/// OUT.npy -> OUT_<index>.npy.
static std::string IndexedPath(const std::string& path, size_t index) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return path + "_" + std::to_string(index);
  return path.substr(0, dot) + "_" + std::to_string(index) + path.substr(dot);
}

int RunRun(const std::vector<std::string>& raw_args) {
  ArgList args(raw_args, {"--help", "-h", "--time"}, {"--input", "--output"}, "run");
  if (args.Has("--help") || args.Has("-h")) {
    std::fputs(kRunHelp, stdout);
    return 0;
  }
  if (args.positionals().size() != 1) {
    std::fputs(kRunHelp, stderr);
    return 2;
  }
  IRModule mod = LoadModule(args.positionals()[0]);
  std::map<std::string, NDArray> inputs;
  for (const std::string& spec : args.GetAll("--input")) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      TS_THROW(kValue) << "--input expects NAME=FILE.npy, got '" << spec << "'";
    std::string name = spec.substr(0, eq);
    if (inputs.count(name)) TS_THROW(kValue) << "input '" << name << "' is given twice";
    inputs[name] = ReadNpy(spec.substr(eq + 1));
  }
  auto start = std::chrono::steady_clock::now();
  Value result = RunMain(mod, inputs);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (args.Has("--time")) std::fprintf(stderr, "evaluation time: %.3f ms\n", seconds * 1e3);

  std::vector<NDArray> outputs = result.Flatten();
  std::string out_path = args.Get("--output");
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (out_path.empty()) {
      std::printf("output %zu: %s\n", i, Summarize(outputs[i]).c_str());
      continue;
    }
    WriteNpy(result.is_tuple() ? IndexedPath(out_path, i) : out_path, outputs[i]);
  }
  return 0;
}

}  // namespace tessera::cli
