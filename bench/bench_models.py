"""Model benchmark: ResNet-18, MobileNetV2, SqueezeNet 1.1 (torchvision, random weights
under a fixed seed, no downloads), a 2-layer TransformerEncoder (d=256, 4 heads, seq 64),
an MLP 784-512-512-10 and a small MNIST CNN are exported to ONNX, imported by Tessera,
checked against PyTorch (rtol 1e-4), and timed in the same run on one and two threads
(interleaved rounds, rests between configurations; median/p90): PyTorch eager,
TorchScript frozen (torch.jit.freeze + optimize_for_inference), Tessera native, and
Tessera with each library backend this
build has (`native -compiler=dnnl`, `native -libs=blas`), built at opt_level 3 (layout
planning; `--opt-level`). Writes bench/results/models.{md,json}.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_models.py [--repeat N]
       [--rounds N] [--pause S] [--threads 1,2]
       [--models resnet18,mlp,...]  (prints those models' rows; the report is not written)
"""
import argparse
import json
import os

# OMP_WAIT_POLICY is left to the caller: libgomp reads it once, when torch loads it, and
# "passive" made torch's own two-thread runs slower (ResNet-18 frozen 12.5 vs 10.4-11.7 ms
# in one session), so forcing it would handicap the peer.
import pathlib
import platform
import statistics
import sys
import tempfile
import time

import numpy as np
import torch
import torchvision

import tessera
import tessera.transform

ROOT = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from bench_util import pin_to_one_core, set_torch_threads, unpin, write_report  # noqa: E402


class MnistCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 8, 5, padding=2)
        self.conv2 = torch.nn.Conv2d(8, 16, 5, padding=2)
        self.fc = torch.nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.max_pool2d(torch.relu(self.conv2(x)), 3)
        return self.fc(x.view(x.size(0), -1))


def make_models():
    """name -> (module, example input); each built right after seeding."""
    def seeded(fn):
        torch.manual_seed(0)
        return fn()

    layer = lambda: torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024,  # noqa: E731
                                                     dropout=0.1, batch_first=True)
    return {
        "resnet18": (seeded(lambda: torchvision.models.resnet18(weights=None)), (1, 3, 224, 224)),
        "mobilenet_v2": (seeded(lambda: torchvision.models.mobilenet_v2(weights=None)),
                         (1, 3, 224, 224)),
        "squeezenet1_1": (seeded(lambda: torchvision.models.squeezenet1_1(weights=None)),
                          (1, 3, 224, 224)),
        "transformer_encoder": (seeded(lambda: torch.nn.TransformerEncoder(layer(), 2,
                                                                           enable_nested_tensor=False)),
                                (1, 64, 256)),
        "mlp": (seeded(lambda: torch.nn.Sequential(
            torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
            torch.nn.ReLU(), torch.nn.Linear(512, 10))), (1, 784)),
        "mnist_cnn": (seeded(MnistCNN), (1, 1, 28, 28)),
    }


def timed(fn, warmup, repeat):
    """Runs fn `warmup` times, then times `repeat` runs: (median, p90) ms."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(0.9 * len(times)))]


def interleaved(configs, warmup, repeat, rounds, pause):
    """Times each configuration in `rounds` rounds: every round gives each in turn, after
    `pause` seconds of rest (a peer's OpenMP threads spin on after its runs and would slow
    the next one), `warmup` untimed and `repeat` timed runs. `configs` maps a name to a
    function(warmup, repeat) -> (median, p90) ms. Returns name -> (median of the rounds'
    medians, median of their p90s), so the machine's drift falls on every configuration."""
    per_round = {name: [] for name in configs}
    for _ in range(rounds):
        for name, run in configs.items():
            time.sleep(pause)
            per_round[name].append(run(warmup, repeat))
    return {name: (statistics.median(m for m, _ in r), statistics.median(p for _, p in r))
            for name, r in per_round.items()}


def tessera_timer(exe, x):
    """Tessera's whole runs timed by the executable itself (no Python call per run)."""
    def run(warmup, repeat):
        b = exe.benchmark(input=x, warmup=warmup, repeat=repeat)
        return b["median_ms"], b["p90_ms"]
    return run


