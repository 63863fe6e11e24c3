#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every
# test; then builds with clang + AddressSanitizer + UndefinedBehaviorSanitizer,
# runs every test again under them, and runs each fuzzer for a bounded time.
# After the g++ tests it runs the piglit compute tests, then the piglit
# vertex/fragment (render) tests, that must pass.
# Ends with one line "tests: N passed, M failed" over all of it.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# step NAME: a section header with the minutes:seconds since the start, so a
# CI log shows where the time goes; the sections and their durations are
# listed again at the end.
sections=()
section_start=$SECONDS
section_name="setup (apt-get)"
step() {
  sections+=("$(printf '%3d:%02d  %s' $(((SECONDS - section_start) / 60)) $(((SECONDS - section_start) % 60)) "$section_name")")
  section_name=$1
  section_start=$SECONDS
  printf '== %s [%d:%02d]\n' "$1" $((SECONDS / 60)) $((SECONDS % 60))
}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
scripts/setup.sh

# ctest_counts LOG: "passed failed" from ctest's summary line.
# A run with no summary line counts as one failure.
ctest_counts() {
  local line failed total
  line=$(sed -n 's/.*tests passed, \([0-9]*\) tests\{0,1\} failed out of \([0-9]*\).*/\1 \2/p' "$1" | tail -1)
  if [ -z "$line" ]; then echo "0 1"; return; fi
  read -r failed total <<<"$line"
  echo "$((total - failed)) $failed"
}

step "build (g++, RelWithDebInfo -O2 -g1)"
scripts/build.sh build -DAGX_WERROR=ON
step "tests"
status=0
ctest --test-dir build --output-on-failure -j"$jobs" | tee "$log/gcc" || status=1

step "piglit compute tests that must pass (src/shadertest/tests/data/piglit_compute_pass.list)"
build/agx shader-test --root /usr/lib/x86_64-linux-gnu/piglit \
  --list src/shadertest/tests/data/piglit_compute_pass.list -j"$jobs" | tee "$log/piglit" || status=1

step "piglit render tests that must pass (src/shadertest/tests/data/piglit_render_pass.list)"
build/agx shader-test --root /usr/lib/x86_64-linux-gnu/piglit \
  --list src/shadertest/tests/data/piglit_render_pass.list -j"$jobs" | tee "$log/piglit_render" || status=1

step "build (clang-14, ASan + UBSan, fuzzers)"
# -O1 with line tables only, the sanitizers' usual build: tests run faster
# than at -O0 and reports still name file and line; asserts stay on. The
# test files' own code is compiled at -O0 (AGX_TESTS_OPT): the code under
# test keeps -O1.
CC=clang-14 CXX=clang++-14 scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug \
  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only" "-DCMAKE_C_FLAGS_DEBUG=-O1 -gline-tables-only" \
  -DAGX_SANITIZE=ON -DAGX_FUZZ=ON -DAGX_BENCH=OFF -DAGX_WERROR=ON -DAGX_TESTS_OPT=-O0
step "tests under ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" | tee "$log/asan" || status=1

step "fuzzers"
scripts/fuzz.sh build-asan "${AGX_FUZZ_BUDGET:-60}" | tee "$log/fuzz" || status=1
fuzz_total=$(grep -c '^-- ' "$log/fuzz" || true)
fuzz_failed=$(grep -c '^FUZZER FAILED' "$log/fuzz" || true)

# piglit_counts LOG: "passed failed" from agx shader-test's closing line
# (skips count as failures: every listed file must pass).
piglit_counts() {
  local line
  line=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$1" | tail -1)
  if [ -z "$line" ]; then echo "0 1"; return; fi
  read -r p f k <<<"$line"
  echo "$p $((f + k))"
}

read -r gp gf < <(ctest_counts "$log/gcc")
read -r pp pf < <(piglit_counts "$log/piglit")
read -r rp rf < <(piglit_counts "$log/piglit_render")
read -r ap af < <(ctest_counts "$log/asan")
passed=$((gp + pp + rp + ap + fuzz_total - fuzz_failed))
failed=$((gf + pf + rf + af + fuzz_failed))
step "done"
echo
echo "section times (minutes:seconds):"
printf '  %s\n' "${sections[@]}"
printf '  %3d:%02d  total\n' $((SECONDS / 60)) $((SECONDS % 60))
echo
echo "g++: $gp passed, $gf failed; piglit compute: $pp passed, $pf failed; piglit render: $rp passed, $rf failed; ASan+UBSan: $ap passed, $af failed; fuzzers: $fuzz_total run"
echo "tests: $passed passed, $failed failed"
exit $status
