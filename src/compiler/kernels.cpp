// The sample kernel set (kernels.h).
#include "compiler/kernels.h"

namespace agx::compiler {

namespace {
constexpr Kernel kKernels[] = {
    {"saxpy", R"(#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform P { float alpha; uint n; } pc;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < pc.n) y[i] = pc.alpha * x[i] + y[i];
})", TargetEnv::vulkan},
    {"reduce_shared", R"(#version 450
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
shared uint tmp[128];
void main() {
  uint l = gl_LocalInvocationID.x;
  tmp[l] = a[gl_GlobalInvocationID.x];
  barrier();
  for (uint stride = 64u; stride > 0u; stride >>= 1) {
    if (l < stride) tmp[l] += tmp[l + stride];
    barrier();
  }
  if (l == 0u) o[gl_WorkGroupID.x] = tmp[0];
})", TargetEnv::vulkan},
    {"histogram_atomics", R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer H { uint hist[256]; };
shared uint local_hist[256];
void main() {
  uint l = gl_LocalInvocationIndex;
  for (uint k = l; k < 256u; k += 64u) local_hist[k] = 0u;
  barrier();
  uint x = a[gl_GlobalInvocationID.x];
  atomicAdd(local_hist[x & 255u], 1u);
  atomicAdd(local_hist[(x >> 8) & 255u], 1u);
  barrier();
  for (uint k = l; k < 256u; k += 64u) atomicAdd(hist[k], local_hist[k]);
})", TargetEnv::vulkan},
    {"matmul_naive", R"(#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(push_constant) uniform P { uint n; } pc;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };
void main() {
  uint row = gl_GlobalInvocationID.y, col = gl_GlobalInvocationID.x;
  float acc = 0.0;
  for (uint k = 0u; k < pc.n; ++k) acc += a[row * pc.n + k] * b[k * pc.n + col];
  c[row * pc.n + col] = acc;
})", TargetEnv::vulkan},
    {"mandelbrot", R"(#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) writeonly buffer O { uint iters[]; };
void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  uint w = gl_NumWorkGroups.x * 16u;
  vec2 c = vec2(float(p.x) / float(w) * 3.0 - 2.0, float(p.y) / float(w) * 3.0 - 1.5);
  vec2 z = vec2(0.0);
  uint n = 0u;
  while (n < 256u && dot(z, z) < 4.0) {
    z = vec2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
    n++;
  }
  iters[p.y * w + p.x] = n;
})", TargetEnv::vulkan},
    {"particles_vec4", R"(#version 450
layout(local_size_x = 64) in;
struct Particle { vec4 pos; vec4 vel; };
layout(std430, set = 0, binding = 0) buffer P { Particle ps[]; };
layout(push_constant) uniform K { float dt; float damping; } k;
void main() {
  uint i = gl_GlobalInvocationID.x;
  Particle p = ps[i];
  vec3 acc = -normalize(p.pos.xyz) * 9.8;
  p.vel.xyz = (p.vel.xyz + acc * k.dt) * k.damping;
  p.pos.xyz += p.vel.xyz * k.dt;
  if (p.pos.y < 0.0) { p.pos.y = -p.pos.y; p.vel.y = abs(p.vel.y); }
  ps[i].pos = p.pos;
  ps[i].vel = p.vel;
})", TargetEnv::vulkan},
    {"gl_counter_compact", R"(#version 450
layout(local_size_x = 64) in;
layout(binding = 0, offset = 0) uniform atomic_uint count;
layout(std430, binding = 1) readonly buffer In { uint vals[]; };
layout(std430, binding = 2) writeonly buffer Out { uint kept[]; };
layout(location = 0) uniform uint threshold;
void main() {
  uint v = vals[gl_GlobalInvocationID.x];
  if (v > threshold) kept[atomicCounterIncrement(count)] = v;
})", TargetEnv::opengl},
    {"int_division", R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = a[i];
  a[i] = x / 10u + (x % 10u) * 100u + x / 64u;
})", TargetEnv::vulkan},
};
}  // namespace

std::span<const Kernel> sample_kernels() { return kKernels; }

}  // namespace agx::compiler
