"""Conv layout benchmark: Tessera's native conv2d in NCHW against NCHW16c, one pinned thread.

Cases: the distinct conv2d shapes of ResNet-18 at 224x224 and the depthwise 3x3 shapes of
MobileNetV2 at 224x224, batch 1. Each is a one-conv module built natively twice: NCHW data
with an OIHW weight, and NCHW16c data with the weight pre-blocked (OIHW16i16o, depthwise
OIHW1i16o; the 3-channel stem reads NCHW with OIHW3i16o) as constants, NCHW16c out. For
reference the same conv runs on oneDNN (Tessera's dnnl backend, NCHW in and out) and in
PyTorch (torch.set_num_threads(1)). Every result is checked against the NCHW build before
it is timed; the configurations are timed in interleaved rounds (each round a warm-up and
`repeat` runs per configuration, its median kept) and the median over rounds reported.
Then the whole ResNet-18 natively, NCHW against NCHW16c blocked by hand (what layout
planning is to produce), timed the same way. Writes bench/results/conv_layout.{md,json}.

Usage: taskset -c 0 env PYTHONPATH=build/python /usr/bin/python3 bench/bench_conv_layout.py
       [--rounds N] [--repeat N] [--quick] [--no-dnnl] [--no-torch] [--no-network]
"""
import argparse
import json
import os
import pathlib
import platform
import shlex
import statistics
import sys
import tempfile
import time

import numpy as np

import tessera
from tessera.op import nn
from bench_util import pin_to_one_core, set_torch_threads, time_fn

ROOT = pathlib.Path(__file__).resolve().parent
BLOCK = 16

# (name, (C, H), out channels, kernel, stride, padding, groups)
RESNET18 = [
    ("conv1 7x7/2 3->64 @224", (3, 224), 64, 7, 2, 3, 1),
    ("layer1 3x3 64->64 @56", (64, 56), 64, 3, 1, 1, 1),
    ("layer2 3x3/2 64->128 @56", (64, 56), 128, 3, 2, 1, 1),
    ("layer2 3x3 128->128 @28", (128, 28), 128, 3, 1, 1, 1),
    ("layer2 down 1x1/2 64->128 @56", (64, 56), 128, 1, 2, 0, 1),
    ("layer3 3x3/2 128->256 @28", (128, 28), 256, 3, 2, 1, 1),
    ("layer3 3x3 256->256 @14", (256, 14), 256, 3, 1, 1, 1),
    ("layer3 down 1x1/2 128->256 @28", (128, 28), 256, 1, 2, 0, 1),
    ("layer4 3x3/2 256->512 @14", (256, 14), 512, 3, 2, 1, 1),
    ("layer4 3x3 512->512 @7", (512, 7), 512, 3, 1, 1, 1),
    ("layer4 down 1x1/2 256->512 @14", (256, 14), 512, 1, 2, 0, 1),
]
MOBILENETV2_DEPTHWISE = [
    (f"dw 3x3{'/2' if s == 2 else ''} {c} @{h}", (c, h), c, 3, s, 1, c)
    for c, h, s in [(32, 112, 1), (96, 112, 2), (144, 56, 1), (144, 56, 2), (192, 28, 1),
                    (192, 28, 2), (384, 14, 1), (576, 14, 1), (576, 14, 2), (960, 7, 1)]
]


