iadd r7, r5, r5
iadd r7, r7, r7
device_load 0, i32, x, r8, u0_u1, r7, unsigned
iadd r7, r7, 1
device_load 0, i32, x, r9, u0_u1, r7, unsigned
iadd r7, r7, 1
device_load 0, i32, x, r10, u0_u1, r7, unsigned
iadd r7, r7, 1
device_load 0, i32, x, r11, u0_u1, r7, unsigned
iadd r12, r6, r6
device_load 0, i32, x, r13, u2_u3, r12, unsigned
iadd r12, r12, 1
device_load 0, i32, x, r14, u2_u3, r12, unsigned
wait 0
fadd32 r8, r8, r13
fadd32 r9, r9, r14
st_var 1, r8, 0
st_var 1, r9, 1
st_var 1, r10, 2
st_var 1, r11, 3
and r15, r6, u4
st_var_final 1, r15, 4
stop
