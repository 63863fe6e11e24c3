#version 450
// Image stores, loads and atomics on several dimensions.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0, rgba8) uniform writeonly image2D img2;
layout(set = 0, binding = 1, rgba32f) uniform image2DArray img2a;
layout(set = 0, binding = 2, r32ui) uniform uimage3D img3;
layout(set = 0, binding = 3, r32i) uniform iimage1D img1;
layout(set = 0, binding = 4, rgba16f) uniform writeonly imageCube imgc;
void main() {
  int x = int(gl_GlobalInvocationID.x);
  imageStore(img2, ivec2(x, 3), vec4(0.25, 0.5, float(x), 1.0));
  vec4 v = imageLoad(img2a, ivec3(x, 1, 2));
  imageStore(img2a, ivec3(x, 2, 1), v * 2.0);
  uint old = imageAtomicAdd(img3, ivec3(x, 0, 1), 3u);
  imageAtomicMax(img1, x, int(old));
  imageAtomicCompSwap(img3, ivec3(0), old, 7u);
  imageStore(imgc, ivec3(x, 1, 4), v);
}
