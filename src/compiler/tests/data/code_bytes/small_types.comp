#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
// 8- and 16-bit storage and arithmetic; half floats in native f16 ops.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B8 { uint8_t b8[]; };
layout(set = 0, binding = 1) buffer B16 { uint16_t b16[]; };
layout(set = 0, binding = 2) buffer H { float16_t h[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint8_t a = b8[i];
  uint16_t c = b16[i];
  float16_t x = h[i], y = h[i + 32u];
  float16_t z = x * y + float16_t(0.5);
  z = z + x * float16_t(2.0);
  h[i] = z;
  b16[i + 64u] = c * uint16_t(3) + uint16_t(a);
  b8[i + 32u] = a ^ uint8_t(0x5A);
}
