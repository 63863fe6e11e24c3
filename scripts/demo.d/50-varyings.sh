# demo: Varyings: vertex outputs, slots and coefficient-register bindings of a shader interface
# A textured, vertex-coloured, flat-ID'd mesh with a 16-bit normal, point
# size and two clip planes, read by a fragment shader that also reads Z.
set -euo pipefail
"$AGX" varyings - <<'JSON'
{"varyings": [
   {"name": "uv",     "components": 2, "bits": 32, "interp": "smooth"},
   {"name": "normal", "components": 3, "bits": 16, "interp": "smooth"},
   {"name": "color",  "components": 4, "bits": 32, "interp": "linear"},
   {"name": "id",     "components": 1, "bits": 32, "interp": "flat"}],
 "point_size": true, "layer_viewport": false, "clip_distances": 2, "fragcoord_z": true}
JSON
