#!/usr/bin/env bash
# `agx shader-test --report DIR` end to end: a vertex/fragment file whose
# probes fail and one that passes; the page must name both, place the
# failed probe's region on the picture, and the child's probe records and
# the windows must be where docs/shadertest.md says.
set -euo pipefail
agx=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/bad.shader_test" <<'TEST'
[require]
GLSL >= 1.30
[vertex shader passthrough]
[fragment shader]
#version 130
void main() { gl_FragColor = gl_FragCoord.x < 100.0 ? vec4(1, 0, 0, 1) : vec4(0, 0, 1, 1); }
[test]
draw rect -1 -1 2 2
probe rect rgb (50, 60, 100, 40) (1, 0, 0)
probe rgb 10 10 1 0 0
TEST
sed 's/^probe rect.*$//' "$dir/bad.shader_test" >"$dir/good.shader_test"
mkdir -p "$dir/out/probes" && touch "$dir/out/probes/stale.json"  # an earlier run's record: removed
status=0
"$agx" shader-test --root "$dir" "$dir/bad.shader_test" "$dir/good.shader_test" --report "$dir/out" \
  >"$dir/stdout" 2>"$dir/stderr" || status=$?
fail() { echo "$1"; cat "$dir/stdout" "$dir/stderr"; exit 1; }
[ "$status" = 1 ] || fail "exit code $status, expected 1 (a file failed)"
grep -q "report: $dir/out/index.html" "$dir/stderr" || fail "the page's path is not printed"
page="$dir/out/index.html"
grep -q "2 files: 1 passed, 1 failed" "$page" || fail "counts missing"
grep -q 'class="region" title="line 9" style="left:20.0000%;top:60.0000%;width:40.0000%;height:16.0000%"' "$page" ||
  fail "the region of line 9 is not marked"
grep -q 'background:rgba(0,0,255,1.000)' "$page" || fail "the observed colour is missing"
grep -q '<img src="png/bad.png"' "$page" || fail "the failed file's picture is missing"
[ -s "$dir/out/png/bad.png" ] && [ -s "$dir/out/png/good.png" ] || fail "windows missing"
[ -s "$dir/out/probes/bad.json" ] || fail "probe records missing"
[ ! -e "$dir/out/probes/good.json" ] || fail "a passing file has probe records"
[ ! -e "$dir/out/probes/stale.json" ] || fail "an earlier run's record was kept"
echo "ok"