def machine():
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    # The OpenBLAS core the blas backend reports (OPENBLAS_CORETYPE can force a slower one).
    blas = {t["name"]: t for t in tessera.list_targets()}.get("blas", {}).get("description", "")
    core = blas.split("OpenBLAS core ")[-1] if "OpenBLAS core " in blas else "n/a"
    return {"cpu": cpu, "cores": os.cpu_count(), "platform": platform.platform(),
            "torch": torch.__version__, "torchvision": torchvision.__version__,
            "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE", "(unset)"),
            "openblas_core": core}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20, help="timed runs per round")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs per round")
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds, each timing every configuration in turn")
    parser.add_argument("--pause", type=float, default=0.3,
                        help="seconds of rest before each configuration's turn")
    parser.add_argument("--models", default="")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--opset", type=int, default=13)
    parser.add_argument("--opt-level", type=int, default=3,
                        help="Tessera's PassContext opt_level (3: layout planning)")
    args = parser.parse_args()
    if args.rounds < 1 or args.repeat < 1 or args.warmup < 0 or args.pause < 0:
        parser.error("--rounds and --repeat must be at least 1, --warmup and --pause at least 0")
    load_start = os.getloadavg()[0]
    threads = [int(t) for t in args.threads.split(",")]
    models = make_models()
    if args.models:
        unknown = [m for m in args.models.split(",") if m not in models]
        if unknown:
            parser.error(f"unknown model(s) {', '.join(unknown)} (known: {', '.join(models)})")
        models = {k: v for k, v in models.items() if k in args.models.split(",")}
    results = []
    tmp = tempfile.mkdtemp()
    # The library configurations this build has: target option -> column.
    tables = tessera.pattern.list_pattern_tables()
    libraries = [(lib, opt) for lib, opt in (("dnnl", "-compiler=dnnl"), ("blas", "-libs=blas"))
                 if lib in tables]
    for name, (model, shape) in models.items():
        model.eval()
        torch.manual_seed(1)
        x = torch.randn(*shape)
        path = os.path.join(tmp, name + ".onnx")
        with torch.no_grad():
            ref = model(x).numpy()
        # Exported with gradients enabled: otherwise eval-mode TransformerEncoderLayer takes
        # its fused fast path (aten::_transformer_encoder_layer_fwd), which ONNX cannot express.
        torch.onnx.export(model, x, path, opset_version=args.opset, input_names=["input"],
                              output_names=["output"], do_constant_folding=True)
        t0 = time.perf_counter()
        mod = tessera.frontend.from_onnx(path)
        import_s = time.perf_counter() - t0
        with torch.no_grad():
            frozen = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(model, x).eval()))
        row = {"model": name, "input": list(shape), "import_s": round(import_s, 3)}
        for n in threads:
            # One thread: every peer on one pinned core, PyTorch's OpenBLAS included.
            if n == 1:
                pin_to_one_core()
            else:
                unpin()
            set_torch_threads(torch, n)
            t0 = time.perf_counter()
            with tessera.transform.PassContext(opt_level=args.opt_level):
                exe = tessera.build(mod, target=f"native -num_threads={n}")
            build_s = time.perf_counter() - t0
            out = exe.run(input=x.numpy())
            err = float(np.max(np.abs(out - ref)) / max(float(np.max(np.abs(ref))), 1e-30))
            ok = bool(np.allclose(out, ref, rtol=1e-4, atol=1e-4 * float(np.max(np.abs(ref)))))
            row[f"t{n}"] = {"build_s": round(build_s, 2), "max_rel_err": err, "match": ok}
            xn = x.numpy()
            configs = {"eager": lambda w, r: timed(lambda: model(x), w, r),
                       "frozen": lambda w, r: timed(lambda: frozen(x), w, r),
                       "tessera": tessera_timer(exe, xn)}
            for lib, option in libraries:
                with tessera.transform.PassContext(opt_level=args.opt_level):
                    lexe = tessera.build(mod, target=f"native -num_threads={n} {option}")
                lout = lexe.run(input=xn)
                lerr = float(np.max(np.abs(lout - ref)) / max(float(np.max(np.abs(ref))), 1e-30))
                row[f"t{n}"][lib + "_max_rel_err"] = lerr
                row[f"t{n}"]["match"] = row[f"t{n}"]["match"] and bool(
                    np.allclose(lout, ref, rtol=1e-4, atol=1e-4 * float(np.max(np.abs(ref)))))
                configs[lib] = tessera_timer(lexe, xn)
            with torch.no_grad():
                timing = interleaved(configs, args.warmup, args.repeat, args.rounds, args.pause)
            eager, fz, b = timing["eager"], timing["frozen"], timing["tessera"]
            row[f"t{n}"].update({"eager_ms": eager, "frozen_ms": fz, "tessera_ms": b})
            for lib, _ in libraries:
                row[f"t{n}"][lib + "_ms"] = timing[lib]
            print(f"{name} threads={n}: eager {eager[0]:.3f} ms, frozen {fz[0]:.3f} ms, "
                  f"tessera {b[0]:.3f} ms (p90 {b[1]:.3f}), "
                  + "".join(f"tessera+{lib} {row[f't{n}'][lib + '_ms'][0]:.3f} ms, "
                            for lib, _ in libraries)
                  + f"rel err {err:.1e} {'OK' if row[f't{n}']['match'] else 'MISMATCH'}",
                  flush=True)
        results.append(row)
    info = {"machine": machine(), "threads": threads, "warmup": args.warmup,
            "repeat": args.repeat, "rounds": args.rounds, "pause_s": args.pause,
            "opset": args.opset, "opt_level": args.opt_level,
            "load_start": load_start, "date": time.strftime("%Y-%m-%d %H:%M"), "results": results}
    out_dir = ROOT / "results"
    command = " ".join(["PYTHONPATH=build/python /usr/bin/python3 bench/bench_models.py"]
                       + sys.argv[1:])
    lines = ["# Model benchmark (bench/bench_models.py)", "",
             f"Machine: {info['machine']['cpu']}, {info['machine']['cores']} cores; "
             f"torch {torch.__version__}; OPENBLAS_CORETYPE={info['machine']['OPENBLAS_CORETYPE']} "
             f"(OpenBLAS core {info['machine']['openblas_core']}); "
             f"{args.rounds} interleaved rounds of {args.warmup} warm-up + {args.repeat} timed "
             f"runs per configuration, {args.pause} s apart, median (p90) ms of the rounds'; "
             f"Tessera timed by `Executable.benchmark` (no Python call per run); batch 1; "
             f"Tessera at opt_level {args.opt_level}; load average {load_start:.2f} at the start; "
             f"{info['date']}.", "",
             "Models (seeded random weights, batch 1, exported to ONNX at opset "
             f"{args.opset}): torchvision's ResNet-18, MobileNetV2 and SqueezeNet 1.1 at "
             "224x224; a 2-layer TransformerEncoder (d_model 256, 4 heads, feed-forward 1024, "
             "sequence 64); an MLP 784-512-512-10; a MNIST CNN (two 5x5 convolutions, 28x28). "
             "One-thread rows pin the process, PyTorch included, to one core; two-thread rows "
             "unpin it. \"max rel err\" is max |Tessera - PyTorch| / max |PyTorch| of the "
             "native build; \"match\" is numpy.allclose (rtol 1e-4, atol 1e-4 max |PyTorch|) "
             "for every Tessera configuration.", "",
             f"Command: `{command}`", "",
             "| model | threads | PyTorch eager | TorchScript frozen | Tessera native | "
             "Tessera + oneDNN | Tessera + BLAS | best Tessera vs eager | vs frozen | "
             "max rel err | match |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        for n in threads:
            t = r[f"t{n}"]
            libs = [t.get("dnnl_ms"), t.get("blas_ms")]
            best = min([t["tessera_ms"][0]] + [lib[0] for lib in libs if lib])
            lines.append(f"| {r['model']} | {n} | {t['eager_ms'][0]:.3f} ({t['eager_ms'][1]:.3f}) | "
                         f"{t['frozen_ms'][0]:.3f} ({t['frozen_ms'][1]:.3f}) | "
                         f"{t['tessera_ms'][0]:.3f} ({t['tessera_ms'][1]:.3f}) | "
                         + "".join(f"{lib[0]:.3f} ({lib[1]:.3f}) | " if lib else "- | "
                                   for lib in libs)
                         + f"{t['eager_ms'][0] / best:.2f}x | {t['frozen_ms'][0] / best:.2f}x | "
                         f"{t['max_rel_err']:.1e} | {'yes' if t['match'] else 'NO'} |")
    print("\n".join(lines))
    if args.models:
        # Some models only: the table of record (every model) is left as it is.
        print("(--models: bench/results/models.md and models.json not written)")
        return
    out_dir.mkdir(exist_ok=True)
    (out_dir / "models.json").write_text(json.dumps(info, indent=2) + "\n")
    write_report(out_dir / "models.md", lines)


if __name__ == "__main__":
    main()
