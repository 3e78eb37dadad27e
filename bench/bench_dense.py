"""Dense GEMM/GEMV throughput of the native backend on one thread (1024^3, 256^3, 1x512x512,
transformer shapes with 64 rows, and K = 1024 against K = 3072 at 512 x 768).

Usage: PYTHONPATH=build/python taskset -c 1 /usr/bin/python3 bench/bench_dense.py
"""
import argparse

import numpy as np

import tessera
from tessera.op import nn

argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
rng = np.random.default_rng(0)
for (m, n, k) in [(1024, 1024, 1024), (256, 256, 256), (1, 512, 512), (64, 1024, 256),
                  (64, 256, 1024), (512, 768, 1024), (512, 768, 3072)]:
    a = rng.standard_normal((m, k)).astype("float32"); b = rng.standard_normal((n, k)).astype("float32")
    av = tessera.var("a", shape=(m, k))
    mod = tessera.IRModule.from_expr(tessera.Function([av], nn.dense(av, tessera.const(b))))
    ex = tessera.build(mod, target="native -num_threads=1")
    out = ex.run(a=a)
    ref = a @ b.T
    err = float(np.max(np.abs(out - ref)) / np.max(np.abs(ref)))
    ms = ex.benchmark(warmup=3, repeat=10, a=a)["median_ms"]
    print(f"dense {m}x{n}x{k}: {ms:.3f} ms  {2*m*n*k/ms/1e6:.1f} GFLOP/s  {4*(m*k+n*k+m*n)/ms/1e6:.1f} GB/s  err {err:.2e}", flush=True)
