# demo: AGX image layouts: a 1920x1080 RGBA8 texture with its full mip chain, then tile/detile
set -euo pipefail
echo "\$ agx layout --format R8G8B8A8_UNORM --size 1920x1080 --levels 11"
"$AGX" layout --format R8G8B8A8_UNORM --size 1920x1080 --levels 11
echo
echo "\$ agx layout --format R8G8B8A8_UNORM --size 1920x1080 --levels 11 --json   (first lines)"
"$AGX" layout --format R8G8B8A8_UNORM --size 1920x1080 --levels 11 --json | head -24
echo "  ..."
echo
echo "\$ agx layout --batch -   (a CSV of layouts a driver developer wants checked)"
printf '%s\n' "format,width,height,depth,levels,samples,tiling" \
  "R8G8B8A8_UNORM,1024,1024,1,11,1,gpu" \
  "Z32_FLOAT,64,64,1,7,1,gpu_compressed" \
  "R16G16B16A16_FLOAT,1920,1080,1,1,4,gpu_compressed" \
  "ETC2_RGB8,1000,600,6,10,1,gpu" \
  "R8G8B8A8_UNORM,64,64,1,7,1,linear" | "$AGX" layout --batch -
echo
echo "\$ agx tile --format R8G8B8A8_UNORM --size 1920x1080"
"$AGX" tile --format R8G8B8A8_UNORM --size 1920x1080
