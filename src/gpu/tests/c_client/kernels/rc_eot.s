get_sr r4, sr2
mov_imm r3l, 0
image_write_block r3l, r4_r5, 0, ts0, tex_2d, rte, u8norm, 0, 9, 1
stop
