#!/usr/bin/env bash
# Sets up, builds and runs every test suite: gtest (via ctest) and pytest.
# Usage: scripts/test.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
scripts/setup.sh "$BUILD_DIR"

echo "== C++ tests (ctest)"
(cd "$BUILD_DIR" && ctest --output-on-failure -j2)

echo "== Python tests (pytest)"
TESSERA_BUILD_DIR="$PWD/$BUILD_DIR" PYTHONPATH="$PWD/$BUILD_DIR/python" \
  /usr/bin/python3 -m pytest -q tests/python
