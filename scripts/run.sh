#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and shows the
# project at work on a realistic case.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
agx=build/agx
for demo in scripts/demo.d/*.sh; do
  [ -f "$demo" ] || continue
  echo
  echo "### $(sed -n 's/^# demo: //p' "$demo")"
  AGX="$agx" bash "$demo"
done
