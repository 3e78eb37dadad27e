#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds examples/c against it with
# find_package(Tessera) and with pkg-config, and runs both.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR [EXTRA_FLAGS [CC]]   (EXTRA_FLAGS: e.g. the
# sanitizer flags of an instrumented build, used to compile and link the examples; CC: the
# build's C compiler, whose sanitizer runtime the instrumented library expects)
set -euo pipefail
BUILD_DIR=$1
SOURCE_DIR=$2
EXTRA_FLAGS=${3:-}
CC=${4:-cc}
export CC
PREFIX=$(mktemp -d)
trap 'rm -rf "$PREFIX"' EXIT
cmake --install "$BUILD_DIR" --prefix "$PREFIX" >/dev/null
cmake -S "$SOURCE_DIR/examples/c" -B "$PREFIX/example-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="$EXTRA_FLAGS" \
  -DCMAKE_EXE_LINKER_FLAGS="$EXTRA_FLAGS" >/dev/null
cmake --build "$PREFIX/example-build" >/dev/null
OUT=$("$PREFIX/example-build/embed")
grep -q "^y = \[1, 4, 9, 16\]" <<<"$OUT"
grep -q "^native y = \[1, 4, 9, 16\]" <<<"$OUT"
grep -q "^custom_pass: ok" <<<"$("$PREFIX/example-build/custom_pass")"
PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" "$CC" "$SOURCE_DIR/examples/c/embed.c" -o "$PREFIX/embed_pc" $EXTRA_FLAGS \
  $(PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --cflags --libs tessera)
"$PREFIX/embed_pc" | grep "^native y = \[1, 4, 9, 16\]" >/dev/null
"$PREFIX/bin/tessera" --help >/dev/null
# The runtime alone: a program the installed CLI compiled runs from a program linked only
# against libtessera_runtime (find_package's Tessera::runtime and pkg-config's tessera-runtime).
printf 'def @main(%%x: Tensor[(2, 3), float32]) {\n  nn.relu(add(%%x, %%x))\n}\n' >"$PREFIX/m.txt"
"$PREFIX/bin/tessera" compile "$PREFIX/m.txt" -o "$PREFIX/m.tsx" --target "native -num_threads=1" >/dev/null
"$PREFIX/example-build/run_saved" "$PREFIX/m.tsx" | grep "^output 0: rank 2, first value 2;" >/dev/null
PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" "$CC" "$SOURCE_DIR/examples/c/run_saved.c" -o "$PREFIX/run_pc" $EXTRA_FLAGS \
  $(PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --cflags --libs tessera-runtime)
"$PREFIX/run_pc" "$PREFIX/m.tsx" | grep "^output 0: rank 2, first value 2;" >/dev/null
if ldd "$PREFIX/run_pc" | grep -E 'libtessera(_c)?\.so' >/dev/null; then
  echo "run_saved links the compiler" >&2
  exit 1
fi
echo "installed package: find_package and pkg-config builds run (compiler and runtime alone)"
