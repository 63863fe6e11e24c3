get_sr r1, sr80
get_sr r6, sr0
device_load 0, i32, x, r2, u2_u3, r1, unsigned
device_load 0, i32, x, r3, u4_u5, r6, unsigned
wait 0
iadd r2, r2, r3
device_store 0, i32, x, r2, u2_u3, r1, unsigned, 0
stop
