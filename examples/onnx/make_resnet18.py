"""Writes a ResNet-18 ONNX model (torchvision's architecture, seeded random weights, built
with onnx.helper: no PyTorch, no downloads) and a seeded input, or checks an output against
an independent NumPy evaluation of the model.

    python3 make_resnet18.py DIR [--hw 224]          # DIR/resnet18.onnx, DIR/input.npy
    python3 make_resnet18.py DIR --check OUT.npy     # compares OUT.npy with NumPy
"""
import argparse
import os
import sys

import numpy as np
import onnx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "python"))
import onnx_models  # noqa: E402
import onnx_numpy_ref  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("dir")
    parser.add_argument("--hw", type=int, default=224, help="input height and width")
    parser.add_argument("--check", help="an output .npy to compare with NumPy")
    args = parser.parse_args()
    path = os.path.join(args.dir, "resnet18.onnx")
    if args.check:
        model = onnx.load(path)
        x = np.load(os.path.join(args.dir, "input.npy"))
        want = onnx_numpy_ref.run(model, {"input": x})[0]
        got = np.load(args.check)
        err = float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-30))
        ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-4)
        print(f"check {args.check}: {'OK' if ok else 'MISMATCH'} vs NumPy "
              f"(max abs error / max |value| = {err:.2e}, top-1 class {int(np.argmax(got))})")
        sys.exit(0 if ok else 1)
    os.makedirs(args.dir, exist_ok=True)
    model = onnx_models.resnet18(hw=args.hw)
    onnx.save(model, path)
    np.save(os.path.join(args.dir, "input.npy"), onnx_models.input_for(model)["input"])
    ops = sorted({n.op_type for n in model.graph.node})
    print(f"wrote {path}: {len(model.graph.node)} nodes ({', '.join(ops)}), "
          f"{sum(int(np.prod(i.dims)) for i in model.graph.initializer)} weights, "
          f"input [1, 3, {args.hw}, {args.hw}]")


if __name__ == "__main__":
    main()
