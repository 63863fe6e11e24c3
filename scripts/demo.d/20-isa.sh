# demo: The AGX instruction set: assemble a small compute kernel, disassemble it like applegpu, decode hex lines
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kernel='get_sr r0, sr80
mov_imm r1, 4, 0b0
imadd r2_r3, r0, r1, 0
device_load 0, i32, x, r4, u0_u1, r2, unsigned
wait 0
fmadd32 r4, r4, 2.0, 0.5
fadd32.sat r5, r4.abs, 1.0
device_store 0, i32, x, r4, u2_u3, r2, unsigned, 0
jmp_exec_none pc+8
push_exec r0l, 1
stop'
echo "\$ agx asm --file kernel.s -o kernel.bin"
printf '%s\n' "$kernel" > "$tmp/kernel.s"
"$AGX" asm --file "$tmp/kernel.s" -o "$tmp/kernel.bin"
echo
echo "\$ agx disasm kernel.bin      (applegpu's disassemble.py format)"
"$AGX" disasm "$tmp/kernel.bin"
echo
echo "\$ agx disasm --lines   (one instruction per hex line; errors do not stop it)"
printf '%s\n' 0501040d00c43200 be890a042c00 ce07c130c9020000 ffff 0e054202 7e0142064000 |
  "$AGX" disasm --lines
