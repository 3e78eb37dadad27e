"""Layout planning benchmark: ResNet-18, MobileNetV2 and SqueezeNet 1.1 (torchvision, seeded
random weights, exported to ONNX) built natively without layout planning (opt_level 2, the
default), with it (opt_level 3: AlterOpLayout + PlanLayouts), and at opt_level 3 with the
two layout passes disabled (to separate layout planning from the other opt_level 3 passes),
and planned with config native.winograd off (the direct convolution template only);
oneDNN (`native -compiler=dnnl`) as imported (opt_level 2: its partitions take NCHW and
reorder at their edges) and with layout planning (opt_level 3: the graph is planned before
partitioning, so oneDNN takes the NCHW16c convolutions and exchanges blocked tensors with the
native kernels), and PyTorch TorchScript-frozen in the same run. One pinned thread (median
of interleaved rounds), then two threads. Reports latency, the layout transforms executed
per inference (profile rows of kernels holding a layout_transform), the build time (from an
empty kernel cache; bench_compile_time.py measures compile time properly), and
the error against PyTorch. Writes bench/results/layout.{md,json}.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_layout.py [--rounds N]
       [--repeat N] [--models resnet18,...] [--configs "native,oneDNN,..."]
"""
import argparse
import json
import os
import pathlib
import statistics
import sys
import tempfile
import time

import numpy as np
import torch

import tessera
from tessera import transform

ROOT = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from bench_models import machine, make_models  # noqa: E402
from bench_util import set_torch_threads, write_report  # noqa: E402

CONFIGS = {
    "native": dict(opt_level=2),
    "native opt3, no layout planning": dict(opt_level=3,
                                            disabled_pass=["AlterOpLayout", "PlanLayouts"]),
    "native + layout planning": dict(opt_level=3),
    # The same with the direct convolution template only: what Winograd F(2x2, 3x3) adds.
    "native + layout planning, no Winograd": dict(opt_level=3, config={"native.winograd": False}),
}
# The same model partitioned for oneDNN first (`native -compiler=dnnl`).
DNNL_CONFIGS = {
    "oneDNN": dict(opt_level=2),
    "oneDNN + layout planning": dict(opt_level=3),
}


def build(mod, target, ctx):
    with transform.PassContext(**ctx):
        t = time.perf_counter()
        ex = tessera.build(mod, target)
        return ex, time.perf_counter() - t


