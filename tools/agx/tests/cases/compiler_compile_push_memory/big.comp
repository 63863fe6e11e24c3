#version 450
layout(local_size_x = 32) in;
layout(location = 0) uniform vec4 big[70];
layout(std430, binding = 0) buffer O { vec4 o[]; };
void main() {
  uint t = gl_LocalInvocationIndex;
  o[t] = big[t] + big[69];
}
