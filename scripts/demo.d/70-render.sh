# demo: rendering on the software GPU: a C11 libdrm client draws through SUBMIT (VDM, PPP, tiles, fragment shaders, PBE); its capture replayed to PNG
set -euo pipefail
build=$(dirname "$AGX")
out="$build/demo-render"
rm -rf "$out"
mkdir -p "$out"
# Every render command of the client (clears, triangles, depth, stencil,
# topologies, instancing, MSAA, scissor, queries, layers) is captured.
echo "\$ AGX_TRACE=render.agxtrace LD_PRELOAD=libagx_shim.so agx_render_client"
AGX_TRACE="$out/render.agxtrace" LD_PRELOAD="$build/libagx_shim.so" "$build/agx_render_client" | tail -n 8
echo
echo "\$ agx render-replay render.agxtrace --png $out --submit 2"
"$AGX" render-replay "$out/render.agxtrace" --png "$out" --submit 2
echo
echo "The render targets above are PNG files in $out (open them with any image viewer)."
echo
echo "\$ agx bench render"
"$AGX" bench render
