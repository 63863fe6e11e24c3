get_sr r4, sr2
mov_imm r3l, 0
image_write_block r3l, r4l_r4h_r5l_r5h_r6l, 0, ts0, tex_2d_array, rte, u8norm, 0, 9, 1
stop
