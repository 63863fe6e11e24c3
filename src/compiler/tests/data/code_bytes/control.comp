#version 450
// Nested loops with breaks and continues, a switch, long and short ifs
// (the long ones are jumped over when no lane runs them).
layout(local_size_x = 32) in;
layout(push_constant) uniform P { uint n; float k; } pc;
layout(set = 0, binding = 0) buffer B { uint a[]; };
layout(set = 0, binding = 1) buffer F { float f[]; };
void main() {
  uint i = gl_GlobalInvocationID.x, acc = 0u;
  for (uint j = 0u; j < pc.n; ++j) {
    if (a[j] == i) continue;
    for (uint k = j; k < 40u; k += 3u) {
      if (a[k] > 9u) break;
      acc += a[k] * k;
      if ((acc & 1u) == 1u) continue;
      acc ^= k;
    }
    if (acc > 1000u) break;
  }
  switch (acc % 4u) {
    case 0u: acc += 3u; break;
    case 1u: acc *= 5u; break;
    case 2u: acc = acc >> 2u; break;
    default: acc = ~acc;
  }
  float x = f[i];
  if (x < pc.k) {
    x = x * 3.0 + 1.0; x = sqrt(abs(x)); x = x / (1.0 + x); x = exp2(x) - log2(x + 2.0);
    x = floor(x) + ceil(-x) + fract(x); x = x * x - 0.5; x = sin(x) + cos(x);
  } else if (x > 2.0 * pc.k) {
    x = -x;
  } else {
    x = trunc(x) + roundEven(x) + inversesqrt(x + 1.0);
  }
  f[i] = x;
  a[i] = acc;
}
