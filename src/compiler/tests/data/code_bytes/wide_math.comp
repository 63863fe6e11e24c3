#version 450
#extension GL_ARB_gpu_shader_int64 : require
// The rest of the 64-bit lowering: signed division and remainders, double
// comparisons, conversions, rounding, GLSL's double built-ins. Every call
// site of the lowering emits in source order, so the code does not depend
// on the host compiler that built ours.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer B { int64_t q[]; };
layout(set = 0, binding = 1) buffer D { double d[]; };
layout(set = 0, binding = 2) buffer F { float f[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  int64_t a = q[i], b = q[i + 16u];
  q[i] = a / b + a % b + abs(a) + int64_t(d[i]) + (a < b ? 1l : 2l);
  double x = d[i], y = d[i + 16u];
  dvec3 u = dvec3(x, y, 1.0), v = dvec3(y, 2.0, x);
  double r = mix(x, y, 0.25) + smoothstep(0.0, y, x) + ceil(x) + round(y) + roundEven(x) + fract(y);
  r += min(x, y) + max(x, y) + sign(x) + clamp(x, -1.0, 1.0) + inversesqrt(abs(y)) + ldexp(x, 3);
  r += cross(u, v).x + reflect(u, v).y + refract(u, v, 0.5).z + faceforward(u, v, u).x;
  r += (x == y || isnan(x)) ? 1.0 : (x != y ? 2.0 : 3.0);
  int e;
  r += frexp(x, e) + double(e) + modf(y, r);
  d[i] = r + double(a);
  f[i] = float(x) + float(int64_t(y)) + atan(f[i]) + tanh(f[i]) + asinh(f[i]) + atanh(f[i]) + smoothstep(0.0, 1.0, f[i]);
}
