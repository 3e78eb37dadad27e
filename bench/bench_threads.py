"""Thread-pool cost per parallel region: a chain of 64 small native kernels (an elementwise
op each, fusion off, so every kernel is one parallel region) over tensors of 1K to 1M
floats, run on one pinned thread and on two threads. Per kernel: microseconds on 1 and 2
threads, and the region overhead estimated as t2 - t1 / 2 (what two threads cost beyond a
perfect split of the work). Two threads are measured with every loop on the pool
(-min_parallel_work=0) and with the default threshold, below which a kernel stays on the
calling thread. Writes bench/results/threads.{md,json}.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_threads.py [--rounds N]
"""
import argparse
import json
import os
import pathlib
import statistics
import sys
import time

import numpy as np

import tessera
from tessera import transform

ROOT = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from bench_models import machine  # noqa: E402
from bench_util import write_report  # noqa: E402

KERNELS = 64
SIZES = [1024, 4096, 16384, 65536, 262144, 1048576]


def chain(size):
    """x -> (x * 0.5 + 0.25) alternating, KERNELS ops, each its own kernel."""
    x = tessera.var("x", shape=(size,))
    y = x
    for k in range(KERNELS):
        y = tessera.op.multiply(y, tessera.const(np.float32(0.5))) if k % 2 == 0 else \
            tessera.op.add(y, tessera.const(np.float32(0.25)))
    return tessera.IRModule.from_expr(tessera.Function([x], y))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    rows = []
    for size in SIZES:
        mod = chain(size)
        x = np.random.default_rng(0).standard_normal(size).astype("float32")
        exes = {}
        for key, target in ((1, "native -num_threads=1"),
                            (2, "native -num_threads=2 -min_parallel_work=0"),
                            ("2d", "native -num_threads=2")):
            with transform.PassContext(opt_level=2, disabled_pass=["FuseOps"]):
                exes[key] = tessera.build(mod, target)
            assert len(exes[key].kernels) >= KERNELS // 2, exes[key].kernels
        for key in (2, "2d"):
            np.testing.assert_allclose(exes[key](x=x), exes[1](x=x), rtol=1e-6)
        times = {key: [] for key in exes}
        for _ in range(args.rounds):  # interleaved, a pause between (idle workers spin)
            for key, ex in exes.items():
                os.sched_setaffinity(0, {cores[0]} if key == 1 else set(cores[:2]))
                times[key].append(ex.benchmark(x=x, warmup=5, repeat=args.repeat)["median_ms"])
                time.sleep(0.2)
        os.sched_setaffinity(0, set(cores))
        t1, t2, t2d = (statistics.median(times[k]) * 1e3 / KERNELS for k in (1, 2, "2d"))
        rows.append({"floats": size, "us_1": t1, "us_2": t2, "overhead_us": t2 - t1 / 2,
                     "speedup": t1 / t2, "us_2_default": t2d})
        print(rows[-1], flush=True)
    meta = {"machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M"),
            "load": os.getloadavg()[0], "rounds": args.rounds, "repeat": args.repeat}
    out = ROOT / "results"
    (out / "threads.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    lines = ["# Thread pool: cost per parallel region (bench/bench_threads.py)", "",
             f"Machine: {meta['machine']['cpu']}, {meta['machine']['cores']} cores; load average "
             f"{meta['load']:.2f} at the start; a chain of {KERNELS} elementwise kernels (fusion "
             f"off), median of {args.rounds} interleaved rounds of {args.repeat} runs; 1 thread "
             "pinned to one core, 2 threads on two.", "",
             "Command: `PYTHONPATH=build/python /usr/bin/python3 bench/bench_threads.py`", "",
             "| floats per kernel | µs per kernel, 1 thread | µs per kernel, 2 threads | "
             "2 threads: speed-up | region overhead µs (t2 - t1/2) | "
             "µs per kernel, 2 threads, default -min_parallel_work |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['floats']} | {r['us_1']:.2f} | {r['us_2']:.2f} | {r['speedup']:.2f}x | "
                     f"{r['overhead_us']:.2f} | {r['us_2_default']:.2f} |")
    write_report(out / "threads.md", lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
