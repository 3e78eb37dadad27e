"""Build time of ResNet-18 (torchvision, seeded random weights, exported to ONNX) natively at
opt_level 2 and 3: cold (an empty kernel cache in a fresh temporary TESSERA_CACHE_DIR) and
warm (the same cache again), wall seconds and the C compiler's CPU seconds (children's
rusage), the kernels and the size of the generated C; then the run time of both builds on
one pinned thread (`native -num_threads=1`, core 0). Run time is measured in several
worker processes one after the other, each loading every executable afresh and
interleaving single runs of them: on this machine where an executable's buffers land
moves its time by up to 10% from one process to the next, more than the differences being
looked for, so only the mean over processes compares builds. CPU time (process_time) is
reported beside wall time because it barely moves when other processes share the cores.

Before/after comparisons: run it in the old checkout with `--label before --save-exe DIR`
(which keeps its two executables), then in the new one with `--label after --compare-exe
DIR` (their run times are measured interleaved with the new builds'), then `--report
before,after` writes bench/results/compile_time.md from the two JSON files.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_compile_time.py [--label L]
       [--builds N] [--rounds N] [--processes N] [--save-exe DIR] [--compare-exe DIR]
       [--report A,B]
"""
import argparse
import json
import os
import pathlib
import resource
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent
RESULTS = ROOT / "results"
LEVELS = (2, 3)


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def build(tessera, mod, level, target):
    from tessera import transform
    with transform.PassContext(opt_level=level):
        t, c = time.perf_counter(), children_cpu()
        ex = tessera.build(mod, target)
        return ex, time.perf_counter() - t, children_cpu() - c


def resnet18_onnx(path):
    import torch
    sys.path.insert(0, str(ROOT))
    from bench_models import make_models
    model, shape = make_models()["resnet18"]
    model.eval()
    torch.manual_seed(1)
    x = torch.randn(*shape)
    torch.onnx.export(model, x, path, opset_version=13, input_names=["input"],
                      output_names=["output"], do_constant_folding=True)
    with torch.no_grad():
        return x.numpy(), model(x).numpy()


def measure_builds(tessera, mod, args):
    out = {}
    target = "native -num_threads=1"
    for level in LEVELS:
        cold, warm = [], []
        for _ in range(args.builds):
            cache = tempfile.mkdtemp(prefix="tessera-bench-cache-")
            os.environ["TESSERA_CACHE_DIR"] = cache
            try:
                ex, secs, cpu = build(tessera, mod, level, target)
                cold.append((secs, cpu))
                ex, secs, cpu = build(tessera, mod, level, target)
                warm.append((secs, cpu))
            finally:
                shutil.rmtree(cache, ignore_errors=True)
        src = ex.source() or ""
        out[level] = {
            "cold_s": statistics.median(s for s, _ in cold),
            "cold_all_s": [round(s, 2) for s, _ in cold],
            "cold_min_s": min(s for s, _ in cold),
            "cold_cc_cpu_s": statistics.median(c for _, c in cold),
            "warm_s": statistics.median(s for s, _ in warm),
            "warm_cc_cpu_s": statistics.median(c for _, c in warm),
            "kernel_calls": len(ex.kernels),
            "kernels": len(set(ex.kernels)),
            "c_bytes": len(src),
            "c_lines": src.count("\n"),
        }
        print(f"opt_level {level}: cold {out[level]['cold_s']:.2f} s (cc CPU "
              f"{out[level]['cold_cc_cpu_s']:.2f} s), warm {out[level]['warm_s']:.2f} s, "
              f"{out[level]['kernels']} kernels, {len(src) / 1e3:.0f} kB of C", flush=True)
    return out


