"""Backend benchmark: native vs oneDNN vs OpenBLAS vs PyTorch, one pinned thread, one run.

Cases: ResNet-18's conv2d layers (bench_kernels.py's list), dense 1024^3, ResNet-18's final
dense (1x512 -> 1000), and a transformer block's dense / matmul shapes (BERT-base, seq 128).
Each case is one op; for oneDNN and BLAS it is wrapped into a Compiler partition (weights
as constants inside), the way partition_for_dnnl / partition_for_blas produce them. Every
result is checked against PyTorch before it is timed. Records OPENBLAS_CORETYPE and the
OpenBLAS core name. Writes bench/results/backends.{md,json}.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_backends.py [--repeat N] [--quick]
"""
import argparse
import json
import os
import pathlib
import platform
import statistics
import sys
import time

import numpy as np

import tessera
from tessera.op import nn
from bench_util import pin_to_one_core, set_torch_threads, time_fn

ROOT = pathlib.Path(__file__).resolve().parent


def cases(quick):
    rng = np.random.default_rng(0)

    def randn(*shape):
        return rng.standard_normal(shape).astype("float32")

    import torch
    convs = [
        ("resnet18.conv1 7x7/2 3->64 @224", (1, 3, 224, 224), 64, 7, 2, 3),
        ("resnet18.layer1 3x3 64->64 @56", (1, 64, 56, 56), 64, 3, 1, 1),
        ("resnet18.layer2 3x3/2 64->128 @56", (1, 64, 56, 56), 128, 3, 2, 1),
        ("resnet18.layer2 3x3 128->128 @28", (1, 128, 28, 28), 128, 3, 1, 1),
        ("resnet18.layer3 3x3 256->256 @14", (1, 256, 14, 14), 256, 3, 1, 1),
        ("resnet18.layer4 3x3 512->512 @7", (1, 512, 7, 7), 512, 3, 1, 1),
        ("resnet18.down 1x1/2 64->128 @56", (1, 64, 56, 56), 128, 1, 2, 0),
    ]
    if quick:
        convs = convs[1:2]
    for name, shape, oc, k, s, p in convs:
        x, w = randn(*shape), randn(oc, shape[1], k, k) * 0.1
        ho = (shape[2] + 2 * p - k) // s + 1
        build = lambda xv, w=w, s=s, p=p, oc=oc, k=k: nn.conv2d(
            xv, tessera.const(w), strides=(s, s), padding=(p, p), channels=oc, kernel_size=(k, k))
        tx, tw = torch.from_numpy(x), torch.from_numpy(w)
        yield (name, build, [("x", shape)], {"x": x},
               lambda tx=tx, tw=tw, s=s, p=p: torch.nn.functional.conv2d(tx, tw, stride=s, padding=p),
               2 * oc * ho * ho * shape[1] * k * k, False)

    dense = [("dense 1024x1024x1024", 1024, 1024, 1024),
             ("resnet18.fc 1x512 -> 1000", 1, 512, 1000),
             ("bert.qkv 128x768 -> 2304", 128, 768, 2304),
             ("bert.attn_out 128x768 -> 768", 128, 768, 768),
             ("bert.ffn1 128x768 -> 3072", 128, 768, 3072),
             ("bert.ffn2 128x3072 -> 768", 128, 3072, 768)]
    if quick:
        dense = [("dense 256x256x256", 256, 256, 256)]
    for name, m, k, n in dense:
        a, b = randn(m, k), randn(n, k) * 0.05
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        yield (name, lambda av, b=b: nn.dense(av, tessera.const(b)), [("a", (m, k))], {"a": a},
               lambda ta=ta, tb=tb: torch.nn.functional.linear(ta, tb), 2 * m * n * k, True)

    # Attention scores and context of BERT-base (12 heads, seq 128, head dim 64).
    q, kk, v = randn(12, 128, 64), randn(12, 128, 64), randn(12, 128, 64)
    tq, tk, tv = (torch.from_numpy(t) for t in (q, kk, v))
    yield ("bert.scores batch_matmul 12x128x64 . 128", lambda qv, kv: nn.batch_matmul(qv, kv),
           [("q", q.shape), ("k", kk.shape)], {"q": q, "k": kk},
           lambda: torch.bmm(tq, tk.transpose(1, 2)), 2 * 12 * 128 * 128 * 64, True)
    yield ("bert.context batch_matmul 12x128x128 . 64",
           lambda sv, vv: nn.batch_matmul(sv, vv, transpose_b=False),
           [("s", (12, 128, 128)), ("v", v.shape)],
           {"s": randn(12, 128, 128), "v": v}, None, 2 * 12 * 128 * 128 * 64, True)


