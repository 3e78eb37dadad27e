#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds examples/c against it with
# find_package(Tessera) and with pkg-config, and runs both.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR [EXTRA_FLAGS]   (EXTRA_FLAGS: e.g. the
# sanitizer flags of an instrumented build, used to compile and link the examples)
set -euo pipefail
BUILD_DIR=$1
SOURCE_DIR=$2
EXTRA_FLAGS=${3:-}
PREFIX=$(mktemp -d)
trap 'rm -rf "$PREFIX"' EXIT
cmake --install "$BUILD_DIR" --prefix "$PREFIX" >/dev/null
cmake -S "$SOURCE_DIR/examples/c" -B "$PREFIX/example-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_C_FLAGS="$EXTRA_FLAGS" \
  -DCMAKE_EXE_LINKER_FLAGS="$EXTRA_FLAGS" >/dev/null
cmake --build "$PREFIX/example-build" >/dev/null
OUT=$("$PREFIX/example-build/embed")
grep -q "^y = \[1, 4, 9, 16\]" <<<"$OUT"
grep -q "^native y = \[1, 4, 9, 16\]" <<<"$OUT"
PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" cc "$SOURCE_DIR/examples/c/embed.c" -o "$PREFIX/embed_pc" $EXTRA_FLAGS \
  $(PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --cflags --libs tessera)
"$PREFIX/embed_pc" | grep -q "^native y = \[1, 4, 9, 16\]"
"$PREFIX/bin/tessera" --help >/dev/null
echo "installed package: find_package and pkg-config builds run"
