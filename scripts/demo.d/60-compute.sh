# demo: compute end to end: GLSL compiled, dispatched through the Asahi UAPI on the software GPU, checked; then piglit's compute tests
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(dirname "$AGX")
echo "\$ agx compile saxpy.comp --target opengl --disasm --stats"
"$AGX" compile "$here/compute/saxpy.comp" --target opengl --disasm --stats
echo
# The runner compiles the shader, lays out the buffers and uniforms by the
# compiler's ABI, packs USC words and a CDM stream, submits them through
# SUBMIT with syncobjs, and probes the results.
echo "\$ agx shader-test saxpy.shader_test"
"$AGX" shader-test "$here/compute/saxpy.shader_test"
echo
echo "\$ LD_PRELOAD=libagx_shim.so agx_compute_client   # a C11 libdrm driver-style client"
LD_PRELOAD="$build/libagx_shim.so" "$build/agx_compute_client" | tail -n 12
echo
piglit=/usr/lib/x86_64-linux-gnu/piglit
if [ -d "$piglit" ]; then
  echo "\$ agx shader-test --root $piglit --list piglit_compute.list -j 2"
  # A report: the verdicts of a fixed sample, passes and failures alike
  # (the test command gates on the files that must pass).
  "$AGX" shader-test --root "$piglit" --list "$here/../../src/shadertest/tests/data/piglit_compute.list" -j 2 \
    | sed "s|$piglit/||" || true
fi
echo
echo "\$ agx bench compute"
"$AGX" bench compute
