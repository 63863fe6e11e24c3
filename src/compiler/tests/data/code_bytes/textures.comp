#version 450
// Texture loads and samples: every dimension, explicit LOD, gradients,
// offsets, depth compare and gathers.
layout(local_size_x = 8, local_size_y = 4) in;
layout(set = 0, binding = 0) uniform sampler1D t1;
layout(set = 0, binding = 1) uniform sampler2D t2;
layout(set = 0, binding = 2) uniform sampler2DArray t2a;
layout(set = 0, binding = 3) uniform sampler3D t3;
layout(set = 0, binding = 4) uniform samplerCube tc;
layout(set = 0, binding = 5) uniform sampler2DShadow ts;
layout(set = 0, binding = 6) uniform sampler1DArray t1a;
layout(set = 0, binding = 7) uniform samplerCubeArray tca;
layout(set = 1, binding = 0) buffer O { vec4 o[]; };
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  vec2 uv = vec2(p) / 16.0;
  uint i = gl_GlobalInvocationID.y * 8u + gl_GlobalInvocationID.x;
  vec4 a = texelFetch(t1, p.x, 0) + texelFetch(t2, p, 1) + texelFetch(t2a, ivec3(p, 2), 0);
  a += texelFetch(t3, ivec3(p, 1), 0) + texelFetch(t1a, p, 0);
  vec4 b = textureLod(t2, uv, 1.5) + textureGrad(t2, uv, vec2(0.1, 0.0), vec2(0.0, 0.2));
  b += textureLodOffset(t2, uv, 0.0, ivec2(1, -1)) + textureLod(tc, vec3(uv, 1.0), 0.0);
  b += textureLod(tca, vec4(uv, 1.0, 2.0), 0.0) + textureLod(t2a, vec3(uv, 1.0), 2.0);
  b += textureGather(t2, uv, 1) + textureGather(t2, uv, 3) + textureGather(t2, uv);
  float c = texture(ts, vec3(uv, 0.5));
  o[i] = a + b + vec4(c);
}
