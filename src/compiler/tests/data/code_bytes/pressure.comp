#version 450
// Enough values live at once to spill registers to the stack.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { vec4 v[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  vec4 r[40];
  for (int k = 0; k < 40; ++k) r[k] = v[i * 40u + uint(k)];
  vec4 s = vec4(0.0);
  for (int k = 0; k < 40; ++k) s += r[k] * r[39 - k] + r[(k * 7) % 40];
  for (int k = 0; k < 40; ++k) v[i * 40u + uint(k)] = r[k] * s.x + r[(k + 1) % 40] * s.y;
}
