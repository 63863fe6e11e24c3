#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and shows the
# project at work on a realistic case.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Only what the tour runs (the tool, the shim and the three C clients): the
# tests and benchmarks are built by scripts/test.sh.
SECONDS=0
AGX_TARGETS="agx agx_shim agx_shim_drm_client agx_compute_client agx_render_client" scripts/build.sh build
echo "build: $((SECONDS / 60)) min $((SECONDS % 60)) s"
agx=build/agx
for demo in scripts/demo.d/*.sh; do
  [ -f "$demo" ] || continue
  echo
  echo "### $(sed -n 's/^# demo: //p' "$demo")"
  AGX="$agx" bash "$demo"
done
