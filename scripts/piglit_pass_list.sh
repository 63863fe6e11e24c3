#!/usr/bin/env bash
# piglit_pass_list.sh [BUILD]: runs every compute .shader_test of Debian's
# piglit package on the software AGX and rewrites
# src/shadertest/tests/data/piglit_compute_pass.list with the files that pass
# (the list scripts/test.sh requires to keep passing).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
root=/usr/lib/x86_64-linux-gnu/piglit
all=$(mktemp)
trap 'rm -f "$all"' EXIT
(cd "$root" && grep -rl '^\[compute shader' tests generated_tests | sort) >"$all"
out=src/shadertest/tests/data/piglit_compute_pass.list
{
  echo "# piglit compute tests that the software AGX passes today (of the"
  echo "# $(wc -l <"$all") compute files of Debian 12's package piglit, paths under"
  echo "# $root). scripts/test.sh requires every one to"
  echo "# PASS: a file that stops passing is a regression. Made by"
  echo "# scripts/piglit_pass_list.sh."
  "$build/agx" shader-test --list "$all" --root "$root" -j"$(nproc)" --json |
    python3 -c 'import json,sys
root=sys.argv[1].rstrip("/")+"/"
for l in sys.stdin:
    if l.startswith("{"):
        o=json.loads(l)
        if o["result"]=="pass": print(o["file"].replace(root,"",1))' "$root" | sort
} >"$out.new" || true
mv "$out.new" "$out"
echo "$(grep -vc '^#' "$out") files pass; written to $out"
