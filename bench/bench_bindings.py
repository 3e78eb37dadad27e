"""Python binding overhead: the bindings on the C API against another build's bindings.

Times what crosses the binding per call — building IR from Python, walking it, running a
Python pass, a registered pass on a large module, and running a tiny executable (where the
per-call cost is all binding) — in one pinned process per build, alternating builds and
taking the median of each workload over the rounds. Writes bench/results/bindings.{md,json}.

Usage: /usr/bin/python3 bench/bench_bindings.py --build NEW_BUILD_DIR --baseline OLD_BUILD_DIR
       [--rounds N]
(each build dir's python/ holds a built tessera package; e.g. the baseline is a build of the
commit before the bindings moved onto the C API).
"""
import argparse
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent
CHAIN = 2000  # ops in the IR workloads


def workloads():
    """Runs every workload once in this process; returns {name: microseconds per unit}."""
    import numpy as np

    import tessera
    from tessera import ir, op, transform
    from tessera.op import nn

    out = {}

    def timed(name, fn, units, repeat=5):
        fn()  # warm-up
        best = []
        for _ in range(repeat):
            start = time.perf_counter()
            fn()
            best.append((time.perf_counter() - start) * 1e6 / units)
        out[name] = statistics.median(best)

    c = ir.const(np.float32(0.5))

    def build_chain():
        x = ir.var("x", shape=(1, 64), dtype="float32")
        y = x
        for i in range(CHAIN):
            y = nn.relu(y) if i % 2 else op.add(y, c)
        return tessera.IRModule.from_expr(ir.Function([x], y))

    timed("build IR (us/op)", build_chain, CHAIN)
    mod = build_chain()

    def walk():
        node, seen = mod["main"].body, 0
        while isinstance(node, ir.Call):
            seen += len(node.op.name) + len(node.attrs)
            node = node.args[0]
        return seen

    timed("walk IR: op, attrs, args (us/op)", walk, CHAIN)
    infer = transform.InferType()
    timed("InferType on the chain (us/op)", lambda: infer(mod), CHAIN)

    @transform.module_pass(opt_level=0)
    def identity(m, ctx):
        return m

    seq = transform.Sequential([identity] * 100)
    timed("Python module pass in a Sequential (us/pass)", lambda: seq(mod), 100)

    small = ir.var("x", shape=(4,), dtype="float32")
    exe = tessera.build(tessera.IRModule.from_expr(ir.Function([small], nn.relu(small))),
                        "native -num_threads=1")
    inputs = {"x": np.ones(4, dtype="float32")}
    timed("run a tiny executable (us/call)", lambda: [exe.run(**inputs) for _ in range(2000)],
          2000)
    # A small real model, where the per-call binding cost is a share of the work.
    rng = np.random.default_rng(0)
    h = ir.var("x", shape=(1, 256), dtype="float32")
    w1 = ir.const(rng.standard_normal((256, 256)).astype("float32"))
    w2 = ir.const(rng.standard_normal((10, 256)).astype("float32"))
    mlp = tessera.build(tessera.IRModule.from_expr(
        ir.Function([h], nn.softmax(nn.dense(nn.relu(nn.dense(h, w1)), w2)))),
        "native -num_threads=1")
    x = {"x": rng.standard_normal((1, 256)).astype("float32")}
    timed("run an MLP 256-256-10 (us/call)", lambda: [mlp.run(**x) for _ in range(500)], 500)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=str(ROOT.parent / "build"))
    parser.add_argument("--baseline", required=False)
    parser.add_argument("--baseline-label", default="baseline",
                        help="what the baseline build is (e.g. its commit)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
        print(json.dumps(workloads()))
        return
    builds = {"C API bindings": args.build}
    if args.baseline:
        builds["baseline"] = args.baseline
    samples = {label: [] for label in builds}
    for _ in range(args.rounds):
        for label, build in builds.items():  # interleaved, so drift hits both alike
            env = dict(os.environ, PYTHONPATH=str(pathlib.Path(build) / "python"),
                       OMP_NUM_THREADS="1")
            result = subprocess.run([sys.executable, __file__, "--worker"], env=env, check=True,
                                    capture_output=True, text=True)
            samples[label].append(json.loads(result.stdout.strip().splitlines()[-1]))
            time.sleep(1)
    medians = {label: {k: statistics.median(s[k] for s in runs) for k in runs[0]}
               for label, runs in samples.items()}
    names = list(next(iter(medians.values())))
    lines = ["# Python binding overhead", "",
             f"{platform.processor() or platform.machine()}, one pinned thread, "
             f"load {os.getloadavg()[0]:.2f}; median of {args.rounds} interleaved rounds, each "
             "the median of 5 repeats. Command: `/usr/bin/python3 bench/bench_bindings.py "
             "--build build --baseline BASELINE_BUILD`." +
             (f" Baseline: {args.baseline_label}." if args.baseline else ""), ""]
    header = "| workload | " + " | ".join(medians) + (" | C API / baseline |" if args.baseline
                                                         else " |")
    lines += [header, "|" + " --- |" * (len(medians) + 1 + bool(args.baseline))]
    for n in names:
        row = f"| {n} | " + " | ".join(f"{medians[label][n]:.2f}" for label in medians)
        if args.baseline:
            row += f" | {medians['C API bindings'][n] / medians['baseline'][n]:.2f}"
        lines.append(row + " |")
    text = "\n".join(lines) + "\n"
    out = ROOT / "results"
    (out / "bindings.md").write_text(text)
    (out / "bindings.json").write_text(json.dumps(medians, indent=1, sort_keys=True) + "\n")
    print(text)


if __name__ == "__main__":
    main()
