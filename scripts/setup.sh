#!/usr/bin/env bash
# Installs what Tessera needs on Debian 12 (as root, idempotent), then configures and builds.
# Usage: scripts/setup.sh [BUILD_DIR [CMAKE_OPTION...]]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
shift || true  # the rest are extra CMake options (e.g. -DTESSERA_ASAN=ON)

PACKAGES=(cmake ninja-build ccache g++ pkg-config libgtest-dev nlohmann-json3-dev libspdlog-dev
          python3 python3-dev python3-numpy python3-pytest pybind11-dev python3-setuptools python3-venv
          libdnnl-dev libopenblas-dev libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx
          libonnx-testdata libdlpack-dev libsqlite3-dev libssl-dev clang libclang-rt-14-dev mypy graphviz
          python3-nbclient python3-nbformat python3-ipykernel python3-distributed)
missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

export CCACHE_BASEDIR="$PWD"
# Build directories share cache entries (CI builds a second, minimal configuration).
export CCACHE_NOHASHDIR=1
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPython3_EXECUTABLE=/usr/bin/python3 "$@" >/dev/null
ninja -C "$BUILD_DIR"
