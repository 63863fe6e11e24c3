# demo: piglit's vertex/fragment tests drawn through the runtime's render passes (GLSL lowered, compiled, prolog/epilog linked), their windows as PNGs
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(dirname "$AGX")
out="$build/demo-shader-test-render"
piglit=/usr/lib/x86_64-linux-gnu/piglit
list="$here/../../src/shadertest/tests/data/piglit_render_pass.list"
if [ ! -d "$piglit" ]; then
  echo "piglit is not installed ($piglit): nothing to draw"
  exit 0
fi
rm -rf "$out"
mkdir -p "$out"
# A few files of the gate list (every one passes): each file's final
# window (piglit's 250x250 RGBA8, GL's bottom row last) becomes a PNG.
grep -v '^#' "$list" | awk 'NR % 8 == 1' | head -n 6 >"$out/files.list"
echo "\$ agx shader-test --root $piglit --list files.list --png $out"
"$AGX" shader-test --root "$piglit" --list "$out/files.list" --png "$out" | sed "s|$piglit/||"
echo
echo "The windows above are PNG files in $out (open them with any image viewer):"
ls "$out" | grep "\\.png$"
