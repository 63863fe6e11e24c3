#!/usr/bin/env bash
# Installs every Debian 12 package the project needs to build and test
# (nothing from anywhere else). Safe to run again: installs only what is missing.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git ccache
  clang-14 libclang-rt-14-dev lld
  libgtest-dev libgmock-dev libbenchmark-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev
  libdrm-dev libpng-dev zlib1g-dev
  glslang-dev spirv-tools spirv-headers
  piglit
  libastcenc-dev libsquish-dev
  libvulkan-dev mesa-vulkan-drivers glslang-tools android-libetc1-dev
  python3
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" != 0 ] && sudo_cmd="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
