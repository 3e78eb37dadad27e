#!/usr/bin/env bash
# Sets up, builds and runs every test suite: the layer check, gtest and the C programs
# (via ctest), pytest, and the library built without its optional libraries.
# Usage: scripts/test.sh [BUILD_DIR]   (default: build; the minimal build goes to BUILD_DIR-minimal)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
scripts/setup.sh "$BUILD_DIR"

echo "== Layers (scripts/check_layers.py)"
/usr/bin/python3 scripts/check_layers.py

echo "== C++ tests (ctest)"
(cd "$BUILD_DIR" && ctest --output-on-failure -j2)

echo "== Python tests (pytest)"
TESSERA_BUILD_DIR="$PWD/$BUILD_DIR" PYTHONPATH="$PWD/$BUILD_DIR/python" \
  /usr/bin/python3 -m pytest -q tests/python

echo "== Without oneDNN, OpenBLAS and ONNX (library and C/C++ tests; ccache serves most files)"
scripts/setup.sh "$BUILD_DIR-minimal" -DTESSERA_WITH_DNNL=OFF -DTESSERA_WITH_BLAS=OFF \
  -DTESSERA_WITH_ONNX=OFF -DTESSERA_PYTHON=OFF
(cd "$BUILD_DIR-minimal" && ctest --output-on-failure -j2)
