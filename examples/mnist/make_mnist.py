"""Writes the MNIST example (text IR + .npy inputs) to a folder, or checks an output.

  make_mnist.py DIR                  writes DIR/mnist.txt and DIR/inputs/<name>.npy
  make_mnist.py DIR --check OUT.npy  compares OUT.npy with the NumPy reference
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mnist  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dir")
    parser.add_argument("--check", metavar="OUT_NPY")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    inputs = mnist.make_inputs(args.seed)
    if args.check:
        got = np.load(args.check)
        want = mnist.reference(inputs)
        err = float(np.max(np.abs(got - want)))
        print("output:", np.array2string(got, precision=4))
        print(f"max |tessera - numpy| = {err:.3g}")
        if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
            sys.exit("MISMATCH against the NumPy reference")
        print("matches the NumPy reference")
        return
    os.makedirs(os.path.join(args.dir, "inputs"), exist_ok=True)
    with open(os.path.join(args.dir, "mnist.txt"), "w") as f:
        f.write(mnist.MODEL_TEXT)
    for name, value in inputs.items():
        np.save(os.path.join(args.dir, "inputs", name + ".npy"), value)


if __name__ == "__main__":
    main()
