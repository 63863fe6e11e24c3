#version 430
// OpenGL: loose uniforms, a bool uniform, shared 16-bit-free scratch and an
// array of samplers picked at run time.
layout(local_size_x = 16) in;
uniform float k;
uniform bool flip;
uniform int n;
layout(binding = 0) uniform sampler2D texs[3];
layout(std430, binding = 0) buffer B { vec4 o[]; };
shared float sh[16];
void main() {
  uint l = gl_LocalInvocationIndex;
  sh[l] = float(l) * k;
  barrier();
  float v = sh[(l + 1u) & 15u];
  vec4 t = texelFetch(texs[n], ivec2(l, 1), 0);
  o[gl_GlobalInvocationID.x] = flip ? t * v : t + v;
}
