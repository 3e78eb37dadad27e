#!/usr/bin/env bash
# Sets up, builds and runs every test suite: the layer check, gtest and the C programs
# (via ctest), pytest, the library built without its optional libraries, and a clang build
# with ASan+UBSan that runs the C/C++ suites and fuzzes each input format for a minute.
# Usage: scripts/test.sh [BUILD_DIR]   (default: build; the other builds go to
# BUILD_DIR-minimal and BUILD_DIR-fuzz; FUZZ_SECONDS sets the time per fuzzer, default 60)
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

echo "== clang 14 with ASan+UBSan: C/C++ suites, then each fuzzer for ${FUZZ_SECONDS:-60}s"
CC=clang CXX=clang++ scripts/setup.sh "$BUILD_DIR-fuzz" -DTESSERA_FUZZ=ON -DTESSERA_PYTHON=OFF
(cd "$BUILD_DIR-fuzz" && ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j2)
scripts/fuzz.sh "${FUZZ_SECONDS:-60}" "$BUILD_DIR-fuzz"
