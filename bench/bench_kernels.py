"""Kernel benchmark: Tessera's native backend against PyTorch, one thread, same run.

Measures ResNet-18 conv2d layers (built at opt_level 3, in the NCHW16c layouts the models
run in; the input and output layout changes are in the time), dense 1024^3, a chain of 5
elementwise ops on 4M floats, the transcendental functions and a fused chain of them,
softmax and layer_norm on transformer shapes. Each case is checked against the peer's
output before it is timed. Elementwise cases are also built with FuseOps off (one kernel
per op), so the table shows whether a fused kernel is ever slower than the same ops
unfused; 3x3 stride-1 convolutions also with config native.winograd off (the direct
template). Writes bench/results/kernels.{md,json}.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_kernels.py [--repeat N] [--quick]
       [--only SUBSTRING ...]  (the cases whose names contain one; the report is not written)
"""
import argparse
import json
import os
import pathlib
import platform
import sys
import time

import numpy as np

import tessera
from tessera.op import nn
from tessera import op, transform
from bench_util import pin_to_one_core, set_torch_threads, time_fn as time_torch, write_report

ROOT = pathlib.Path(__file__).resolve().parent


def cases(quick):
    rng = np.random.default_rng(0)

    def randn(*shape):
        return rng.standard_normal(shape).astype("float32")

    # (name, input shape, out channels, kernel, stride, padding) of ResNet-18 at 224x224.
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
        flops = 2 * oc * ho * ho * shape[1] * k * k
        xv = tessera.var("x", shape=shape)
        y = nn.conv2d(xv, tessera.const(w), strides=(s, s), padding=(p, p), channels=oc,
                      kernel_size=(k, k))

        def torch_fn(x=x, w=w, s=s, p=p):
            import torch
            tx, tw = torch.from_numpy(x), torch.from_numpy(w)
            return lambda: torch.nn.functional.conv2d(tx, tw, stride=s, padding=p)
        yield name, tessera.Function([xv], y), {"x": x}, torch_fn(), ("GFLOP/s", flops)

    m = n = k = 256 if quick else 1024
    a, b = randn(m, k), randn(n, k)
    av = tessera.var("a", shape=(m, k))
    def torch_dense(a=a, b=b):
        import torch
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        return lambda: torch.nn.functional.linear(ta, tb)
    yield (f"dense {m}x{n}x{k}", tessera.Function([av], nn.dense(av, tessera.const(b))),
           {"a": a}, torch_dense(), ("GFLOP/s", 2 * m * n * k))

    size = (1 << 18) if quick else (1 << 22)
    x, y = randn(size), randn(size)
    xv, yv = tessera.var("x", shape=(size,)), tessera.var("y", shape=(size,))
    chain = nn.relu(op.multiply(op.add(op.subtract(op.multiply(xv, yv), xv), yv), xv))
    chain = op.add(chain, yv)
    def torch_chain(x=x, y=y):
        import torch
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)
        return lambda: torch.relu((tx * ty - tx + ty) * tx) + ty
    yield (f"elementwise chain x5 on {size} floats", tessera.Function([xv, yv], chain),
           {"x": x, "y": y}, torch_chain(), ("GB/s", 3 * 4 * size))

    for fn in ("exp", "sigmoid", "tanh", "erf"):
        def torch_fn(x=x, fn=fn):
            import torch
            tx = torch.from_numpy(x)
            f = torch.special.erf if fn == "erf" else getattr(torch, fn)
            return lambda: f(tx)
        yield (f"{fn} on {size} floats", tessera.Function([xv], getattr(op, fn)(xv)), {"x": x},
               torch_fn(), ("GB/s", 2 * 4 * size))
    for approximate in ("none", "tanh"):
        def torch_gelu(x=x, approximate=approximate):
            import torch
            tx = torch.from_numpy(x)
            return lambda: torch.nn.functional.gelu(tx, approximate=approximate)
        yield (f"gelu (approximate={approximate}) on {size} floats",
               tessera.Function([xv], nn.gelu(xv, approximate=approximate)), {"x": x},
               torch_gelu(), ("GB/s", 2 * 4 * size))
    deep = op.sigmoid(op.exp(nn.relu(op.add(op.multiply(xv, tessera.const(np.float32(0.5))),
                                            tessera.const(np.float32(1.0))))))
    def torch_deep(x=x):
        import torch
        tx = torch.from_numpy(x)
        return lambda: torch.sigmoid(torch.exp(torch.relu(tx * 0.5 + 1)))
    yield (f"sigmoid(exp(relu(x * 0.5 + 1))) on {size} floats", tessera.Function([xv], deep),
           {"x": x}, torch_deep(), ("GB/s", 2 * 4 * size))

    s = randn(12, 128, 128)  # BERT-base attention scores, sequence 128
    sv = tessera.var("s", shape=s.shape)
    def torch_softmax(s=s):
        import torch
        ts = torch.from_numpy(s)
        return lambda: torch.softmax(ts, dim=-1)
    yield ("softmax (12, 128, 128) axis -1", tessera.Function([sv], nn.softmax(sv)), {"s": s},
           torch_softmax(), ("GB/s", 2 * 4 * s.size))

    h, g, bt = randn(128, 768), randn(768), randn(768)  # BERT-base hidden states
    hv = tessera.var("h", shape=h.shape)
    ln = nn.layer_norm(hv, tessera.const(g), tessera.const(bt))
    def torch_ln(h=h, g=g, bt=bt):
        import torch
        th, tg, tb = torch.from_numpy(h), torch.from_numpy(g), torch.from_numpy(bt)
        return lambda: torch.nn.functional.layer_norm(th, (768,), tg, tb)
    yield ("layer_norm (128, 768)", tessera.Function([hv], ln), {"h": h}, torch_ln(),
           ("GB/s", 2 * 4 * h.size))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="small shapes (a smoke run)")
    parser.add_argument("--out", default=str(ROOT / "results" / "kernels"))
    parser.add_argument("--only", nargs="+", metavar="SUBSTRING",
                        help="run only the cases whose names contain one of these; prints, "
                             "writes no report")
    args = parser.parse_args()

    import torch
    set_torch_threads(torch, 1)
    pin_to_one_core()
    rows = []
    for name, func, inputs, torch_fn, (unit, amount) in cases(args.quick):
        if args.only and not any(o in name for o in args.only):
            continue
        mod = tessera.IRModule.from_expr(func)
        conv = name.startswith("resnet18.")
        with transform.PassContext(opt_level=3 if conv else 2):
            ex = tessera.build(mod, target="native -num_threads=1")
        ours = ex.run(**inputs)
        theirs = torch_fn().numpy()
        err = float(np.max(np.abs(ours - theirs)) / (np.max(np.abs(theirs)) + 1e-30))
        if err > 1e-4:
            sys.exit(f"{name}: Tessera and PyTorch disagree (max relative error {err:.3g})")
        t_ms = ex.benchmark(warmup=args.warmup, repeat=args.repeat, **inputs)["median_ms"]
        p_ms = time_torch(torch_fn, args.warmup, args.repeat)
        unfused_ms = None
        if unit == "GB/s" and len(ex.kernels) == 1 and "softmax" not in name and "norm" not in name:
            with transform.PassContext(disabled_pass=["FuseOps"]):
                unfused = tessera.build(mod, target="native -num_threads=1")
            if len(unfused.kernels) > 1:
                unfused_ms = unfused.benchmark(warmup=args.warmup, repeat=args.repeat,
                                               **inputs)["median_ms"]
        direct_ms = None
        if conv and " 3x3 " in name:
            with transform.PassContext(opt_level=3, config={"native.winograd": False}):
                direct = tessera.build(mod, target="native -num_threads=1")
            direct_ms = direct.benchmark(warmup=args.warmup, repeat=args.repeat,
                                         **inputs)["median_ms"]
        rate = lambda ms: amount / (ms * 1e-3) / 1e9
        rows.append({"case": name, "unit": unit, "tessera_ms": t_ms, "torch_ms": p_ms,
                     "tessera_rate": rate(t_ms), "torch_rate": rate(p_ms),
                     "speedup_vs_torch": p_ms / t_ms, "max_rel_error": err,
                     "unfused_ms": unfused_ms, "direct_ms": direct_ms})
        print(f"{name:44s} tessera {t_ms:8.3f} ms {rate(t_ms):7.1f} {unit}   "
              f"torch {p_ms:8.3f} ms {rate(p_ms):7.1f} {unit}   x{p_ms / t_ms:.2f}", flush=True)

    if args.only:
        if not rows:
            sys.exit(f"no case name contains any of {args.only}")
        return
    env = {"threads": 1, "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE", "(unset)"),
           "torch": torch.__version__, "machine": platform.machine(),
           "cpu_flags_avx512f": "avx512f" in open("/proc/cpuinfo").read(),
           "repeat": args.repeat, "warmup": args.warmup, "quick": args.quick,
           "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"env": env, "rows": rows}, indent=1) + "\n")
    lines = ["# Kernels: Tessera native vs PyTorch (one thread, median)", "",
             "Environment: " + ", ".join(f"{k}={v}" for k, v in env.items()), "",
             "| case | Tessera ms | rate | PyTorch ms | rate | Tessera speed-up | "
             "Tessera unfused ms (FuseOps off) | Tessera direct conv ms (native.winograd off) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        unfused = f"{r['unfused_ms']:.3f}" if r["unfused_ms"] is not None else ""
        direct = f"{r['direct_ms']:.3f}" if r["direct_ms"] is not None else ""
        lines.append(f"| {r['case']} | {r['tessera_ms']:.3f} | {r['tessera_rate']:.1f} {r['unit']} "
                     f"| {r['torch_ms']:.3f} | {r['torch_rate']:.1f} {r['unit']} "
                     f"| {r['speedup_vs_torch']:.2f}x | {unfused} | {direct} |")
    write_report(out.with_suffix(".md"), lines)
    print(f"wrote {out.with_suffix('.md')} and {out.with_suffix('.json')}")


if __name__ == "__main__":
    main()
