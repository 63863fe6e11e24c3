#version 450
// Buffer and threadgroup atomics, every operation.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint u[]; };
layout(set = 0, binding = 1) buffer S { int s[]; };
shared uint su[64];
shared int ss[64];
void main() {
  uint l = gl_LocalInvocationIndex;
  su[l] = l; ss[l] = -int(l);
  barrier();
  uint r = atomicAdd(su[(l + 1u) & 63u], 2u) + atomicMin(su[l], 5u) + atomicMax(su[3], l) +
           atomicAnd(su[l ^ 1u], 0xF0u) + atomicOr(su[4], l) + atomicXor(su[5], l) +
           atomicExchange(su[6], l) + atomicCompSwap(su[7], l, 1u);
  int q = atomicMin(ss[l], -3) + atomicMax(ss[2], int(l));
  atomicAdd(u[l], r);
  atomicMin(u[l + 64u], r);
  atomicMax(u[2], l);
  atomicAnd(u[3], r);
  atomicOr(u[4], r);
  atomicXor(u[5], r);
  u[6 + l] = atomicExchange(u[7], r) + atomicCompSwap(u[8], r, l);
  atomicMin(s[l], q);
  atomicMax(s[1], q);
  memoryBarrierShared();
  barrier();
  u[l + 128u] = su[l] + uint(ss[l]);
}
