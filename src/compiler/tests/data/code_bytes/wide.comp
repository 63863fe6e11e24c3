#version 450
#extension GL_ARB_gpu_shader_int64 : require
// 64-bit integers and doubles.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer B { uint64_t q[]; };
layout(set = 0, binding = 1) buffer D { double d[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint64_t a = q[i], b = q[i + 16u];
  q[i] = a * b + (a >> 7) - (b << 3) + (a ^ b) + (a > b ? a : b) + a / 3ul;
  double x = d[i], y = d[i + 16u];
  d[i] = x * y + x / y - sqrt(abs(x)) + floor(y) + fma(x, y, 1.0) + double(a);
}
