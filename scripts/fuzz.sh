#!/usr/bin/env bash
# fuzz.sh BUILD_DIR BUDGET [JOBS]: runs every fuzz target from its seed corpus
# in fuzz/corpus/<target>/ if there is one, JOBS targets at a time (default:
# the number of cores; each libFuzzer run is one thread). BUDGET is the wall
# time in seconds for the whole run, shared evenly: each target gets
# BUDGET * JOBS / TARGETS seconds, at least 5. Prints one "-- target" block
# per target, in name order. Fails on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
budget=$2
jobs=${3:-$(nproc)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run_one TARGET: fuzzes TARGET; its report goes to $out/<name>.report.
run_one() {
  local f=$1 name work seeds=()
  name=$(basename "$f")
  work=$(mktemp -d)
  [ -d "fuzz/corpus/$name" ] && seeds=("fuzz/corpus/$name")
  {
    echo "-- $name (${secs}s)"
    if ! ASAN_OPTIONS=detect_leaks=1 "$f" -max_total_time="$secs" -rss_limit_mb=4096 \
        -artifact_prefix="$work/" "$work" "${seeds[@]}" >"$work/log" 2>&1; then
      echo "FUZZER FAILED: $name"; tail -40 "$work/log"
      # The input that failed, so the run can be repeated from this log:
      # base64 -d > input; TARGET input.
      for input in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
        [ -f "$input" ] || continue
        echo "failing input $(basename "$input") ($(stat -c %s "$input") bytes, base64):"
        { base64 -w 0 "$input" | head -c 65536 || true; }; echo
      done
    else
      grep -E '^(#[0-9]+\s+DONE|Done)' "$work/log" | tail -1 || true
    fi
  } >"$out/$name.report"
  rm -rf "$work"
}

targets=()
for f in "$dir"/fuzz/*_fuzz; do
  [ -x "$f" ] && targets+=("$f")
done
if [ "${#targets[@]}" -eq 0 ]; then
  echo "FUZZER FAILED: no fuzz targets in $dir/fuzz (build with -DAGX_FUZZ=ON)"; exit 1
fi
secs=$((budget * jobs / ${#targets[@]}))
[ "$secs" -lt 5 ] && secs=5
echo "fuzz: ${#targets[@]} targets, ${secs}s each, $jobs at a time (budget ${budget}s)"
running=0
for f in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  run_one "$f" &
  running=$((running + 1))
done
wait

status=0
for f in "${targets[@]}"; do
  report="$out/$(basename "$f").report"
  if [ ! -f "$report" ]; then
    echo "-- $(basename "$f")"; echo "FUZZER FAILED: $(basename "$f") (no report)"; status=1
    continue
  fi
  cat "$report"
  grep -q '^FUZZER FAILED' "$report" && status=1
done
exit $status
