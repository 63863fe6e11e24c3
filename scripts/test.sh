#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every
# test; then builds with clang + AddressSanitizer + UndefinedBehaviorSanitizer,
# runs every test again under them, and runs each fuzzer for a bounded time.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)

echo "== build (g++, RelWithDebInfo)"
scripts/build.sh build
echo "== tests"
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== build (clang-14, ASan + UBSan, fuzzers)"
CC=clang-14 CXX=clang++-14 cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DAGX_SANITIZE=ON -DAGX_FUZZ=ON -DAGX_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs"
echo "== tests under ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

echo "== fuzzers"
scripts/fuzz.sh build-asan "${AGX_FUZZ_SECONDS:-20}"