def transforms_per_run(ex, x):
    prof = ex.profile(input=x, repeat=1)
    return sum(r["calls"] for r in prof["rows"] if "layout_transform" in r["symbol"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--models", default="resnet18,mobilenet_v2,squeezenet1_1")
    parser.add_argument("--configs", default=None,
                        help="comma-separated configurations to run (default: all)")
    args = parser.parse_args()
    wanted = set(args.configs.split(",")) if args.configs else None
    models = {k: v for k, v in make_models().items() if k in args.models.split(",")}
    tmp = tempfile.mkdtemp()
    # An empty kernel cache, so the 1-thread build times are cold ones.
    os.environ["TESSERA_CACHE_DIR"] = os.path.join(tmp, "cache")
    has_dnnl = "dnnl" in tessera.pattern.list_pattern_tables()
    results = []
    for name, (model, shape) in models.items():
        model.eval()
        torch.manual_seed(1)
        xt = torch.randn(*shape)
        x = xt.numpy()
        with torch.no_grad():
            ref = model(xt).numpy()
            frozen = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(model, xt).eval()))
        path = os.path.join(tmp, name + ".onnx")
        torch.onnx.export(model, xt, path, opset_version=13, input_names=["input"],
                          output_names=["output"], do_constant_folding=True)
        mod = tessera.frontend.from_onnx(path)
        row = {"model": name}
        for threads in (1, 2):
            os.sched_setaffinity(0, {0} if threads == 1 else set(range(min(2, os.cpu_count()))))
            set_torch_threads(torch, threads)
            exes, info = {}, {}
            configs = [(cfg, ctx, "") for cfg, ctx in CONFIGS.items()]
            if has_dnnl:
                configs += [(cfg, ctx, " -compiler=dnnl") for cfg, ctx in DNNL_CONFIGS.items()]
            for cfg, ctx, extra in configs:
                if wanted and cfg not in wanted:
                    continue
                ex, secs = build(mod, f"native -num_threads={threads}{extra}", ctx)
                out = ex(input=x)
                err = float(np.max(np.abs(out - ref)) / max(float(np.max(np.abs(ref))), 1e-30))
                exes[cfg] = ex
                info[cfg] = {"build_s": round(secs, 2), "max_rel_err": err,
                             "transforms": transforms_per_run(ex, x), "kernels": len(ex.kernels)}
            times = {k: [] for k in list(exes) + ["PyTorch frozen"]}
            for _ in range(args.rounds):  # interleaved rounds, a pause between configurations
                for k, ex in exes.items():
                    times[k].append(ex.benchmark(input=x, warmup=2, repeat=args.repeat)["median_ms"])
                    time.sleep(0.2)
                with torch.no_grad():
                    for _ in range(2):
                        frozen(xt)
                    ts = []
                    for _ in range(args.repeat):
                        t = time.perf_counter()
                        frozen(xt)
                        ts.append((time.perf_counter() - t) * 1e3)
                times["PyTorch frozen"].append(statistics.median(ts))
                time.sleep(0.2)
            for k, ts in times.items():
                info.setdefault(k, {})["ms"] = statistics.median(ts)
            row[f"t{threads}"] = info
            print(name, threads, {k: round(v["ms"], 3) for k, v in info.items()}, flush=True)
        results.append(row)
    meta = {"machine": machine(), "rounds": args.rounds, "repeat": args.repeat,
            "date": time.strftime("%Y-%m-%d %H:%M"), "load": os.getloadavg()[0]}
    out = ROOT / "results"
    (out / "layout.json").write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    cols = [c for c in list(CONFIGS) + (list(DNNL_CONFIGS) if has_dnnl else []) + ["PyTorch frozen"]
            if c in results[0]["t1"]]
    ratios = [("native", "native + layout planning"),
              ("native + layout planning, no Winograd", "native + layout planning"),
              ("oneDNN", "oneDNN + layout planning")]
    ratios = [(a, b) for a, b in ratios if a in cols and b in cols]
    lines = ["# Layout planning (bench/bench_layout.py)", "",
             f"Machine: {meta['machine']['cpu']}, {meta['machine']['cores']} cores; "
             f"OPENBLAS_CORETYPE={meta['machine']['OPENBLAS_CORETYPE']}; torch {torch.__version__}; "
             f"load average {meta['load']:.2f} at the start; {args.rounds} interleaved rounds of "
             f"{args.repeat} runs, median ms; 1 thread pinned to one core, then 2 threads.", "",
             "Command: `PYTHONPATH=build/python /usr/bin/python3 bench/bench_layout.py`"
             + (f" --configs \"{args.configs}\"" if args.configs else ""), "",
             "| model | threads | " + " | ".join(cols) + "".join(
                 f" | {b} / {a} | layout transforms per run ({a} -> {b}) | build s ({a} -> {b})"
                 for a, b in ratios) + " |",
             "| --- | --- | " + " | ".join("---" for _ in cols) + " | --- | --- | ---" * len(ratios)
             + " |"]
    for r in results:
        for n in (1, 2):
            t = r[f"t{n}"]
            line = f"| {r['model']} | {n} | " + " | ".join(f"{t[c]['ms']:.2f}" for c in cols)
            for a, b in ratios:
                line += (f" | {t[a]['ms'] / t[b]['ms']:.2f}x faster | {t[a]['transforms']} -> "
                         f"{t[b]['transforms']} | {t[a]['build_s']} -> {t[b]['build_s']}")
            lines.append(line + " |")
    errs = max(v.get("max_rel_err", 0) for r in results for n in (1, 2) for v in r[f"t{n}"].values())
    lines += ["", f"Largest relative error against PyTorch over every build: {errs:.1e}."]
    write_report(out / "layout.md", lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
