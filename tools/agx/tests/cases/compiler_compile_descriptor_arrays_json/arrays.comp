#version 450
#extension GL_EXT_nonuniform_qualifier : require
// Descriptor arrays and a separate sampler: one ABI entry per element.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer In { uint v[]; } b[2];
layout(set = 0, binding = 1) uniform texture2D t[2];
layout(set = 0, binding = 2) uniform sampler smp;
layout(set = 0, binding = 3, rgba8) uniform image2D im[2];
layout(set = 0, binding = 4) buffer Out { vec4 o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  vec4 c = texture(sampler2D(t[nonuniformEXT(i & 1u)], smp), vec2(0.5));
  o[i] = c + imageLoad(im[1], ivec2(i, 0)) + float(b[nonuniformEXT(i >> 1)].v[i]);
}
