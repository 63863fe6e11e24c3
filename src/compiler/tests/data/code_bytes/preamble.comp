#version 450
// Work on uniforms only moves to the preamble; uniform buffers too.
layout(local_size_x = 64) in;
layout(push_constant) uniform P { float scale; float bias; uint n; } pc;
layout(set = 0, binding = 0) uniform U { vec4 m[4]; } ub;
layout(set = 0, binding = 1) buffer B { vec4 o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  float k = pc.scale * pc.scale + pc.bias / 3.0;
  vec4 c = ub.m[pc.n & 3u] * k + ub.m[1];
  if (i < pc.n * 2u) o[i] = c * float(i) + vec4(k);
}
