#!/usr/bin/env bash
# Builds with AddressSanitizer + UBSan into build-asan (or $1) and runs the C++ and C
# suites there: out-of-bounds writes, leaks of the runtime side and undefined behaviour
# fail the run. (Generated kernels are compiled by the system compiler at run time and
# are not instrumented; their bounds are checked against the interpreter instead.)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build-asan}
scripts/setup.sh "$BUILD_DIR" -DTESSERA_ASAN=ON -DTESSERA_PYTHON=OFF
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd "$BUILD_DIR" && ctest --output-on-failure -j2)