def to_blocked(x, block):
    """NCHW -> NCHW{block}c."""
    n, c, h, w = x.shape
    return np.ascontiguousarray(x.reshape(n, c // block, block, h, w).transpose(0, 1, 3, 4, 2))


def from_blocked(y):
    """NCHW{x}c -> NCHW."""
    n, cb, h, w, b = y.shape
    return np.ascontiguousarray(y.transpose(0, 1, 4, 2, 3).reshape(n, cb * b, h, w))


def weight_to_blocked(w, i_block, o_block):
    """OIHW -> OIHW{i_block}i{o_block}o."""
    o, i, kh, kw = w.shape
    return np.ascontiguousarray(
        w.reshape(o // o_block, o_block, i // i_block, i_block, kh, kw).transpose(0, 2, 4, 5, 3, 1))


def build_case(case, rng, with_dnnl):
    name, (c, h), oc, k, s, p, g = case
    x = rng.standard_normal((1, c, h, h)).astype("float32")
    w = (rng.standard_normal((oc, c // g, k, k)) * (1.0 / np.sqrt(c // g * k * k))).astype("float32")
    conv = dict(strides=(s, s), padding=(p, p), groups=g, channels=oc, kernel_size=(k, k))
    target = "native -num_threads=1"

    xv = tessera.var("x", shape=x.shape)
    nchw_mod = tessera.IRModule.from_expr(
        tessera.Function([xv], nn.conv2d(xv, tessera.const(w), **conv)))
    builds = {"nchw": (tessera.build(nchw_mod, target=target), x)}

    if c % BLOCK == 0:
        xb, data_layout, i_block = to_blocked(x, BLOCK), f"NCHW{BLOCK}c", BLOCK
    else:  # the stem: 3 channels stay NCHW, the output is blocked
        xb, data_layout, i_block = x, "NCHW", c // g
    wb = weight_to_blocked(w, 1 if g > 1 else i_block, BLOCK)
    kernel_layout = f"OIHW{1 if g > 1 else i_block}i{BLOCK}o"
    xbv = tessera.var("x", shape=xb.shape)
    blocked = nn.conv2d(xbv, tessera.const(wb), data_layout=data_layout, kernel_layout=kernel_layout,
                        out_layout=f"NCHW{BLOCK}c", **conv)
    builds["blocked"] = (tessera.build(tessera.IRModule.from_expr(tessera.Function([xbv], blocked)),
                                       target=target), xb)
    if with_dnnl:
        builds["dnnl"] = (tessera.build(nchw_mod, target=target + " -compiler=dnnl"), x)
    layouts = f"{data_layout} / {kernel_layout} -> NCHW{BLOCK}c"
    ho = (h + 2 * p - k) // s + 1
    flops = 2 * oc * ho * ho * (c // g) * k * k
    return name, builds, x, w, conv, flops, layouts


def resnet18(blocked, rng):
    """ResNet-18 at 224x224 with seeded random weights (batch norm folded into biases) in
    NCHW, or blocked by hand the way layout planning would: NCHW16c from the stem's output
    on, weights and biases pre-blocked as constants, pools in NCHW16c, back to NCHW before
    the classifier."""
    from tessera import op
    x = tessera.var("x", shape=(1, 3, 224, 224))
    layout = f"NCHW{BLOCK}c" if blocked else "NCHW"

    def conv(h, ic, oc, k, s, p, relu=True, residual=None):
        w = (rng.standard_normal((oc, ic, k, k)) * np.sqrt(2.0 / (ic * k * k))).astype("float32")
        b = (rng.standard_normal(oc) * 0.1).astype("float32")
        if blocked:
            i_block = ic if ic % BLOCK else BLOCK
            y = nn.conv2d(h, tessera.const(weight_to_blocked(w, i_block, BLOCK)), strides=(s, s),
                          padding=(p, p), data_layout="NCHW" if ic % BLOCK else layout,
                          kernel_layout=f"OIHW{i_block}i{BLOCK}o", out_layout=layout)
            y = op.add(y, tessera.const(np.ascontiguousarray(b.reshape(1, oc // BLOCK, 1, 1, BLOCK))))
        else:
            y = nn.bias_add(nn.conv2d(h, tessera.const(w), strides=(s, s), padding=(p, p)),
                            tessera.const(b))
        if residual is not None:
            y = op.add(y, residual)
        return nn.relu(y) if relu else y

    h = conv(x, 3, 64, 7, 2, 3)
    h = nn.max_pool2d(h, pool_size=(3, 3), strides=(2, 2), padding=(1, 1), layout=layout)
    c = 64
    for oc, s in [(64, 1), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1)]:
        shortcut = conv(h, c, oc, 1, s, 0, relu=False) if s == 2 or oc != c else h
        h = conv(conv(h, c, oc, 3, s, 1), oc, oc, 3, 1, 1, residual=shortcut)
        c = oc
    h = nn.global_avg_pool2d(h, layout=layout)
    if blocked:
        h = op.layout_transform(h, src_layout=layout, dst_layout="NCHW")
    fc = (rng.standard_normal((1000, 512)) * 0.05).astype("float32")
    h = nn.dense(nn.batch_flatten(h), tessera.const(fc))
    return tessera.IRModule.from_expr(tessera.Function([x], h))


def time_network(args):
    """The whole ResNet-18, NCHW against hand-blocked NCHW16c: (ms, ms, build seconds)."""
    exes, build_s = [], []
    saved = os.environ.get("TESSERA_CACHE_DIR")
    with tempfile.TemporaryDirectory() as cache:  # cold compiler cache: real build times
        os.environ["TESSERA_CACHE_DIR"] = cache
        try:
            for blocked in (False, True):
                mod = resnet18(blocked, np.random.default_rng(1))  # the same weights both times
                start = time.perf_counter()
                exes.append(tessera.build(mod, target="native -num_threads=1"))
                build_s.append(time.perf_counter() - start)
        finally:
            if saved is None:
                os.environ.pop("TESSERA_CACHE_DIR")
            else:
                os.environ["TESSERA_CACHE_DIR"] = saved
    x = np.random.default_rng(2).standard_normal((1, 3, 224, 224)).astype("float32")
    want, got = exes[0](x=x), exes[1](x=x)
    err = float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-30))
    if err > 1e-4:
        sys.exit(f"ResNet-18: NCHW16c disagrees with NCHW (max relative error {err:.3g})")
    per_round = [[], []]
    for _ in range(args.rounds):
        for k, ex in enumerate(exes):
            per_round[k].append(ex.benchmark(warmup=2, repeat=max(5, args.repeat // 2), x=x)["median_ms"])
    return statistics.median(per_round[0]), statistics.median(per_round[1]), build_s


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (median kept)")
    parser.add_argument("--repeat", type=int, default=15, help="timed runs per round")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="two shapes, two rounds")
    parser.add_argument("--no-dnnl", action="store_true", help="skip the oneDNN column")
    parser.add_argument("--no-torch", action="store_true", help="skip the PyTorch column")
    parser.add_argument("--no-network", action="store_true",
                        help="skip the whole hand-blocked ResNet-18")
    parser.add_argument("--machine-note", default="",
                        help="what the CPU is, when its model name does not say (written as is)")
    parser.add_argument("--out", default=str(ROOT / "results" / "conv_layout"))
    args = parser.parse_args()
    if args.quick:
        args.rounds = 2

    torch = None
    if not args.no_torch:
        try:
            import torch
            set_torch_threads(torch, 1)
        except ImportError:
            print("PyTorch not installed: no PyTorch column", file=sys.stderr)
    with_dnnl = not args.no_dnnl and any(t["name"] == "dnnl" for t in tessera.list_targets())
    pin_to_one_core()
    tessera_threads = os.environ.get("TESSERA_NUM_THREADS", "(target -num_threads=1)")

    cases = RESNET18 + MOBILENETV2_DEPTHWISE
    if args.quick:
        cases = [RESNET18[1], MOBILENETV2_DEPTHWISE[2]]
    rng = np.random.default_rng(0)
    rows = []
    for case in cases:
        name, builds, x, w, conv, flops, layouts = build_case(case, rng, with_dnnl)
        want = builds["nchw"][0](x=builds["nchw"][1])
        for key, (ex, inp) in builds.items():
            got = ex(x=inp)
            if key == "blocked":
                got = from_blocked(got)
            err = float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-30))
            if err > 1e-4:
                sys.exit(f"{name}: {key} disagrees with the NCHW build (max relative error {err:.3g})")
        timers = {key: (lambda ex=ex, inp=inp: ex.benchmark(warmup=args.warmup, repeat=args.repeat,
                                                            x=inp)["median_ms"])
                  for key, (ex, inp) in builds.items()}
        if torch is not None:
            tx, tw = torch.from_numpy(x), torch.from_numpy(w)
            s, p, g = conv["strides"][0], conv["padding"][0], conv["groups"]
            theirs = torch.nn.functional.conv2d(tx, tw, stride=s, padding=p, groups=g).numpy()
            err = float(np.max(np.abs(theirs - want)) / (np.max(np.abs(want)) + 1e-30))
            if err > 1e-4:
                sys.exit(f"{name}: PyTorch disagrees with the NCHW build (max relative error {err:.3g})")
            fn = lambda: torch.nn.functional.conv2d(tx, tw, stride=s, padding=p, groups=g)
            timers["torch"] = lambda fn=fn: time_fn(fn, args.warmup, args.repeat)
        per_round = {key: [] for key in timers}
        for _ in range(args.rounds):
            for key, timer in timers.items():
                per_round[key].append(timer())
        ms = {key: statistics.median(v) for key, v in per_round.items()}
        gflops = {key: flops / (t * 1e-3) / 1e9 for key, t in ms.items()}
        row = {"case": name, "layouts": layouts, "gflop": flops / 1e9, "ms": ms, "gflops": gflops,
               "blocked_vs_nchw": ms["nchw"] / ms["blocked"]}
        rows.append(row)
        extra = "".join(f"  {key} {gflops[key]:6.1f}" for key in ("dnnl", "torch") if key in gflops)
        print(f"{name:34s} NCHW {gflops['nchw']:6.1f}  NCHW16c {gflops['blocked']:6.1f} GFLOP/s  "
              f"x{row['blocked_vs_nchw']:.2f}{extra}", flush=True)

    network = None
    if not args.no_network and not args.quick:
        network = time_network(args)
        print(f"ResNet-18 whole network: NCHW {network[0]:.2f} ms, NCHW16c {network[1]:.2f} ms, "
              f"x{network[0] / network[1]:.2f}", flush=True)

    cpu = "unknown"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    env = {"threads": 1, "pinned": "one core (sched_setaffinity)", "tessera_threads": tessera_threads,
           "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE", "(unset)"),
           "torch": torch.__version__ if torch is not None else "(none)", "cpu": cpu,
           "machine": platform.machine(),
           "cpu_flags_avx512f": "avx512f" in open("/proc/cpuinfo").read(),
           "rounds": args.rounds, "repeat": args.repeat, "warmup": args.warmup,
           "quick": args.quick, "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    result = {"env": env, "rows": rows}
    if network:
        result["resnet18"] = {"nchw_ms": network[0], "nchw16c_ms": network[1],
                              "speedup": network[0] / network[1], "build_s": network[2]}
    out.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")

    cols = [("nchw", "native NCHW"), ("blocked", "native NCHW16c")]
    cols += [(k, label) for k, label in (("dnnl", "oneDNN"), ("torch", "PyTorch"))
             if rows and k in rows[0]["ms"]]
    resnet = [r for r in rows if not r["case"].startswith("dw ")]

    def total(key, subset):
        return sum(r["ms"][key] for r in subset)

    coretype = os.environ.get("OPENBLAS_CORETYPE")
    command = ("taskset -c 0 env " + (f"OPENBLAS_CORETYPE={coretype} " if coretype else "") +
               "PYTHONPATH=build/python /usr/bin/python3 bench/bench_conv_layout.py " +
               " ".join(shlex.quote(a) for a in sys.argv[1:])).strip()
    lines = ["# Conv layouts: native NCHW vs NCHW16c (one pinned thread, GFLOP/s)", "",
             "Environment: " + ", ".join(f"{k}={v}" for k, v in env.items()), "",
             f"Command: `{command}`", ""]
    if args.machine_note:
        lines += ["Machine: " + args.machine_note, ""]
    lines += [
             "| case | GFLOP | " + " | ".join(label for _, label in cols) +
             " | NCHW16c / NCHW |",
             "|---|---:|" + "---:|" * len(cols) + "---:|"]
    for r in rows:
        cells = " | ".join(f"{r['gflops'][k]:.1f}" for k, _ in cols)
        lines.append(f"| {r['case']} | {r['gflop']:.3f} | {cells} | {r['blocked_vs_nchw']:.2f}x |")
    if resnet:
        cells = " | ".join(f"{total(k, resnet):.3f} ms" for k, _ in cols)
        lines.append(f"| ResNet-18 shapes, sum of times (each once) | | {cells} | "
                     f"{total('nchw', resnet) / total('blocked', resnet):.2f}x |")
    if network:
        lines += ["", "The whole ResNet-18 (224x224, batch 1, one pinned thread; blocked by hand as "
                  "layout planning would: the stem reads NCHW and writes NCHW16c, everything after "
                  "it NCHW16c until the classifier; both builds native only, same weights):", "",
                  "| network | NCHW | NCHW16c | NCHW16c / NCHW |", "|---|---:|---:|---:|",
                  f"| ResNet-18 | {network[0]:.2f} ms | {network[1]:.2f} ms | "
                  f"{network[0] / network[1]:.2f}x |", "",
                  f"Build time (cold compiler cache): NCHW {network[2][0]:.1f} s, NCHW16c "
                  f"{network[2][1]:.1f} s (the blocked convs spell out their border tiles)."]
    lines += ["", "The speed-up column is the NCHW time over the NCHW16c time (above 1: blocked is "
              "faster). Layouts of the blocked build: " + "; ".join(
                  sorted({r['layouts'] for r in rows})) + ". GFLOP counts one multiply-add as 2 "
              "flops (depthwise: 9 per output). The ResNet-18 sum weighs every distinct shape once, "
              "not by how often the network runs it. oneDNN runs the NCHW module "
              "(Tessera's dnnl backend: NCHW in and out, so its reorders to and from its blocked "
              "formats are timed too, and its grouped convolutions in NCHW take a slow path)."]
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out.with_suffix('.md')} and {out.with_suffix('.json')}")


if __name__ == "__main__":
    main()
