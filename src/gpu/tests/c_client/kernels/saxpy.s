get_sr r1, sr80
if_icmp r0l, ult, r1, u5, 1
device_load 0, i32, x, r2, u0_u1, r1, unsigned
device_load 0, i32, x, r3, u2_u3, r1, unsigned
wait 0
fmadd32 r3, r2, u4, r3
device_store 0, i32, x, r3, u2_u3, r1, unsigned, 0
pop_exec r0l, 1
stop
