#!/usr/bin/env bash
# fuzz.sh BUILD_DIR SECONDS: runs every fuzz target for SECONDS each, from
# its seed corpus in fuzz/corpus/<target>/ if there is one. Fails on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
secs=$2
status=0
for f in "$dir"/fuzz/*_fuzz; do
  [ -x "$f" ] || continue
  name=$(basename "$f")
  work=$(mktemp -d)
  seeds=()
  [ -d "fuzz/corpus/$name" ] && seeds=("fuzz/corpus/$name")
  echo "-- $name (${secs}s)"
  if ! ASAN_OPTIONS=detect_leaks=1 "$f" -max_total_time="$secs" -rss_limit_mb=4096 \
      -artifact_prefix="$work/" "$work" "${seeds[@]}" >"$work/log" 2>&1; then
    echo "FUZZER FAILED: $name"; tail -40 "$work/log"; status=1
  else
    grep -E '^(#[0-9]+\s+DONE|Done)' "$work/log" | tail -1 || true
  fi
  rm -rf "$work"
done
exit $status
