# demo: USC emulator: AGX machine code on a 32-lane SIMD group
# A divergent if (lanes 0-1 take it), a float multiply-add, traced, then the
# same instructions one at a time through the --batch JSON-lines interface.
set -euo pipefail
: "${AGX:=build/agx}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "get_sr r4 = lane; if_icmp r4 < 2; mov_imm r6, 7; pop_exec; stop:"
"$AGX" emu --hex 72113400522848220000621907000000520e000000008800 --trace | grep -E '^0x|exec:|r6:'
lanes() { python3 -c "import sys; print([int(sys.argv[1])]*32)" "$1"; }
cat >"$tmp/cases.jsonl" <<JSON
{"hex": "2a8940222400", "before": {"exec": 3, "r": {"r0": $(lanes 1069547520), "r1": $(lanes 1074790400)}}}
{"hex": "6f0940164000", "before": {"r": {"r0": $(python3 -c 'print(list(range(100,132)))')}}}
{"hex": "3100000000000000"}
JSON
echo
echo "fadd32 r2, r0, r1 (1.5 + 2.25 in lanes 0-1), simd_shuffle_xor r2, r0, 1, texture_sample without a texture unit:"
"$AGX" emu --batch "$tmp/cases.jsonl" | python3 -c '
import json, struct, sys
for line in sys.stdin:
    j = json.loads(line)
    if "error" in j:
        print("  error:", j["error"])
        continue
    r2 = j["after"]["r"]["r2"][:4]
    floats = [struct.unpack("<f", struct.pack("<I", v))[0] for v in r2]
    print("  r2 lanes 0-3:", r2, "as f32:", floats)
'
echo
"$AGX" bench usc
