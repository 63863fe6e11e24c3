#version 450
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer B { int64_t total; uint64_t top; int64_t m; };
shared int64_t local_sum;
void main() {
  if (gl_LocalInvocationIndex == 0u) local_sum = 0l;
  barrier();
  atomicAdd(local_sum, 5l);
  barrier();
  if (gl_LocalInvocationIndex == 0u) atomicAdd(total, local_sum);
}
