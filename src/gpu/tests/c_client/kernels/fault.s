get_sr r1, sr80
mov_imm r2, 7, 0b0
device_store 0, i32, x, r2, u2_u3, r1, unsigned, 0
mov_imm r4, 3735879680, 0b0
mov_imm r5, 0, 0b0
device_store 0, i32, x, r2, r4_r5, r1, unsigned, 0
stop
