get_sr r1, sr80
device_load 0, i32, x, r2, u0_u1, r1, unsigned
wait 0
simd_prefix_iadd r3, r2
device_store 0, i32, x, r3, u0_u1, r1, unsigned, 0
stop
