#!/usr/bin/env bash
# The main job: set up, make the MNIST CNN of the Collage design doc (weights from a fixed
# seed), run it with the reference interpreter, then compile it for this CPU (native) and
# run the compiled executable, checking both against NumPy and printing the times.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
scripts/setup.sh "$BUILD_DIR" >/dev/null
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
/usr/bin/python3 examples/mnist/make_mnist.py "$WORK"
echo "== model ($WORK/mnist.txt, weights as parameters):"
head -n 20 "$WORK/mnist.txt"
echo "== running with the reference interpreter"
args=()
for f in "$WORK"/inputs/*.npy; do args+=(--input "$(basename "$f" .npy)=$f"); done
start=$(date +%s.%N)
"$BUILD_DIR/tessera" run "$WORK/mnist.txt" "${args[@]}" --output "$WORK/out.npy"
end=$(date +%s.%N)
/usr/bin/python3 examples/mnist/make_mnist.py "$WORK" --check "$WORK/out.npy"
printf 'interpreter run time (incl. start-up): %.3f s\n' "$(/usr/bin/python3 -c "print($end-$start)")"

echo "== compiling for this CPU (target native) and running the executable"
"$BUILD_DIR/tessera" compile "$WORK/mnist.txt" -o "$WORK/mnist.tsx" --target native
"$BUILD_DIR/tessera" run "$WORK/mnist.tsx" "${args[@]}" --output "$WORK/out_native.npy" --time
/usr/bin/python3 examples/mnist/make_mnist.py "$WORK" --check "$WORK/out_native.npy"
