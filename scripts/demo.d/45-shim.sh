# demo: drm-shim: an unmodified libdrm client and stock tools see /dev/dri/renderD128
# The shim (build/libagx_shim.so) is loaded with LD_PRELOAD; the render node,
# its /sys entries and every ioctl are served by the in-process kmd.
set -euo pipefail
build=$(dirname "$AGX")
shim="$build/libagx_shim.so"
echo "\$ LD_PRELOAD=libagx_shim.so ls -l /dev/dri"
LD_PRELOAD="$shim" ls -l /dev/dri
echo "\$ LD_PRELOAD=libagx_shim.so ls -l /sys/dev/char/226:128/"
LD_PRELOAD="$shim" ls -l /sys/dev/char/226:128/
echo "\$ LD_PRELOAD=libagx_shim.so realpath /sys/dev/char/226:128/device"
LD_PRELOAD="$shim" realpath /sys/dev/char/226:128/device
echo "\$ LD_PRELOAD=libagx_shim.so cat /sys/dev/char/226:128/device/uevent"
LD_PRELOAD="$shim" cat /sys/dev/char/226:128/device/uevent
echo "\$ LD_PRELOAD=libagx_shim.so agx_shim_drm_client   (C11, libdrm + asahi_drm.h only)"
LD_PRELOAD="$shim" "$build/agx_shim_drm_client"
