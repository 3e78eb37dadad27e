// `tessera run FILE`: runs @main on .npy inputs — with the interpreter, built for a target,
// or from a compiled executable — and writes or prints the outputs.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include <fstream>
#include "cli.h"

#include "tessera/backend/build.h"
#include "tessera/backend/interp/interpreter.h"
#include "tessera/runtime/npy.h"
#include "tessera/support/error.h"

namespace tessera::cli {

static const char* kRunHelp =
    "usage: tessera run FILE --input NAME=FILE.npy ... [--target T] [--output OUT.npy|DIR]\n"
    "                 [--time]\n"
    "\n"
    "Runs @main of a model (ONNX .onnx, text IR or JSON) with the reference interpreter, or\n"
    "built for --target; or runs an executable written by `tessera compile`.\n"
    "  --input NAME=PATH   value of parameter NAME from a .npy file (repeat per parameter)\n"
    "  --shape NAME=D1,... static shape of ONNX input NAME (symbolic dimensions)\n"
    "  --target TARGET     build for TARGET first (e.g. native, \"native -num_threads=1\")\n"
    "  --threads N         threads of the executor (0 = all cores; compiled files)\n"
    "  --output PATH       write the result to PATH (a tuple result writes PATH with\n"
    "                      _0, _1, ... before the extension); an existing directory (or a\n"
    "                      PATH ending in '/') gets output_0.npy, output_1.npy, ...;\n"
    "                      default: print it\n"
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

/// Whether `path` holds an executable written by `tessera compile` (by its magic bytes).
static bool IsExecutableFile(const std::string& path) {
  if (path == "-") return false;
  std::ifstream in(path, std::ios::binary);
  char magic[12] = {};
  return in.read(magic, sizeof magic) && std::string(magic, sizeof magic) == "TESSERA-EXEC";
}

/// A non-negative count from the command line.
static int ParseCount(const std::string& text) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0 || v > 4096)
    TS_THROW(kValue) << "--threads expects a count from 0 to 4096, got '" << text << "'";
  return static_cast<int>(v);
}

int RunRun(const std::vector<std::string>& raw_args) {
  ArgList args(raw_args, {"--help", "-h", "--time"},
               {"--input", "--output", "--target", "--threads", "--shape"}, "run");
  if (args.Has("--help") || args.Has("-h")) {
    std::fputs(kRunHelp, stdout);
    return 0;
  }
  if (args.positionals().size() != 1) {
    std::fputs(kRunHelp, stderr);
    return 2;
  }
  std::map<std::string, NDArray> inputs;
  for (const std::string& spec : args.GetAll("--input")) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      TS_THROW(kValue) << "--input expects NAME=FILE.npy, got '" << spec << "'";
    std::string name = spec.substr(0, eq);
    if (inputs.count(name)) TS_THROW(kValue) << "input '" << name << "' is given twice";
    inputs[name] = ReadNpy(spec.substr(eq + 1));
  }
  const std::string& file = args.positionals()[0];
  std::vector<NDArray> outputs;
  bool is_tuple = false;
  double seconds = 0;
  // Checked whichever way the model runs, so a bad value is never silently ignored.
  int threads = args.Has("--threads") ? ParseCount(args.Get("--threads")) : -1;
  if (IsExecutableFile(file) || args.Has("--target")) {
    std::shared_ptr<runtime::Executable> exe;
    runtime::ExecutorOptions options;
    if (IsExecutableFile(file)) {
      if (args.Has("--target"))
        TS_THROW(kValue) << "'" << file << "' is already compiled; --target applies to modules";
      exe = runtime::Executable::Load(file);
    } else {
      Target target = Target::Parse(args.Get("--target"));
      IRModule mod = LoadModule(file, ShapesFromArgs(args));
      Progress("compiling for " + target.ToString() + " ...");
      exe = Build(mod, {target});
      Progress("");
      options = ExecutorOptionsFor(target);
    }
    if (threads >= 0) options.num_threads = threads;
    runtime::Executor executor(exe, options);
    auto start = std::chrono::steady_clock::now();
    outputs = executor.Run(inputs);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    is_tuple = outputs.size() != 1;
  } else {
    auto start = std::chrono::steady_clock::now();
    Value result = RunMain(LoadModule(file, ShapesFromArgs(args)), inputs);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    outputs = result.Flatten();
    is_tuple = result.is_tuple();
  }
  if (args.Has("--time")) std::fprintf(stderr, "run time: %.3f ms\n", seconds * 1e3);

  std::string out_path = args.Get("--output");
  std::error_code ec;
  bool to_dir =
      !out_path.empty() && (out_path.back() == '/' || std::filesystem::is_directory(out_path, ec));
  if (to_dir) std::filesystem::create_directories(out_path, ec);
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (out_path.empty()) {
      std::printf("output %zu: %s\n", i, Summarize(outputs[i]).c_str());
      continue;
    }
    if (to_dir)
      WriteNpy(
          (std::filesystem::path(out_path) / ("output_" + std::to_string(i) + ".npy")).string(),
          outputs[i]);
    else
      WriteNpy(is_tuple ? IndexedPath(out_path, i) : out_path, outputs[i]);
  }
  return 0;
}

}  // namespace tessera::cli
