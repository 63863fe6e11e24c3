#version 450
// A local array indexed at run time lives on the thread's stack.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint idx[]; };
layout(set = 0, binding = 1) buffer O { vec4 o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  vec4 t[12];
  for (int k = 0; k < 12; ++k) t[k] = vec4(float(k) * 0.5, float(i), 1.0, -float(k));
  t[idx[i] % 12u] += vec4(2.0);
  uint w[9];
  for (int k = 0; k < 9; ++k) w[k] = idx[i + uint(k)];
  o[i] = t[idx[i + 1u] % 12u] + vec4(float(w[idx[i] % 9u]));
}
