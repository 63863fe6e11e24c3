get_sr r1, sr80
device_load 0, i32, x, r2, u0_u1, r1, unsigned
wait 0
simd_iadd r3, r2
get_sr r4, sr52
get_sr r5, sr53
if_icmp r0l, ueq, r4, 0, 1
threadgroup_store i32, x, r3, 0, r5l
pop_exec r0l, 1
threadgroup_barrier
get_sr r6, sr51
if_icmp r0l, ueq, r6, 0, 1
threadgroup_load i32, x, r8, 0, 0
threadgroup_load i32, x, r9, 0, 1
wait 0
iadd r8, r8, r9
get_sr r10, sr0
device_store 0, i32, x, r8, u2_u3, r10, unsigned, 0
pop_exec r0l, 1
stop
