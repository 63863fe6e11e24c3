get_sr r1, sr80
device_load 0, i32, x, r2, u0_u1, r1, unsigned
wait 0
simd_prefix_iadd r3, r2
iadd r3, r3, r2
device_store 0, i32, x, r3, u2_u3, r1, unsigned, 0
simd_iadd r4, r2
get_sr r5, sr52
if_icmp r0l, ueq, r5, 0, 1
get_sr r6, sr0
device_store 0, i32, x, r4, u4_u5, r6, unsigned, 0
pop_exec r0l, 1
stop
