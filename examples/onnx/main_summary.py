"""The verdict block of the main job (scripts/run_main.sh): reads what it left in OUT (the
model, input and output, the timings of `tessera bench`, the compiled program) and prints
whether the output is right, the latencies, PyTorch's on the same model and weights when
it is installed, and which backend Collage gave each kernel. Exits 1 unless correct.

    python3 main_summary.py OUT --compile-seconds S
"""
import argparse
import os
import re
import statistics
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "python"))
import onnx_numpy_ref  # noqa: E402


def latency_ms(path):
    """The median and p90 latency `tessera bench` printed to `path`."""
    with open(path) as f:
        match = re.search(r"median ([0-9.]+) ms, p90 ([0-9.]+) ms", f.read())
    return (float(match.group(1)), float(match.group(2))) if match else (None, None)


def torch_resnet18(model):
    """torchvision's ResNet-18 with the ONNX model's weights (same layer order), or None
    without PyTorch."""
    try:
        import torch
        import torchvision
    except ImportError:
        return None
    net = torchvision.models.resnet18(weights=None).eval()
    keys = [k for k in net.state_dict() if not k.endswith("num_batches_tracked")]
    inits = [numpy_helper.to_array(t) for t in model.graph.initializer]
    if len(keys) != len(inits):
        return None
    state = net.state_dict()
    for key, value in zip(keys, inits):
        if tuple(state[key].shape) != value.shape:
            return None
        state[key] = torch.from_numpy(value.copy())
    net.load_state_dict(state)
    return net


def time_torch(net, x, threads, repeat=20):
    import torch
    torch.set_num_threads(threads)
    tx = torch.from_numpy(x)
    with torch.no_grad():
        for _ in range(3):
            net(tx)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            net(tx)
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("out")
    parser.add_argument("--compile-seconds", type=float, default=None)
    args = parser.parse_args()
    out = args.out
    model = onnx.load(os.path.join(out, "resnet18.onnx"))
    x = np.load(os.path.join(out, "input.npy"))
    want = onnx_numpy_ref.run(model, {"input": x})[0]
    got = np.load(os.path.join(out, "out.npy"))
    err = float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-30))
    ok = got.shape == want.shape and bool(np.allclose(got, want, rtol=1e-4, atol=1e-4))
    cores = os.cpu_count() or 1
    hw = x.shape[-1]

    lines = [f"model      ResNet-18 ({hw}x{hw}, ONNX, seeded random weights): {out}/resnet18.onnx",
             f"correct    {'yes' if ok else 'NO'}: output vs an independent NumPy evaluation, "
             f"max abs error / max |value| = {err:.1e}; top-1 class {int(np.argmax(got))}"]
    if args.compile_seconds is not None:
        lines.append(f"compile    {args.compile_seconds:.1f} s (import, Collage's measured search, "
                     f"code generation): {out}/resnet18.tsx")
    one, one_p90 = latency_ms(os.path.join(out, "bench_1thread.txt"))
    every, every_p90 = latency_ms(os.path.join(out, f"bench_{cores}threads.txt"))
    lines.append(f"Tessera    {one:.2f} ms on 1 thread, {every:.2f} ms on {cores} threads "
                 f"(median of 20 runs)")
    # Other work on the machine shows as a wide spread or as more threads running slower.
    if one_p90 > 2 * one or every_p90 > 2 * every or every > one:
        lines.append(f"           noisy: p90 {one_p90:.2f} / {every_p90:.2f} ms; another process "
                     f"is using the cores (load {os.getloadavg()[0]:.1f}), rerun when idle")
    net = torch_resnet18(model)
    if net is None:
        lines.append("PyTorch    not installed (apt-get install python3-torch python3-torchvision "
                     "to compare)")
    else:
        import torch
        with torch.no_grad():
            torch_err = float(np.max(np.abs(net(torch.from_numpy(x)).numpy() - want)) /
                              max(float(np.max(np.abs(want))), 1e-30))
        t1, tn = time_torch(net, x, 1), time_torch(net, x, cores)
        lines.append(f"PyTorch    {t1:.2f} ms on 1 thread, {tn:.2f} ms on {cores} threads "
                     f"(torch {torch.__version__} eager, same weights; its output vs NumPy: "
                     f"max abs error / max |value| = {torch_err:.1e})")
        lines.append(f"speed-up   Tessera over PyTorch: {t1 / one:.2f}x on 1 thread, "
                     f"{tn / every:.2f}x on {cores} threads")
    import tessera
    exe = tessera.load(os.path.join(out, "resnet18.tsx"))
    # The kernels of the program that runs (the guard may have kept another configuration
    # than Collage's plan), by the module that ran each.
    counts = {}
    for row in exe.profile(input=x, repeat=1)["rows"]:
        counts[row["backend"]] = counts.get(row["backend"], 0) + 1
    split = ", ".join(f"{b} {n}" for b, n in sorted(counts.items(), key=lambda i: (-i[1], i[0])))
    report = exe.collage_report()
    if report is None:
        lines.append(f"backends   kernels by backend: {split} (built without Collage)")
    else:
        runs = ("Collage's plan" if report.chosen == "collage" else
                f"'{report.chosen}', which the guard timed faster than Collage's plan")
        report.save_html(os.path.join(out, "collage.html"))
        lines.append(f"backends   kernels by backend: {split}; the program runs {runs} "
                     f"(report: {out}/collage.txt, {out}/collage.html)")
        data = report.data
        if "from_cost_db" in data:
            db = data.get("cost_db") or "none (collage.cost_db is empty)"
            lines.append(f"costs      {data['measured']} kernel(s) measured, {data['from_cost_db']} "
                         f"taken from the cost database {db} (a second run measures nothing)")
    print("== VERDICT: " + ("PASS" if ok else "FAIL: the compiled model's output is wrong"))
    for line in lines:
        print("   " + line)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