def worker(args):
    """One process's measurement of every executable in --worker DIR (name.tsx): loaded
    fresh, so their memory lands elsewhere than in the other processes; interleaved runs
    on core 0; prints per executable the median and 25th percentile CPU ms and median wall
    ms as JSON."""
    import tessera.runtime as rt
    os.sched_setaffinity(0, {0})
    names = sorted(p.stem for p in pathlib.Path(args.worker).glob("*.tsx"))
    shift = args.worker_index % len(names)  # rotate the order from process to process
    names = names[shift:] + names[:shift]
    exes = {n: rt.load(os.path.join(args.worker, n + ".tsx"), 1) for n in names}
    x = np.load(os.path.join(args.worker, "input.npy"))
    ref = np.load(os.path.join(args.worker, "reference.npy"))
    for name, ex in exes.items():
        y = ex(input=x)
        err = float(np.max(np.abs(y - ref)) / max(float(np.max(np.abs(ref))), 1e-30))
        assert err < 1e-4, f"{name}: relative error {err}"
        ex(input=x)
    cpu = {k: [] for k in exes}
    wall = {k: [] for k in exes}
    for _ in range(args.rounds):
        for k, ex in exes.items():
            c, w = time.process_time(), time.perf_counter()
            ex(input=x)
            cpu[k].append((time.process_time() - c) * 1e3)
            wall[k].append((time.perf_counter() - w) * 1e3)
    print(json.dumps({k: {"cpu_ms": statistics.median(cpu[k]),
                          "cpu_p25_ms": float(np.percentile(cpu[k], 25)),
                          "wall_ms": statistics.median(wall[k])} for k in exes}))


def measure_runs(exe_dir, processes, rounds):
    """Run time of the executables in exe_dir: `processes` worker processes one after the
    other (where an executable's buffers land changes its time by up to 10% from process
    to process here, so one process cannot compare two builds), each interleaving
    `rounds` runs of every executable. Per executable: the mean over processes of the
    median CPU ms, its standard error, and the mean median wall ms."""
    import subprocess
    per = []
    for i in range(processes):
        out = subprocess.run([sys.executable, __file__, "--worker", exe_dir, "--worker-index",
                              str(i), "--rounds", str(rounds)], check=True, capture_output=True,
                             text=True).stdout
        per.append(json.loads(out.strip().splitlines()[-1]))
    result = {}
    for k in per[0]:
        cpus = [p[k]["cpu_ms"] for p in per]
        result[k] = {"cpu_ms": statistics.mean(cpus),
                     "cpu_sem_ms": statistics.stdev(cpus) / len(cpus) ** 0.5 if len(cpus) > 1 else 0,
                     "wall_ms": statistics.mean(p[k]["wall_ms"] for p in per),
                     "per_process_cpu_ms": [round(c, 3) for c in cpus]}
    return result


def paired_ratios(runs, reference_label):
    """Per executable "L optN": the mean over processes of its CPU time divided by that of
    "reference_label optN" in the same process, and the standard error (the per-process
    ratio cancels most of the process-to-process swing)."""
    for k, v in runs.items():
        ref = runs.get(f"{reference_label} {k.split()[-1]}")
        if not ref or ref is v:
            continue
        r = [a / b for a, b in zip(v["per_process_cpu_ms"], ref["per_process_cpu_ms"])]
        v["ratio"] = statistics.mean(r)
        v["ratio_sem"] = statistics.stdev(r) / len(r) ** 0.5 if len(r) > 1 else 0


def run(args):
    import tessera
    tmp = tempfile.mkdtemp(prefix="tessera-bench-")
    path = os.path.join(tmp, "resnet18.onnx")
    x, ref = resnet18_onnx(path)
    mod = tessera.frontend.from_onnx(path)
    started = os.getloadavg()[0]
    builds = measure_builds(tessera, mod, args)
    exe_dir = os.path.join(tmp, "exes")
    os.makedirs(exe_dir)
    np.save(os.path.join(exe_dir, "input.npy"), x)
    np.save(os.path.join(exe_dir, "reference.npy"), ref)
    cache = tempfile.mkdtemp(prefix="tessera-bench-cache-")
    os.environ["TESSERA_CACHE_DIR"] = cache
    for level in LEVELS:
        ex = build(tessera, mod, level, "native -num_threads=1")[0]
        ex.save(os.path.join(exe_dir, f"{args.label} opt{level}.tsx"))
        if args.save_exe:
            os.makedirs(args.save_exe, exist_ok=True)
            ex.save(os.path.join(args.save_exe, f"opt{level}.tsx"))
    shutil.rmtree(cache, ignore_errors=True)
    if args.compare_exe:
        for level in LEVELS:
            os.symlink(os.path.abspath(os.path.join(args.compare_exe, f"opt{level}.tsx")),
                       os.path.join(exe_dir, f"{args.compare_label} opt{level}.tsx"))
    runs = measure_runs(exe_dir, args.processes, args.rounds)
    paired_ratios(runs, args.compare_label)
    for k, v in runs.items():
        ratio = f", {v['ratio']:.3f} +- {v['ratio_sem']:.3f} x {args.compare_label}" if "ratio" in v else ""
        print(f"{k}: {v['cpu_ms']:.2f} +- {v['cpu_sem_ms']:.2f} ms CPU, {v['wall_ms']:.2f} ms wall"
              + ratio, flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
    sys.path.insert(0, str(ROOT))
    from bench_models import machine
    result = {"label": args.label, "builds": builds, "runs": runs,
              "meta": {"machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M"),
                       "load_start": started, "load_end": os.getloadavg()[0],
                       "cold_builds": args.builds, "rounds": args.rounds,
                       "processes": args.processes,
                       "compile_jobs": os.environ.get("TESSERA_COMPILE_JOBS", "(unset)"),
                       "command": " ".join(["bench/bench_compile_time.py"] + sys.argv[1:])}}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"compile_time_{args.label}.json").write_text(json.dumps(result, indent=2) + "\n")


