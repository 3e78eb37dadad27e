"""Collage at scale: the cost database, isolated measurement, refinement and a Dask cluster.

1. ResNet-18 (examples/onnx/make_resnet18.py, 224x224) compiled end to end with
   `tessera compile --collage` over native (one thread) + dnnl + blas: cold (empty cost
   database and kernel cache), then warm; candidates measured per second; the database's
   size.
2. The five benchmark models of bench_collage.py: Collage's plan with the search alone
   ("dp") and with `dp+refine` (budget --budget s), guard off so that the plans themselves
   are compared; both executables timed interleaved in rounds (median of medians), one
   pinned thread.
3. The same search (--dask-model) measured locally and on a 2-worker LocalCluster: search
   time and the estimated totals.

Writes bench/results/collage_scale.{md,json}.
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_collage_scale.py
       [--models resnet18,mlp] [--budget 30] [--rounds 5] [--skip-cli] [--skip-dask]
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

import tessera
from tessera import collage, transform

ROOT = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from bench_models import machine, make_models  # noqa: E402
from bench_util import set_torch_threads  # noqa: E402

MODELS = ["resnet18", "mobilenet_v2", "squeezenet1_1", "transformer_encoder", "mlp"]
BUILD = pathlib.Path(os.environ.get("TESSERA_BUILD_DIR", ROOT.parent / "build"))


def cli_resnet18(out):
    """Part 1: cold and warm `tessera compile --collage` of ResNet-18."""
    subprocess.run(["/usr/bin/python3", str(ROOT.parent / "examples/onnx/make_resnet18.py"), out],
                   check=True, capture_output=True)
    env = dict(os.environ, TESSERA_CACHE_DIR=os.path.join(out, "cache"))
    have = {t["name"] for t in tessera.list_targets()}
    cmd = [str(BUILD / "tessera"), "compile", os.path.join(out, "resnet18.onnx"), "-o",
           os.path.join(out, "r.tsx"), "--collage", "--target", "native -num_threads=1"]
    for lib in ("dnnl", "blas"):
        if lib in have:
            cmd += ["--target", lib]
    runs = {}
    for label in ("cold", "warm"):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        wall = time.perf_counter() - t0
        report = tessera.load(os.path.join(out, "r.tsx")).collage_report().data
        runs[label] = {"wall_s": wall, "search_s": report["search_seconds"],
                       "measured": report["measured"], "from_cost_db": report["from_cost_db"],
                       "candidates": report["candidates"], "guard": report["guard"]["chosen"]}
    db = collage.CostDatabase(os.path.join(out, "cache", "collage.db"))
    stats = db.stats()
    runs["db"] = {"records": stats["records"], "bytes": stats["bytes"],
                  "by_kind": stats["by_kind"]}
    runs["candidates_per_s"] = runs["cold"]["measured"] / runs["cold"]["search_s"]
    return runs


def onnx_module(name, models):
    model, shape = models[name]
    model.eval()
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"{name}.onnx")
        torch.onnx.export(model, x, path, opset_version=13, input_names=["input"])
        return tessera.frontend.from_onnx(path), x.numpy()


def refine_models(names, budget, rounds, db, targets):
    """Part 2: dp vs dp+refine, guard off, timed interleaved."""
    models = make_models()
    rows = []
    for name in names:
        mod, xin = onnx_module(name, models)
        exes, reports, search_s = {}, {}, {}
        for search in ("dp", "dp+refine"):
            config = {"collage.enable": True, "collage.guard": False, "collage.cost_db": db,
                      "collage.search": search, "collage.refine_budget_s": budget}
            t0 = time.perf_counter()
            with transform.PassContext(opt_level=3, config=config):
                exes[search] = tessera.build(mod, target=targets)
            search_s[search] = time.perf_counter() - t0
            reports[search] = exes[search].collage_report().data
        want = exes["dp"](input=xin)
        got = exes["dp+refine"](input=xin)
        want, got = [v[0] if isinstance(v, tuple) else v for v in (want, got)]
        assert np.allclose(got, want, rtol=1e-4, atol=1e-4 * np.max(np.abs(want))), name
        samples = {k: [] for k in exes}
        for _ in range(rounds):
            for k, exe in exes.items():
                samples[k].append(exe.benchmark(input=xin, warmup=3, repeat=20)["median_ms"])
                time.sleep(0.2)
        r = reports["dp+refine"]["refinement"]
        rows.append({"model": name, "dp_ms": statistics.median(samples["dp"]),
                     "refined_ms": statistics.median(samples["dp+refine"]),
                     "refine_evaluated": r.get("evaluated", 0), "refine_seconds": r.get("seconds", 0),
                     "changes": [c["move"] for c in r.get("changes", [])],
                     "build_s": search_s})
        print(rows[-1], flush=True)
    return rows


def dask_vs_local(name, targets):
    """Part 3: one search measured here and on a 2-worker LocalCluster."""
    import distributed
    mod, _ = onnx_module(name, make_models())
    out = {}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        for label, runner in (("local", "local"), ("dask_2_workers", collage.DaskRunner(client))):
            config = {"collage.enable": True, "collage.guard": False, "collage.cost_db": "",
                      "collage.runner": runner}
            t0 = time.perf_counter()
            with transform.PassContext(opt_level=3, config=config):
                exe = tessera.build(mod, target=targets)
            report = exe.collage_report().data
            out[label] = {"search_s": time.perf_counter() - t0, "measured": report["measured"],
                          "estimated_total_us": report["estimated_total_us"]}
            print(label, out[label], flush=True)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--budget", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dask-model", default="transformer_encoder")
    parser.add_argument("--skip-cli", action="store_true")
    parser.add_argument("--skip-dask", action="store_true")
    args = parser.parse_args()
    set_torch_threads(torch, 1)
    have = {t["name"] for t in tessera.list_targets()}
    targets = ["native -num_threads=1"] + [lib for lib in ("dnnl", "blas") if lib in have]
    result = {"machine": machine(), "targets": targets}
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_cli:
            result["resnet18_cli"] = cli_resnet18(tmp)
            print(result["resnet18_cli"], flush=True)
        os.sched_setaffinity(0, {0})
        result["refine"] = refine_models([m for m in args.models.split(",") if m], args.budget,
                                         args.rounds, os.path.join(tmp, "refine.db"), targets)
        os.sched_setaffinity(0, set(range(os.cpu_count())))
    if not args.skip_dask:
        result["dask"] = dask_vs_local(args.dask_model, targets)
    out = ROOT / "results"
    (out / "collage_scale.json").write_text(json.dumps(result, indent=1) + "\n")
    lines = ["# Collage at scale", "", f"Machine: {result['machine']}", "",
             f"Targets: {', '.join(targets)}. Command: `PYTHONPATH=build/python /usr/bin/python3 "
             f"bench/bench_collage_scale.py --budget {args.budget:g}`.", ""]
    if "resnet18_cli" in result:
        c = result["resnet18_cli"]
        lines += ["## ResNet-18, `tessera compile --collage` end to end", "",
                  "| run | wall s | search s | measured | from cost db | guard chose |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for label in ("cold", "warm"):
            r = c[label]
            lines.append(f"| {label} | {r['wall_s']:.1f} | {r['search_s']:.1f} | {r['measured']} | "
                         f"{r['from_cost_db']} | {r['guard']} |")
        lines += ["", f"Candidates measured per second (cold, isolated): {c['candidates_per_s']:.1f}. "
                  f"Cost database: {c['db']['records']} records, {c['db']['bytes'] / 2**20:.1f} MiB "
                  f"({c['db']['by_kind']}).", ""]
    lines += ["## DP vs DP+refine (guard off, one pinned thread, median of medians)", "",
              "| model | dp ms | dp+refine ms | speedup | covers timed | refine s | kept moves |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in result["refine"]:
        lines.append(f"| {r['model']} | {r['dp_ms']:.3f} | {r['refined_ms']:.3f} | "
                     f"{r['dp_ms'] / r['refined_ms']:.2f}x | {r['refine_evaluated']} | "
                     f"{r['refine_seconds']:.0f} | {len(r['changes'])} |")
    if "dask" in result:
        d = result["dask"]
        lines += ["", f"## {args.dask_model}: local worker vs a 2-worker LocalCluster", "",
                  "| runner | search s | measured | estimated total us |", "| --- | --- | --- | --- |"]
        for label, r in d.items():
            lines.append(f"| {label} | {r['search_s']:.1f} | {r['measured']} | "
                         f"{r['estimated_total_us']:.1f} |")
    (out / "collage_scale.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
