iadd r0, u0, 0
iadd r1, u1, 0
iadd r2, u2, 0
iadd r3, u3, 0
st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0
stop
