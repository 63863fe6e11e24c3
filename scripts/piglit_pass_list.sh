#!/usr/bin/env bash
# piglit_pass_list.sh [BUILD] [compute|render]: runs piglit .shader_test files
# of Debian's piglit package on the software AGX and rewrites a list of the
# files that pass (the lists scripts/test.sh requires to keep passing).
#   compute (default): every compute file; all that pass go to
#     src/shadertest/tests/data/piglit_compute_pass.list.
#   render: a deterministic sample of the vertex/fragment files (every 52nd
#     of tests/ and generated_tests/ in name order, no geometry, tessellation
#     or compute section; minutes at -j2 on a shared 2-core machine), whose
#     verdicts go to BUILD/piglit_render_sample.json; of those that pass, a subset that
#     runs in about 30 seconds at -j2 (60 s of child time), taken
#     round-robin over piglit's spec directories, cheapest first, so every
#     directory with a passing file is covered: piglit_render_pass.list.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mode=${2:-compute}
root=/usr/lib/x86_64-linux-gnu/piglit
all=$(mktemp)
trap 'rm -f "$all"' EXIT
case "$mode" in
  compute)
    (cd "$root" && grep -rl '^\[compute shader' tests generated_tests | sort) >"$all"
    out=src/shadertest/tests/data/piglit_compute_pass.list
    what="compute files"
    jobs=$(nproc)
    timeout=60
    budget_ms=0 ;;
  render)
    (cd "$root" && find tests generated_tests -name '*.shader_test' | LC_ALL=C sort |
      xargs grep -L '^\[\(compute\|geometry\|tessellation\)' | xargs grep -l '^\[\(vertex\|fragment\) shader' |
      awk 'NR % 52 == 1') >"$all" || true  # grep -L / -l exit 1 on a batch without a match
    out=src/shadertest/tests/data/piglit_render_pass.list
    what="vertex/fragment files (a sample: every 52nd in name order)"
    jobs=2
    timeout=30
    budget_ms=60000 ;;
  *) echo "piglit_pass_list.sh: unknown mode '$mode' (compute or render)" >&2; exit 1 ;;
esac
if [ ! -s "$all" ]; then echo "piglit_pass_list.sh: no $mode files under $root" >&2; exit 1; fi
{
  echo "# piglit $mode tests that the software AGX passes today (of the"
  echo "# $(wc -l <"$all") $what of Debian 12's package piglit, paths under"
  echo "# $root). scripts/test.sh requires every one to"
  echo "# PASS: a file that stops passing is a regression. Made by"
  echo "# scripts/piglit_pass_list.sh $mode."
  "$build/agx" shader-test --list "$all" --root "$root" -j"$jobs" --timeout "$timeout" --json |
    tee "$build/piglit_${mode}_sample.json" |
    python3 -c 'import json,sys,collections
root=sys.argv[1].rstrip("/")+"/"
budget=int(sys.argv[2])
passed=[]
for l in sys.stdin:
    if l.startswith("{"):
        o=json.loads(l)
        if o["result"]=="pass": passed.append((o["file"].replace(root,"",1), o["ms"]))
if budget:
    by_dir=collections.defaultdict(list)
    for f,ms in sorted(passed, key=lambda p: (p[1], p[0])):
        by_dir["/".join(f.split("/")[:3])].append((f,ms))
    chosen, used = [], 0.0
    while any(by_dir.values()):
        for d in sorted(by_dir):
            if by_dir[d]:
                f,ms = by_dir[d].pop(0)
                if used + ms <= budget: chosen.append(f); used += ms
    passed = [(f,0) for f in chosen]
for f in sorted(p[0] for p in passed): print(f)' "$root" "$budget_ms"
} >"$out.new" || true
mv "$out.new" "$out"
echo "$(grep -vc '^#' "$out") files pass; written to $out"
