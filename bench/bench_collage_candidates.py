"""Collage candidate enumeration time on a ResNet-18-sized graph (native spec, and the
oneDNN and BLAS specs built from their pattern tables when this build has them).

Builds ResNet-18 for 1x3x224x224 as graph IR (each batch norm already simplified to a
multiply + add, as SimplifyInference leaves it), then times DataflowGraph construction
plus candidate enumeration of the native FuseOps-like spec (and the host spec, and the
library specs of `native -compiler=dnnl -libs=blas`).

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_collage_candidates.py
Writes bench/results/collage_candidates.{md,json}.
"""
import argparse
import json
import pathlib
import platform
import statistics
import time

import tessera
from tessera import collage


def resnet18_text():
    params, lines = ["%data: Tensor[(1, 3, 224, 224), float32]"], []
    counter = [0]

    def value(expr):
        name = f"%{counter[0]}"
        counter[0] += 1
        lines.append(f"  {name} = {expr};")
        return name

    def param(name, shape):
        params.append(f"%{name}: Tensor[({', '.join(map(str, shape))}), float32]")
        return f"%{name}"

    def conv_bn(x, name, cin, cout, k, stride, relu):
        w = param(f"{name}_w", (cout, cin, k, k))
        s = param(f"{name}_scale", (cout, 1, 1))
        b = param(f"{name}_shift", (cout, 1, 1))
        pad = k // 2
        y = value(f"nn.conv2d({x}, {w}, strides=[{stride}, {stride}], "
                  f"padding=[{pad}, {pad}, {pad}, {pad}])")
        y = value(f"multiply({y}, {s})")
        y = value(f"add({y}, {b})")
        return value(f"nn.relu({y})") if relu else y

    x = conv_bn("%data", "conv1", 3, 64, 7, 2, True)
    x = value(f"nn.max_pool2d({x}, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])")
    cin = 64
    for stage, cout in enumerate([64, 128, 256, 512]):
        for block in range(2):
            stride = 2 if stage > 0 and block == 0 else 1
            name = f"s{stage}b{block}"
            y = conv_bn(x, name + "a", cin, cout, 3, stride, True)
            y = conv_bn(y, name + "b", cout, cout, 3, 1, False)
            shortcut = conv_bn(x, name + "d", cin, cout, 1, stride, False) if stride != 1 or cin != cout else x
            x = value(f"add({y}, {shortcut})")
            x = value(f"nn.relu({x})")
            cin = cout
    x = value(f"nn.global_avg_pool2d({x})")
    x = value(f"nn.batch_flatten({x})")
    w = param("fc_w", (1000, 512))
    b = param("fc_b", (1000,))
    x = value(f"nn.dense({x}, {w})")
    body = "\n".join(lines) + f"\n  add({x}, {b})"
    return "def @main(" + ", ".join(params) + ") {\n" + body + "\n}\n"


def main():
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    mod = tessera.parse(resnet18_text())
    nodes = len(collage.node_labels(mod))
    ops = sum(1 for label in collage.node_labels(mod) if "." in label or label in ("add", "multiply"))
    rows = []
    target_lists = [["native"]]
    libs = [lib for lib in ("dnnl", "blas") if lib in tessera.pattern.list_pattern_tables()]
    if libs:
        target_lists.append(["native" + "".join(
            " -compiler=dnnl" if lib == "dnnl" else " -libs=blas" for lib in libs)])
    configs = [(t, d, h) for t in target_lists for d in (4, 8) for h in (False, True)
               if t == ["native"] or h]
    for targets, depth, host in configs:
        times, counts = [], None
        for _ in range(5):
            start = time.perf_counter()
            counts = collage.candidate_counts(mod, targets, max_depth=depth, host=host)
            times.append(time.perf_counter() - start)
        rows.append({"targets": targets, "max_depth": depth, "host_spec": host,
                     "counts": dict(counts),
                     "median_ms": statistics.median(times) * 1e3,
                     "min_ms": min(times) * 1e3})
        print(f"{targets} depth {depth} host={host}: {dict(counts)} candidates, "
              f"median {rows[-1]['median_ms']:.2f} ms", flush=True)
    out = pathlib.Path(__file__).parent / "results"
    result = {"graph": "ResNet-18 (1x3x224x224, BN as multiply+add)", "dataflow_nodes": nodes,
              "op_calls": ops, "machine": platform.machine(), "python": platform.python_version(),
              "command": "PYTHONPATH=build/python /usr/bin/python3 bench/bench_collage_candidates.py",
              "runs": rows}
    (out / "collage_candidates.json").write_text(json.dumps(result, indent=2) + "\n")
    md = ["# Collage candidate enumeration (ResNet-18)", "",
          f"Graph: {result['graph']}, {nodes} dataflow nodes. Time = DataflowGraph construction "
          "+ candidate enumeration of every spec (median of 5 runs, one thread; the machine is "
          "shared, so absolute times are noisy).", "",
          f"Command: `{result['command']}`", "",
          "| targets | max_depth | specs | candidates | median ms | min ms |",
          "|---|---|---|---|---|---|"]
    for r in rows:
        specs = ", ".join(r["counts"])
        md.append(f"| `{' '.join(r['targets'])}` | {r['max_depth']} | {specs} | "
                  f"{', '.join(str(v) for v in r['counts'].values())} | "
                  f"{r['median_ms']:.2f} | {r['min_ms']:.2f} |")
    (out / "collage_candidates.md").write_text("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
