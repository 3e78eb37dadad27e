#!/usr/bin/env bash
# The main job: set up, make a real CNN as ONNX (ResNet-18, built by the project's own
# script with the onnx helper API and seeded random weights: no PyTorch, no downloads),
# import and compile it through Collage (each kernel's backend chosen among native, oneDNN
# and BLAS by measured latency, one thread), run it, check the output against an
# independent NumPy evaluation, and print its latency and per-kernel profile.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
HW=${TESSERA_MAIN_HW:-224}
scripts/setup.sh "$BUILD_DIR" >/dev/null
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "== making the model"
/usr/bin/python3 examples/onnx/make_resnet18.py "$WORK" --hw "$HW"
# Every backend this build has (oneDNN and BLAS are optional at build time).
TARGETS=(--target "native -num_threads=1")
for lib in $(PYTHONPATH="$BUILD_DIR/python" /usr/bin/python3 -c \
    "import tessera; print(' '.join(t['name'] for t in tessera.list_targets() if t['name'] in ('dnnl', 'blas')))"); do
  TARGETS+=(--target "$lib")
done
echo "== importing $WORK/resnet18.onnx and compiling it with Collage (${TARGETS[*]})"
start=$(date +%s.%N)
"$BUILD_DIR/tessera" compile "$WORK/resnet18.onnx" -o "$WORK/resnet18.tsx" "${TARGETS[@]}" \
  --collage --opt-level 3
end=$(date +%s.%N)
printf 'import + Collage search + compile time: %.1f s\n' "$(/usr/bin/python3 -c "print($end-$start)")"
echo "== running the compiled executable"
"$BUILD_DIR/tessera" run "$WORK/resnet18.tsx" --input "input=$WORK/input.npy" \
  --output "$WORK/out.npy" --time
if ! CHECK=$(/usr/bin/python3 examples/onnx/make_resnet18.py "$WORK" --check "$WORK/out.npy"); then
  echo "$CHECK"
  echo "== VERDICT: FAIL: the output of the compiled ResNet-18 does not match NumPy"
  exit 1
fi
echo "$CHECK"
echo "== latency and per-kernel profile"
"$BUILD_DIR/tessera" bench "$WORK/resnet18.tsx" --warmup 3 --repeat 20 \
  --input "input=$WORK/input.npy" | tee "$WORK/bench.txt"
MEDIAN=$(grep -o 'median [0-9.]* ms' "$WORK/bench.txt" | head -1 || true)
echo "== VERDICT: PASS: ResNet-18 (${HW}x${HW}) imported from ONNX, compiled with Collage, output" \
  "matches NumPy; latency ${MEDIAN:-see above}"