def report(labels):
    data = [json.loads((RESULTS / f"compile_time_{l}.json").read_text()) for l in labels]
    last = data[-1]
    m = last["meta"]["machine"]
    lines = ["# ResNet-18 build time (bench/bench_compile_time.py)", "",
             f"Machine: {m['cpu']}, {m['cores']} cores, shared with other builds while "
             "measured (load averages below); cold = empty kernel cache (fresh "
             "TESSERA_CACHE_DIR), warm = the same cache again; medians (and the best) over "
             "the builds of each run. Run time: one thread pinned to core "
             "0 (`native -num_threads=1`), process CPU time (and wall time) per run.", ""]
    for d in data:
        meta = d["meta"]
        lines.append(f"- {d['label']}: `PYTHONPATH=build/python /usr/bin/python3 "
                     f"{meta['command']}` ({meta['date']}, {meta['cold_builds']} cold and warm "
                     f"builds per opt_level, load average {meta['load_start']:.1f} -> "
                     f"{meta['load_end']:.1f})")
    lines += ["", "| build | opt_level | cold s (median, best) | C compiler CPU s (cold) | warm s | "
              "kernels (calls) | C kB |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for d in data:
        for level in LEVELS:
            b = d["builds"][str(level)]
            best = b.get("cold_min_s", min(b["cold_all_s"]))
            lines.append(f"| {d['label']} | {level} | {b['cold_s']:.2f}, {best:.2f} | "
                         f"{b['cold_cc_cpu_s']:.2f} "
                         f"| {b['warm_s']:.2f} | {b['kernels']} ({b['kernel_calls']}) | "
                         f"{b['c_bytes'] / 1e3:.0f} |")
    runs = last["runs"]
    lines += ["", f"Run time (measured together in the last run: {last['meta']['processes']} worker "
              f"processes x {last['meta']['rounds']} interleaved runs; mean over processes of "
              "each one's median, +- its standard error):", "",
              "| executable | CPU ms / run | wall ms / run | CPU time / the other build's, "
              "same process (mean +- s.e.) |", "| --- | --- | --- | --- |"]
    for k in sorted(runs, key=lambda k: (k.split()[-1], k)):
        r = runs[k]
        ratio = f"{r['ratio']:.3f} +- {r['ratio_sem']:.3f}" if "ratio" in r else "1 (reference)"
        lines.append(f"| {k} | {r['cpu_ms']:.2f} +- {r['cpu_sem_ms']:.2f} | {r['wall_ms']:.2f} | "
                     f"{ratio} |")
    sys.path.insert(0, str(ROOT))
    from bench_util import write_report
    write_report(RESULTS / "compile_time.md", lines)
    print("\n".join(lines))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--label", default="after")
    parser.add_argument("--builds", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--worker", default="")
    parser.add_argument("--worker-index", type=int, default=0)
    parser.add_argument("--save-exe", default="")
    parser.add_argument("--compare-exe", default="")
    parser.add_argument("--compare-label", default="before")
    parser.add_argument("--report", default="")
    args = parser.parse_args()
    if args.worker:
        worker(args)
    elif args.report:
        report(args.report.split(","))
    else:
        run(args)


if __name__ == "__main__":
    main()
