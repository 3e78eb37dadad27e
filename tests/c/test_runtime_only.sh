#!/usr/bin/env bash
# The runtime stands alone: the compiler saves programs (native, with oneDNN and with BLAS
# partitions), a C program linked only against libtessera_runtime runs them, and neither
# that program nor the runtime library links or defines anything of the compiler.
# Usage: test_runtime_only.sh BUILD_DIR CONFIG...
set -euo pipefail
BUILD_DIR=$1
shift
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$BUILD_DIR/tests/make_runtime_fixtures" "$WORK" "$@"
"$BUILD_DIR/tests/test_c_runtime" "$WORK" "$@"
# Linked libraries: the runtime only.
if ldd "$BUILD_DIR/tests/test_c_runtime" | grep -E 'libtessera(_c)?\.so'; then
  echo "test_c_runtime links the compiler" >&2
  exit 1
fi
ldd "$BUILD_DIR/tests/test_c_runtime" | grep 'libtessera_runtime\.so' >/dev/null
# Defined symbols: nothing of the IR, passes, Collage or code generation.
if nm -DC --defined-only "$BUILD_DIR/libtessera_runtime.so" |
    grep -E 'tessera::(IRModule|Expr|Function|PassContext|Pass\b|Target|collage::|native::|InferType|Build)'; then
  echo "libtessera_runtime.so defines compiler symbols" >&2
  exit 1
fi
echo "runtime-only program ran: $*"
