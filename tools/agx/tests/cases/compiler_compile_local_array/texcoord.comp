#version 450
layout(local_size_x = 4) in;
layout(binding = 0) buffer O { vec4 o[]; };
vec2 texcoord[4] = { vec2(0, 0), vec2(1, 0), vec2(0, 1), vec2(1, 1) };
void main() {
  o[gl_LocalInvocationIndex] = vec4(texcoord[gl_LocalInvocationIndex], 0, 1);
}
