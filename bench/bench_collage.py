"""Collage benchmark: for ResNet-18, MobileNetV2, SqueezeNet 1.1, the TransformerEncoder
and the MLP of bench_models.py (exported to ONNX, random weights under a fixed seed), one
pinned thread, in one run: Tessera native only, `partition_for_dnnl` (-compiler=dnnl), BLAS
offload (-libs=blas), and Collage over native + dnnl + blas, each checked against
PyTorch's output; with Collage's search time, candidates found / measured and the
report's additive error (measured minus estimated). The configurations are timed
interleaved, in rounds, median of medians. Writes bench/results/collage.{md,json}.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_collage.py [--models resnet18,mlp]
       [--rounds 3] [--repeat 20] [--no-guard]
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
from bench_util import set_torch_threads  # noqa: E402

MODELS = ["resnet18", "mobilenet_v2", "squeezenet1_1", "transformer_encoder", "mlp"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-guard", action="store_true",
                        help="report Collage's own partition (collage.guard off)")
    args = parser.parse_args()
    os.sched_setaffinity(0, {0})
    set_torch_threads(torch, 1)
    names = [m for m in args.models.split(",") if m]
    models = make_models()
    have = {t["name"] for t in tessera.list_targets()}
    rows, records = [], []
    for name in names:
        model, shape = models[name]
        model.eval()
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
        with torch.no_grad():
            want = model(x).numpy()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, f"{name}.onnx")
            torch.onnx.export(model, x, path, opset_version=13, input_names=["input"])
            mod = tessera.frontend.from_onnx(path)
        xin = x.numpy()
        configs = {"native": "native -num_threads=1"}
        if "dnnl" in have:
            configs["dnnl"] = "native -num_threads=1 -compiler=dnnl"
        if "blas" in have:
            configs["blas"] = "native -num_threads=1 -libs=blas"
        # Every configuration under the same context (opt_level 3: FoldScaleAxis runs).
        with transform.PassContext(opt_level=3):
            exes = {label: tessera.build(mod, target=t) for label, t in configs.items()}
        collage_targets = ["native -num_threads=1"] + [lib for lib in ("dnnl", "blas") if lib in have]
        t0 = time.perf_counter()
        with transform.PassContext(opt_level=3, config={"collage.enable": True,
                                                        "collage.guard": not args.no_guard}):
            exes["collage"] = tessera.build(mod, target=collage_targets)
        search_s = time.perf_counter() - t0
        errors = {}
        for label, exe in exes.items():
            got = exe(input=xin)
            got = got[0] if isinstance(got, tuple) else got
            errors[label] = float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-12))
            assert np.allclose(got, want, rtol=1e-4, atol=1e-4 * np.max(np.abs(want))), (name, label)
        samples = {label: [] for label in exes}
        for _ in range(args.rounds):
            for label, exe in exes.items():
                samples[label].append(exe.benchmark(input=xin, warmup=3, repeat=args.repeat)["median_ms"])
                time.sleep(0.2)
        ms = {label: statistics.median(v) for label, v in samples.items()}
        report = exes["collage"].collage_report()
        best_fixed = min((l for l in ms if l != "collage"), key=lambda l: ms[l])
        data = report.data
        guard = data.get("guard") or {}
        record = {
            "model": name, "ms": ms, "best_fixed": best_fixed,
            "collage_speedup_vs_best_fixed": ms[best_fixed] / ms["collage"],
            "build_seconds": search_s, "search_seconds": data["search_seconds"],
            "candidates": data["candidates"], "estimated": data["estimated"],
            "estimated_total_us": data["estimated_total_us"],
            # Collage's own partition as the guard timed it (the executable may be a fixed
            # configuration the guard preferred).
            "collage_own_ms": guard.get("latency_ms", {}).get("collage", ms["collage"]),
            "additive_error_us": guard.get("latency_ms", {}).get("collage", ms["collage"]) * 1e3
            - data["estimated_total_us"],
            "guard_chosen": guard.get("chosen", "off"),
            "guard_latency_ms": guard.get("latency_ms", {}),
            "kernels_by_backend": {},
            "max_rel_error": errors,
        }
        for k in report.kernels:
            record["kernels_by_backend"][k["backend"]] = record["kernels_by_backend"].get(k["backend"], 0) + 1
        records.append(record)
        print(json.dumps(record), flush=True)
        rows.append("| {} | {} | {:.2f}x vs {} | {:.3f} | {:.0f} s | {} / {} | {:.2f} / {:.0f} us | {} | {} |".format(
            name, " | ".join(f"{ms.get(l, float('nan')):.3f}" for l in ("native", "dnnl", "blas", "collage")),
            record["collage_speedup_vs_best_fixed"], best_fixed, record["collage_own_ms"], search_s,
            data["candidates"], data["estimated"], data["estimated_total_us"] / 1e3,
            record["additive_error_us"], record["guard_chosen"],
            ", ".join(f"{b}: {n}" for b, n in sorted(record["kernels_by_backend"].items()))))
    out = ROOT / "results"
    out.mkdir(exist_ok=True)
    meta = machine()
    (out / "collage.json").write_text(json.dumps({"machine": meta, "models": records}, indent=2))
    md = ["# Collage vs the single configurations (one pinned thread)", "",
          f"Machine: {meta['cpu']}, {meta['cores']} cores; torch {meta['torch']}; "
          f"OPENBLAS_CORETYPE={meta['OPENBLAS_CORETYPE']}. Median of {args.rounds} interleaved "
          f"rounds of {args.repeat} runs (ms). Every output matches PyTorch (rtol 1e-4).", "",
          "Command: `PYTHONPATH=build/python /usr/bin/python3 bench/bench_collage.py`"
          + (" --no-guard" if args.no_guard else ""), "",
          "Collage = what `build` returns under collage.enable (the guard keeps Collage's own "
          "partition or a fixed configuration, whichever it timed faster); Collage's own = that "
          "partition as the guard timed it; estimated = the sum of its kernels' costs and "
          "launch penalties; additive error = own - estimated.", "",
          "| model | native | partition_for_dnnl | BLAS | Collage | Collage vs best fixed "
          "| Collage's own | build (search) | candidates / measured | estimated / additive error "
          "| guard chose | Collage's kernels |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"] + rows
    (out / "collage.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
