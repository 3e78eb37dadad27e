"""Throughput of one 1-thread ResNet-18 executable with 1 and with 2 concurrent callers.

Each call runs in an arena of its own (runtime::Executor keeps a pool of them), so two
callers on this 2-core machine should come close to twice the inferences/s of one.
Configurations are interleaved over several rounds, with a pause between them; the median
round is reported. Results go to bench/results/concurrency.{json,md}.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_concurrency.py [--hw 224]
       [--seconds 4] [--rounds 3] [--target native]
"""
import argparse
import json
import os
import platform
import statistics
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
import onnx_models  # noqa: E402

import tessera  # noqa: E402


def throughput(ex, inputs, callers, seconds):
    """Inferences per second with `callers` threads calling `ex` for `seconds`."""
    counts = [0] * callers
    stop = time.perf_counter() + seconds
    start = threading.Barrier(callers)

    def work(k):
        start.wait()
        while time.perf_counter() < stop:
            ex(**inputs)
            counts[k] += 1

    threads = [threading.Thread(target=work, args=(k,)) for k in range(callers)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hw", type=int, default=224)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--target", default="native")
    args = ap.parse_args()
    model = onnx_models.resnet18(hw=args.hw)
    mod = tessera.frontend.from_onnx(model)
    ex = tessera.build(mod, target=f"{args.target} -num_threads=1")
    inputs = {"input": onnx_models.input_for(model)["input"]}
    for _ in range(3):
        ex(**inputs)  # warm-up (and the second arena, once two callers run)
    runs = {1: [], 2: []}
    for _ in range(args.rounds):
        for callers in (1, 2):
            runs[callers].append(throughput(ex, inputs, callers, args.seconds))
            time.sleep(1.0)
    one, two = statistics.median(runs[1]), statistics.median(runs[2])
    result = {
        "model": f"resnet18 {args.hw}x{args.hw}", "target": f"{args.target} -num_threads=1",
        "inferences_per_s": {"1 caller": one, "2 callers": two}, "speedup": two / one,
        "rounds": runs, "seconds_per_run": args.seconds,
        "machine": {"cpus": os.cpu_count(), "machine": platform.machine(),
                    "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE", "")},
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
    with open(os.path.join(out_dir, "concurrency.json"), "w") as f:
        json.dump(result, f, indent=2)
    with open(os.path.join(out_dir, "concurrency.md"), "w") as f:
        f.write(f"# Concurrent inference: {result['model']}, {result['target']}\n\n")
        f.write("`PYTHONPATH=build/python /usr/bin/python3 bench/bench_concurrency.py`, "
                f"{os.cpu_count()} cores, median of {args.rounds} interleaved rounds of "
                f"{args.seconds:g} s, {result['date']}.\n\n")
        f.write("| callers | inferences/s |\n| --- | --- |\n")
        f.write(f"| 1 | {one:.2f} |\n| 2 | {two:.2f} |\n\n")
        f.write(f"2 callers / 1 caller: **{two / one:.2f}x**\n")
    print(f"1 caller: {one:.2f}/s, 2 callers: {two:.2f}/s, speedup {two / one:.2f}x")


if __name__ == "__main__":
    main()
