#!/usr/bin/env bash
# Fuzzes each libFuzzer harness (tests/fuzz) for a while, starting from its checked-in
# corpus and dictionary, and prints executions and coverage per harness. A crash, leak,
# hang or failed round trip stops that harness; the script then prints the command that
# reproduces it and exits 1. Builds BUILD_DIR with clang and -DTESSERA_FUZZ=ON if needed.
# Usage: scripts/fuzz.sh [SECONDS_PER_HARNESS [BUILD_DIR [HARNESS...]]]
#   (default: 600 s, build-fuzz, every harness: text json executable onnx)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-600}
BUILD_DIR=${2:-build-fuzz}
shift 2 2>/dev/null || shift $#
HARNESSES=("$@")

if [ -f "$BUILD_DIR/build.ninja" ]; then
  ninja -C "$BUILD_DIR" >/dev/null
else
  CC=clang CXX=clang++ scripts/setup.sh "$BUILD_DIR" -DTESSERA_FUZZ=ON -DTESSERA_PYTHON=OFF
fi
if [ ${#HARNESSES[@]} -eq 0 ]; then
  for h in text json executable onnx; do
    [ -x "$BUILD_DIR/tests/fuzz/fuzz_$h" ] && HARNESSES+=("$h")
  done
fi

export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
RESULTS="$BUILD_DIR/fuzz-results.txt"
: >"$RESULTS"
failed=0
for h in "${HARNESSES[@]}"; do
  bin="$PWD/$BUILD_DIR/tests/fuzz/fuzz_$h"
  work="$PWD/$BUILD_DIR/fuzz-work/$h"
  mkdir -p "$work/corpus" "$work/artifacts"
  log="$work/log.txt"
  echo "== fuzz_$h for ${SECONDS_EACH}s (log: $log)"
  # New inputs go to the first directory, the work corpus; the checked-in one is read only.
  # -timeout: an input taking over 10 s is a hang; -rss_limit_mb: one using 2 GiB is a bug.
  if "$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
      -dict="tests/fuzz/dict/$h.dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
      "$work/corpus" "tests/fuzz/corpus/$h" >"$log" 2>&1; then
    status=ok
  else
    status=FAILED
    failed=1
    artifact=$(grep -o "Test unit written to [^ ]*" "$log" | tail -1 | sed 's/Test unit written to //')
    grep -E "ERROR|\*\*\* fuzz harness|SUMMARY" "$log" | head -5 || true
    echo "reproduce: $bin ${artifact:-<see $log>}"
  fi
  runs=$(grep -o "stat::number_of_executed_units: *[0-9]*" "$log" | grep -o "[0-9]*$" || echo "?")
  cov=$( (grep -oE "^#[0-9]+[[:space:]]+[A-Z]+ +cov: [0-9]+ ft: [0-9]+" "$log" || true) | tail -1 |
        sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+)/\1 edges, \2 features/')
  echo "fuzz_$h: $status, ${runs} executions in ${SECONDS_EACH}s, coverage ${cov:-?}" | tee -a "$RESULTS"
done
exit $failed
