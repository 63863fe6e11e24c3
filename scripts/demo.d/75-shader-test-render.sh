# demo: piglit's vertex/fragment tests drawn through the runtime's render passes (GLSL lowered, compiled, prolog/epilog linked), their windows as PNGs on an HTML report
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
# window (piglit's 250x250 RGBA8, GL's bottom row last) becomes a PNG, and
# --report puts them on one HTML page with each file's verdict and time.
grep -v '^#' "$list" | awk 'NR % 8 == 1' | head -n 6 >"$out/files.list"
echo "\$ agx shader-test --root $piglit --list files.list --report $out"
"$AGX" shader-test --root "$piglit" --list "$out/files.list" --report "$out" 2>&1 | sed "s|$piglit/||"
echo
echo "The windows above are PNG files in $out/png (open them with any image viewer),"
echo "shown with each file's verdict and time on $out/index.html (open it in a browser):"
ls "$out/png" | grep "\\.png$"
