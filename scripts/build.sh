#!/usr/bin/env bash
# build.sh [DIR] [cmake options...]: configures and builds with g++ and Ninja
# (through ccache when it is installed). AGX_TARGETS="t1 t2" builds only
# those targets (and what they need) instead of everything.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Paths below the checkout are hashed relative to it, so two clones share
  # the cache; precompiled headers are cacheable with these sloppiness flags.
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
fi
# RelWithDebInfo at -g1 (line tables and function names: backtraces,
# profilers and sanitizer reports still name file and line). Full -g costs
# about a quarter more compile time on this code (measured on the agx
# tool's files); pass -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g -DNDEBUG"
# (options given to this script come last and win) to debug with
# variables.
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
  "${launcher[@]}" "$@" >/dev/null
targets=()
for t in ${AGX_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$dir" -j"$(nproc)" "${targets[@]}"
