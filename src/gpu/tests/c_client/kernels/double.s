get_sr r1, sr80
device_load 0, i32, x, r2, u0_u1, r1, unsigned
wait 0
iadd r2, r2, r2
device_store 0, i32, x, r2, u2_u3, r1, unsigned, 0
stop
