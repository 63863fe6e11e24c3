#version 450
layout(local_size_x = 32) in;
layout(push_constant) uniform P { float alpha; uint n; } pc;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < pc.n) y[i] = pc.alpha * x[i] + y[i];
}
