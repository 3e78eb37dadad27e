// `tessera bench FILE`: builds a model for a target (or loads a compiled one) and prints
// its latency (median / p90 over timed runs after warm-up) and per-kernel profile.
#include <cstdio>
#include <fstream>

#include "cli.h"
#include "tessera/backend/build.h"
#include "tessera/runtime/executable.h"
#include "tessera/runtime/npy.h"
#include "tessera/support/error.h"
#include "tessera/target/target.h"

namespace tessera::cli {

static const char* kBenchHelp =
    "usage: tessera bench FILE [--target TARGET] [--threads N] [--warmup W] [--repeat R]\n"
    "                   [--input NAME=FILE.npy ...] [--no-profile]\n"
    "\n"
    "Builds a model (ONNX .onnx, text IR or JSON) for TARGET, or loads an executable written\n"
    "by `tessera compile`, then times whole runs (after W warm-up runs) and prints the\n"
    "median, p90 and minimum latency, followed by the per-kernel profile.\n"
    "  --target TARGET   e.g. native (default), \"native -num_threads=1\", interp\n"
    "  --threads N       threads of the executor (default: the target's, 0 = all cores)\n"
    "  --warmup W        untimed runs first (default 3)\n"
    "  --repeat R        timed runs (default 20)\n"
    "  --input NAME=PATH an input from a .npy file; inputs not given are seeded random:\n"
    "                    uniform in [-1, 1] (floats) or zeros (integers)\n"
    "  --shape NAME=D1,... static shape of ONNX input NAME (symbolic dimensions)\n"
    "  --no-profile      skip the per-kernel profile\n"
    "%s";

/// A non-negative integer option value no larger than `max`.
static int ParseInt(const std::string& text, const char* option, int max) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0 || v > max)
    TS_THROW(kValue) << option << " expects an integer from 0 to " << max << ", got '" << text
                     << "'";
  return static_cast<int>(v);
}

static bool IsCompiled(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[12] = {};
  return in.read(magic, sizeof magic) && std::string(magic, sizeof magic) == "TESSERA-EXEC";
}

int RunBench(const std::vector<std::string>& raw_args) {
  ArgList args(
      raw_args, {"--help", "-h", "--no-profile"},
      {"--target", "--threads", "--warmup", "--repeat", "--input", "--shape", CONTEXT_OPTIONS},
      "bench");
  if (args.Has("--help") || args.Has("-h")) {
    std::printf(kBenchHelp, kContextHelp);
    return 0;
  }
  if (args.positionals().size() != 1) {
    std::fprintf(stderr, kBenchHelp, kContextHelp);
    return 2;
  }
  const std::string& file = args.positionals()[0];
  int warmup = ParseInt(args.Get("--warmup", "3"), "--warmup", 100000);
  int repeat = ParseInt(args.Get("--repeat", "20"), "--repeat", 1000000);
  if (repeat < 1) TS_THROW(kValue) << "--repeat must be at least 1";
  std::shared_ptr<runtime::Executable> exe;
  runtime::ExecutorOptions options;
  if (IsCompiled(file)) {
    if (args.Has("--target"))
      TS_THROW(kValue) << "'" << file << "' is already compiled; --target applies to models";
    exe = runtime::Executable::Load(file);
  } else {
    IRModule mod = LoadModule(file, ShapesFromArgs(args));
    Target target = Target::Parse(args.Get("--target", "native"));
    PassContext ctx = ContextFromArgs(args);
    PassContext::Scope scope(ctx);
    Progress("compiling for " + target.ToString() + " ...");
    exe = Build(mod, {target});
    Progress("");
    options = ExecutorOptionsFor(target);
  }
  if (args.Has("--threads"))
    options.num_threads = ParseInt(args.Get("--threads"), "--threads", 4096);

  std::map<std::string, NDArray> inputs;
  for (const std::string& spec : args.GetAll("--input")) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      TS_THROW(kValue) << "--input expects NAME=FILE.npy, got '" << spec << "'";
    inputs[spec.substr(0, eq)] = ReadNpy(spec.substr(eq + 1));
  }
  for (auto& [name, value] : runtime::RandomInputs(*exe)) inputs.emplace(name, value);

  runtime::Executor executor(exe, options);
  Progress("benchmarking: " + std::to_string(warmup) + " warm-up + " + std::to_string(repeat) +
           " timed runs ...");
  runtime::BenchmarkResult r = executor.Benchmark(inputs, warmup, repeat);
  Progress("");
  std::printf("%s: %zu kernel call(s), %d thread(s)\n", file.c_str(), exe->instructions().size(),
              executor.pool().num_threads());
  std::printf("latency: median %.3f ms, p90 %.3f ms, min %.3f ms (%d runs after %d warm-up)\n",
              r.median_ms, r.p90_ms, r.min_ms, r.repeat, warmup);
  if (!args.Has("--no-profile")) {
    Progress("profiling ...");
    runtime::ProfileReport profile = executor.Profile(inputs, repeat);
    Progress("");
    std::printf("per-kernel profile (%d runs):\n%s", repeat, profile.table.c_str());
  }
  return 0;
}

}  // namespace tessera::cli
