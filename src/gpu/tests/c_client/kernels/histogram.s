get_sr r1, sr80
if_icmp r0l, ult, r1, u4, 1
device_load 0, i32, x, r2, u0_u1, r1, unsigned
wait 0
and r3, r2, 15
mov_imm r4, 1, 0b0
atomic add, 0, None, u2_u3, r3, unsigned, r4, 1, 0, 0, 0, 0
pop_exec r0l, 1
stop