def module(build, params, compiler=None):
    vs = [tessera.var(n, shape=s) for n, s in params]
    body = build(*vs)
    if compiler is None:
        return tessera.IRModule.from_expr(tessera.Function(vs, body))
    fn = tessera.Function(vs, body, attrs={"Primitive": 1, "Compiler": compiler,
                                           "global_symbol": compiler + "_0"})
    outer = [tessera.var(n, shape=s) for n, s in params]
    main = tessera.Function(outer, tessera.Call(tessera.GlobalVar(compiler + "_0"), outer))
    return tessera.IRModule.from_expr(main).with_function(compiler + "_0", fn)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small shapes (a smoke run)")
    parser.add_argument("--out", default=str(ROOT / "results" / "backends"))
    args = parser.parse_args()

    import torch
    set_torch_threads(torch, 1)
    pin_to_one_core()
    targets = {t["name"]: t for t in tessera.list_targets()}
    blas_desc = targets.get("blas", {}).get("description", "")
    core = blas_desc.split("OpenBLAS core ")[-1] if "OpenBLAS core " in blas_desc else "n/a"
    rows = []
    for name, build, params, inputs, torch_fn, flops, gemm in cases(args.quick):
        row = {"case": name, "gflop": flops / 1e9}
        ref = None
        if torch_fn is not None:
            ref = torch_fn().numpy()
            row["torch_ms"] = time_fn(torch_fn, args.warmup, args.repeat)
        for backend in ("native", "dnnl", "blas"):
            if backend == "blas" and not gemm:
                continue
            if backend != "native" and backend not in targets:
                continue
            mod = module(build, params, None if backend == "native" else backend)
            ex = tessera.build(mod, target="native -num_threads=1")
            out = ex.run(**inputs)
            if ref is None:
                ref = out
            err = float(np.max(np.abs(out - ref)) / (np.max(np.abs(ref)) + 1e-30))
            if err > 1e-4:
                sys.exit(f"{name} on {backend}: result differs from the reference ({err:.3g})")
            row[backend + "_ms"] = ex.benchmark(warmup=args.warmup, repeat=args.repeat,
                                                **inputs)["median_ms"]
        rates = {k[:-3]: flops / (v * 1e-3) / 1e9 for k, v in row.items() if k.endswith("_ms")}
        row["gflops"] = rates
        rows.append(row)
        print(f"{name:44s} " + "  ".join(f"{k} {row[k + '_ms']:8.3f} ms ({rates[k]:6.1f})"
                                          for k in ("native", "dnnl", "blas", "torch")
                                          if k + "_ms" in row), flush=True)

    env = {"threads": 1, "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE", "(unset)"),
           "openblas_core": core, "torch": torch.__version__, "machine": platform.machine(),
           "repeat": args.repeat, "warmup": args.warmup, "quick": args.quick,
           "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"env": env, "rows": rows}, indent=1) + "\n")
    lines = ["# Backends: native vs oneDNN vs OpenBLAS vs PyTorch (one thread, median ms, GFLOP/s)",
             "", "Environment: " + ", ".join(f"{k}={v}" for k, v in env.items()), "",
             "| case | native | oneDNN | OpenBLAS | PyTorch |", "|---|---:|---:|---:|---:|"]
    for r in rows:
        cell = lambda k: (f"{r[k + '_ms']:.3f} ({r['gflops'][k]:.0f})" if k + "_ms" in r else "-")
        lines.append(f"| {r['case']} | {cell('native')} | {cell('dnnl')} | {cell('blas')} "
                     f"| {cell('torch')} |")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out.with_suffix('.md')} and {out.with_suffix('.json')}")


if __name__ == "__main__":
    main()
