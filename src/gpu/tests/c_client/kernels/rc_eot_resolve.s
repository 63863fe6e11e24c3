ld_tile r0_r1_r2_r3, u8norm, 1, xyzw, 0, 1, 0
ld_tile r4_r5_r6_r7, u8norm, 1, xyzw, 0, 2, 0
ld_tile r8_r9_r10_r11, u8norm, 1, xyzw, 0, 4, 0
ld_tile r12_r13_r14_r15, u8norm, 1, xyzw, 0, 8, 0
wait 0
fadd32 r0, r0, r4
fadd32 r1, r1, r5
fadd32 r2, r2, r6
fadd32 r3, r3, r7
fadd32 r8, r8, r12
fadd32 r9, r9, r13
fadd32 r10, r10, r14
fadd32 r11, r11, r15
fadd32 r0, r0, r8
fadd32 r1, r1, r9
fadd32 r2, r2, r10
fadd32 r3, r3, r11
fmul32 r0, r0, 0.25
fmul32 r1, r1, 0.25
fmul32 r2, r2, 0.25
fmul32 r3, r3, 0.25
st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 1, 0
get_sr r20, sr2
mov_imm r19l, 0
image_write_block r19l, r20_r21, 0, ts0, tex_2d, rte, u8norm, 0, 9, 1
stop
