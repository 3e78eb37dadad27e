#!/usr/bin/env bash
# The main job: set up, make a real CNN as ONNX (ResNet-18, built by the project's own
# script with the onnx helper API and seeded random weights: no PyTorch, no downloads),
# import and compile it through Collage (each kernel's backend chosen among native, oneDNN
# and BLAS by measured latency, one thread), run it, check the output against an
# independent NumPy evaluation, time it on one and on all cores (and PyTorch on the same
# weights when it is installed), and end with a verdict block.
# Everything it makes stays in $TESSERA_MAIN_OUT (default: BUILD_DIR/main).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
HW=${TESSERA_MAIN_HW:-224}
OUT=${TESSERA_MAIN_OUT:-$BUILD_DIR/main}
CORES=$(nproc)
T0=$(date +%s)
STAGE=""
stage() {
  STAGE=$1
  local s=$(( $(date +%s) - T0 ))
  printf '\n[%d:%02d] == %s\n' $((s / 60)) $((s % 60)) "$1"
}
trap 'echo; echo "== VERDICT: FAIL during: $STAGE (the messages above say why)"' ERR

stage "set-up: packages (apt-get, first run only) and the build (ninja's progress follows)"
scripts/setup.sh "$BUILD_DIR"
mkdir -p "$OUT"
stage "making the model in $OUT"
/usr/bin/python3 examples/onnx/make_resnet18.py "$OUT" --hw "$HW"
# Every backend this build has (oneDNN and BLAS are optional at build time).
TARGETS=(--target "native -num_threads=1")
for lib in $(PYTHONPATH="$BUILD_DIR/python" /usr/bin/python3 -c \
    "import tessera; print(' '.join(t['name'] for t in tessera.list_targets() if t['name'] in ('dnnl', 'blas')))"); do
  TARGETS+=(--target "$lib")
done
NAMES=$(printf '%s\n' "${TARGETS[@]}" | grep -v '^--target$' | paste -sd, - | sed 's/,/, /g')
stage "importing resnet18.onnx and compiling it with Collage over $NAMES (one to two minutes; seconds once the cost database knows its kernels)"
start=$(date +%s.%N)
"$BUILD_DIR/tessera" compile "$OUT/resnet18.onnx" -o "$OUT/resnet18.tsx" "${TARGETS[@]}" \
  --collage --opt-level 3 2> >(tee "$OUT/collage.txt" >&2)
end=$(date +%s.%N)
COMPILE_S=$(/usr/bin/python3 -c "print(round($end - $start, 1))")
stage "running the compiled program (tessera run)"
"$BUILD_DIR/tessera" run "$OUT/resnet18.tsx" --input "input=$OUT/input.npy" \
  --output "$OUT/out.npy" --time
stage "latency and per-kernel profile on 1 thread, then on $CORES (tessera bench)"
"$BUILD_DIR/tessera" bench "$OUT/resnet18.tsx" --threads 1 --warmup 3 --repeat 20 \
  --input "input=$OUT/input.npy" | tee "$OUT/bench_1thread.txt"
"$BUILD_DIR/tessera" bench "$OUT/resnet18.tsx" --threads "$CORES" --warmup 3 --repeat 20 \
  --input "input=$OUT/input.npy" | grep -E "latency|thread" | tee "$OUT/bench_${CORES}threads.txt"
stage "checking the output against NumPy, and PyTorch on the same weights if installed"
trap - ERR
PYTHONPATH="$BUILD_DIR/python" /usr/bin/python3 examples/onnx/main_summary.py "$OUT" \
  --compile-seconds "$COMPILE_S" | tee "$OUT/verdict.txt"
