#version 450
// Integer ALU: shifts, bitfields, bit counts, division by constants and
// variables (64-bit products inside), conversions and selects.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint u[]; };
layout(set = 0, binding = 1) buffer S { int s[]; };
layout(set = 0, binding = 2) buffer F { float f[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = u[i], y = u[i + 64u];
  int a = s[i], b = s[i + 64u];
  uint r = (x << (y & 31u)) + (x >> 3u) + uint(a >> (b & 15)) + (x & y) + (x | 7u) + (x ^ y) + ~x;
  r += uint(bitCount(x)) + uint(findMSB(x)) + bitfieldReverse(y);
  r += x / 7u + x % 13u + x / y + uint(a / b) + uint(a % 5) + uint(a / 16);
  r += x * y + uint(a * b);
  r += x > y ? 3u : 9u;
  r += uint(f[i]) + uint(int(f[i + 64u]));
  f[i] = float(x) + float(a) + (a < b ? 1.5 : -2.0);
  u[i] = r + uint(max(a, b)) + min(x, y) + uint(abs(a));
}
