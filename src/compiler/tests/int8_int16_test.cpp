// 8/16-bit integers (GL_EXT_shader_explicit_arithmetic_types_int8/int16)
// and 8/16-bit memory: GLSL kernels on the usc emulator against C++ on
// edge and random values (wraparound, sign extension on load, division and
// remainder signs, shifts, conversions to and from every width), and
// loads/stores of 8/16-bit scalars, vectors and struct members at odd
// offsets in buffers, push constants and shared memory.
#include <algorithm>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "compiler/tests/buffer_words.h"
#include "compiler/tests/half_ref.h"
#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

template <typename T>
std::vector<T> int_values(size_t n, uint32_t seed) {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {0, 1, 2, 3, 7, T(L::max()), T(L::min()), T(L::max() - 1), T(L::min() + 1), T(-1), T(-2), T(100), T(-100)};
  std::mt19937 rng(seed);
  while (v.size() < n) v.push_back(static_cast<T>(rng() >> (rng() % 32)));
  return v;
}

// T's values as the buffer bytes of a T[] array.
template <typename T>
std::vector<uint32_t> as_words(const std::vector<T>& v) {
  std::vector<uint32_t> w((v.size() * sizeof(T) + 3) / 4);
  std::memcpy(w.data(), v.data(), v.size() * sizeof(T));
  return w;
}

template <typename T>
void run_int_ops(const char* glsl_type, const char* ext) {
  constexpr unsigned kBits = sizeof(T) * 8;
  constexpr bool kSigned = std::is_signed_v<T>;
  const std::vector<std::string> exprs = {
      "a + b", "a - b", "a * b", "b != 0 ? a / b : T(0)", "b != 0 ? a % b : T(0)", "a & b", "a | b", "a ^ b", "~a",
      "a << s", "a >> s", "-a", "min(a, b)", "max(a, b)", "clamp(a, min(b, c), max(b, c))", "T(a < b) + T(a <= b) * T(2) + T(a == b) * T(4) + T(a > b) * T(8)",
      kSigned ? "abs(a)" : "a + T(1)", kSigned ? "sign(a)" : "a - T(1)", "T(a << 20) + T(a >> 20)", "a++ * T(3) + (b-- >> T(1))"};
  std::string body;
  for (size_t k = 0; k < exprs.size(); ++k)
    body += fmt::format("  o[i * {}u + {}u] = int({});\n", exprs.size(), k, exprs[k]);
  std::string src = fmt::format(R"(#version 450
#extension {} : require
layout(local_size_x = 64) in;
#define T {}
layout(set = 0, binding = 0) buffer A {{ T a_[]; }};
layout(set = 0, binding = 1) buffer B {{ T b_[]; }};
layout(set = 0, binding = 2) buffer C {{ T c_[]; }};
layout(set = 0, binding = 3) buffer O {{ int o[]; }};
void main() {{
  uint i = gl_GlobalInvocationID.x;
  T a = a_[i], b = b_[i], c = c_[i];
  T s = b & T({});
)", ext, glsl_type, kBits - 1) + body + "}\n";
  Shader sh = must_compile(src);
  ASSERT_FALSE(sh.code.empty()) << glsl_type;
  const size_t n = 256;
  auto a = int_values<T>(n, 1), b = int_values<T>(n, 2), c = int_values<T>(n, 3);
  std::reverse(b.begin(), b.end());
  Job r;
  r.groups = {static_cast<uint32_t>(n / 64), 1, 1};
  r.buffers = {as_words(a), as_words(b), as_words(c), std::vector<uint32_t>(n * exprs.size())};
  ASSERT_OK(execute(sh, r));
  // Arithmetic in int64, wrapped to T (GLSL's and SPIR-V's modular rules).
  auto wrap = [](int64_t v) { return static_cast<int32_t>(static_cast<T>(v)); };
  for (size_t i = 0; i < n; ++i) {
    int64_t x = a[i], y = b[i], z = c[i];
    unsigned s = static_cast<unsigned>(static_cast<uint64_t>(y) & (kBits - 1));
    using U = std::make_unsigned_t<T>;
    int64_t div = 0, rem = 0;
    if (y != 0) {
      div = x / y;
      // GLSL %: OpSMod for signed types (the divisor's sign), OpUMod unsigned.
      rem = x % y;
      if (kSigned && rem != 0 && ((rem < 0) != (y < 0))) rem += y;
    }
    int64_t cmp = (x < y) + (x <= y) * 2 + (x == y) * 4 + (x > y) * 8;
    int64_t lo = std::min(y, z), hi = std::max(y, z);
    std::vector<int32_t> want = {
        wrap(x + y), wrap(x - y), wrap(x * y), wrap(div), wrap(rem), wrap(x & y), wrap(x | y), wrap(x ^ y), wrap(~x),
        wrap(static_cast<int64_t>(static_cast<uint64_t>(static_cast<U>(x)) << s)),
        wrap(kSigned ? x >> s : static_cast<int64_t>(static_cast<U>(x) >> s)), wrap(-x), wrap(std::min(x, y)),
        wrap(std::max(x, y)), wrap(std::clamp(x, lo, hi)), wrap(cmp), wrap(kSigned ? std::abs(x) : x + 1),
        wrap(kSigned ? (x > 0) - (x < 0) : x - 1),
        // Shifts by 20 >= the width: SPIR-V leaves them undefined; the
        // widened form gives the infinitely wide result, truncated
        // (docs/compiler.md): << gives 0, >> the sign fill.
        wrap(kSigned && x < 0 ? -1 : 0), wrap(x * 3 + (y >> 1))};
    for (size_t k = 0; k < exprs.size(); ++k)
      EXPECT_EQ(static_cast<int32_t>(r.buffers[3][i * exprs.size() + k]), want[k])
          << glsl_type << " " << exprs[k] << " a=" << x << " b=" << y << " c=" << z;
  }
}

TEST(SmallInts, Int16) { run_int_ops<int16_t>("int16_t", "GL_EXT_shader_explicit_arithmetic_types_int16"); }
TEST(SmallInts, Uint16) { run_int_ops<uint16_t>("uint16_t", "GL_EXT_shader_explicit_arithmetic_types_int16"); }
TEST(SmallInts, Int8) { run_int_ops<int8_t>("int8_t", "GL_EXT_shader_explicit_arithmetic_types_int8"); }
TEST(SmallInts, Uint8) { run_int_ops<uint8_t>("uint8_t", "GL_EXT_shader_explicit_arithmetic_types_int8"); }

TEST(SmallInts, ConversionsBetweenWidths) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { int8_t a8[]; };
layout(set = 0, binding = 1) buffer B { int16_t a16[]; };
layout(set = 0, binding = 2) buffer C { int a32[]; };
layout(set = 0, binding = 3) buffer D { int64_t a64[]; };
layout(set = 0, binding = 4) buffer O { int o[]; };
layout(set = 0, binding = 5) buffer Q { int64_t o64[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  int8_t x = a8[i];
  int16_t y = a16[i];
  int z = a32[i];
  int64_t w = a64[i];
  o[i * 10u + 0u] = int(x);                       // sign extension of a loaded byte
  o[i * 10u + 1u] = int(uint8_t(x));              // zero extension
  o[i * 10u + 2u] = int(int16_t(x));
  o[i * 10u + 3u] = int(uint(uint16_t(x)));       // sign-extend to 16, then zero-extend
  o[i * 10u + 4u] = int(int8_t(y));               // truncation
  o[i * 10u + 5u] = int(int16_t(z));
  o[i * 10u + 6u] = int(uint16_t(z)) + int(uint8_t(z)) * 65536;
  o[i * 10u + 7u] = int(int16_t(w)) + int(int8_t(w >> 20));
  o[i * 10u + 8u] = int(int16_t(float((z & 0xFFFF) - 32768)));
  o[i * 10u + 9u] = int(uint8_t(float(uint(z) & 255u)));
  o64[i * 3u + 0u] = int64_t(y);
  o64[i * 3u + 1u] = int64_t(uint16_t(y));
  o64[i * 3u + 2u] = int64_t(x) * int64_t(uint64_t(uint8_t(x)));
}
)");
  ASSERT_FALSE(s.code.empty());
  const size_t n = 128;
  auto a8 = int_values<int8_t>(n, 4);
  auto a16 = int_values<int16_t>(n, 5);
  auto a32 = int_values<int32_t>(n, 6);
  auto a64 = int_values<int64_t>(n, 7);
  Job r;
  r.groups = {static_cast<uint32_t>(n / 64), 1, 1};
  r.buffers = {as_words(a8), as_words(a16), as_words(a32), as_words(a64), std::vector<uint32_t>(n * 10),
               std::vector<uint32_t>(n * 6)};
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < n; ++i) {
    int8_t x = a8[i];
    int16_t y = a16[i];
    int32_t z = a32[i];
    int64_t w = a64[i];
    std::vector<int32_t> want = {x, static_cast<uint8_t>(x), static_cast<int16_t>(x), static_cast<uint16_t>(x),
                                 static_cast<int8_t>(y), static_cast<int16_t>(z),
                                 static_cast<int32_t>(static_cast<uint16_t>(z) + static_cast<uint8_t>(z) * 65536u),
                                 static_cast<int16_t>(w) + static_cast<int8_t>(w >> 20), static_cast<int16_t>((z & 0xFFFF) - 32768),
                                 static_cast<uint8_t>(static_cast<uint32_t>(z) & 255u)};
    for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(static_cast<int32_t>(r.buffers[4][i * 10 + k]), want[k]) << i << " " << k;
    EXPECT_EQ(static_cast<int64_t>(at(r.buffers[5], i * 3 + 0)), int64_t{y});
    EXPECT_EQ(static_cast<int64_t>(at(r.buffers[5], i * 3 + 1)), int64_t{static_cast<uint16_t>(y)});
    EXPECT_EQ(static_cast<int64_t>(at(r.buffers[5], i * 3 + 2)), int64_t{x} * int64_t{static_cast<uint8_t>(x)});
  }
}

TEST(SmallInts, BitcastsAndPacking) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = a[i];
  u8vec4 b = unpack8(x);
  i8vec4 sb = unpack8(int(x));
  u16vec2 h = unpack16(x);
  o[i * 8u + 0u] = pack32(b.wzyx);
  o[i * 8u + 1u] = uint(int(sb.x) + int(sb.y) * 3 + int(sb.z) * 5 + int(sb.w) * 7);
  o[i * 8u + 2u] = pack32(h.yx);
  o[i * 8u + 3u] = uint(pack16(b.xy)) | uint(pack16(b.zw)) << 16;
  o[i * 8u + 4u] = uint(pack16(unpack8(h.x).yx * uint8_t(3))) | uint(bitCount(h.y)) << 16;
  o[i * 8u + 5u] = uint(int(int16_t(h.x)) >> 3);
  o[i * 8u + 6u] = uint(bitfieldReverse(h.x)) | uint(bitfieldReverse(b.w)) << 16;
  o[i * 8u + 7u] = uint(int16BitsToFloat16(int16_t(h.y & uint16_t(0x3FFF))) * 2.0hf);
}
)", TargetEnv::opengl);  // Vulkan allows bitCount/bitfieldReverse on 32 bits only
  ASSERT_FALSE(s.code.empty());
  const size_t n = 128;
  auto a = random_words(n, 8);
  a[0] = 0; a[1] = 0xFFFFFFFFu; a[2] = 0x80808080u; a[3] = 0x7F7F8001u;
  Job r;
  r.groups = {static_cast<uint32_t>(n / 64), 1, 1};
  r.buffers = {a, std::vector<uint32_t>(n * 8)};
  ASSERT_OK(execute(s, r));
  auto rev = [](uint32_t v, unsigned bits) {
    uint32_t o = 0;
    for (unsigned k = 0; k < bits; ++k) o |= ((v >> k) & 1) << (bits - 1 - k);
    return o;
  };
  for (size_t i = 0; i < n; ++i) {
    uint32_t x = a[i];
    uint8_t b[4] = {uint8_t(x), uint8_t(x >> 8), uint8_t(x >> 16), uint8_t(x >> 24)};
    uint16_t hx = uint16_t(x), hy = uint16_t(x >> 16);
    const uint32_t* o = &r.buffers[1][i * 8];
    EXPECT_EQ(o[0], uint32_t{b[3]} | b[2] << 8 | b[1] << 16 | uint32_t{b[0]} << 24);
    EXPECT_EQ(static_cast<int32_t>(o[1]), int8_t(b[0]) + int8_t(b[1]) * 3 + int8_t(b[2]) * 5 + int8_t(b[3]) * 7);
    EXPECT_EQ(o[2], uint32_t{hy} | uint32_t{hx} << 16);
    EXPECT_EQ(o[3], x);
    uint8_t p0 = uint8_t(b[1] * 3), p1 = uint8_t(b[0] * 3);
    EXPECT_EQ(o[4], (uint32_t{p0} | uint32_t{p1} << 8) + (static_cast<uint32_t>(__builtin_popcount(hy)) << 16)) << std::hex << x;
    EXPECT_EQ(static_cast<int32_t>(o[5]), int16_t(hx) >> 3);
    // glslang (Debian 12) reverses an 8/16-bit value as the 32-bit uint
    // it widens it to (OpUConvert, then OpBitReverse on 32 bits).
    EXPECT_EQ(o[6], rev(hx, 32) | rev(b[3], 32) << 16);
    EXPECT_EQ(o[7], static_cast<uint32_t>(ref_double(ref_half(ref_double(uint16_t(hy & 0x3FFF)) * 2.0))));
  }
}

// std430 offsets of struct S below, by hand: a 0, h 2, v 4 (u8vec3),
// d 8 (i16vec3, 8-aligned), e 16 (f16vec4), f 24 (uint16_t[3], stride 2),
// g 30 (int8_t); size 32 (8-aligned).
TEST(SmallInts, StructMembersVectorsAndOddOffsets) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 32) in;
struct S { int8_t a; float16_t h; u8vec3 v; i16vec3 d; f16vec4 e; uint16_t f[3]; int8_t g; };
layout(std430, set = 0, binding = 0) buffer In { S s_in[]; };
layout(std430, set = 0, binding = 1) buffer Out { S s_out[]; };
layout(std430, set = 0, binding = 2) buffer Bytes { uint8_t bytes[]; };
layout(std430, set = 0, binding = 3) buffer Res { int res[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  S x = S(s_in[i].a, s_in[i].h, s_in[i].v, s_in[i].d, s_in[i].e, s_in[i].f, s_in[i].g);
  s_out[i].a = x.a - int8_t(1);
  s_out[i].h = x.h * 2.0hf;
  s_out[i].v = x.v.zyx + u8vec3(1);
  s_out[i].d = -x.d;
  s_out[i].e = x.e.wzyx;
  for (int k = 0; k < 3; ++k) s_out[i].f[k] = x.f[2 - k] ^ uint16_t(0x5A5A);
  s_out[i].g = x.g;
  // Odd byte offsets: every thread writes bytes 3i+1 .. 3i+3 of a packed array.
  bytes[3u * i + 1u] = uint8_t(i);
  bytes[3u * i + 2u] = uint8_t(x.a);
  bytes[3u * i + 3u] = uint8_t(200u + i);
  res[i] = int(x.a) + int(x.v.x) + int(x.d.y) + int(x.g) * 1000;
}
)");
  ASSERT_FALSE(s.code.empty());
  const size_t n = 64, size_B = 32;
  std::vector<uint8_t> in(n * size_B), out_init(n * size_B, 0xEE);
  std::mt19937 rng(11);
  for (auto& byte : in) byte = static_cast<uint8_t>(rng());
  // Keep the halves finite (a NaN's payload would not survive h * 2).
  for (size_t i = 0; i < n; ++i)
    for (size_t off : {2u, 16u, 18u, 20u, 22u}) in[i * size_B + off + 1] &= 0x3F;
  auto words_of = [](const std::vector<uint8_t>& b) {
    std::vector<uint32_t> w(b.size() / 4);
    std::memcpy(w.data(), b.data(), b.size());
    return w;
  };
  Job r;
  r.groups = {static_cast<uint32_t>(n / 32), 1, 1};
  r.buffers = {words_of(in), words_of(out_init), std::vector<uint32_t>(n), std::vector<uint32_t>(n)};
  r.buffers[2].assign((3 * n + 4 + 3) / 4, 0x11111111u);
  ASSERT_OK(execute(s, r));
  std::vector<uint8_t> out(n * size_B);
  std::memcpy(out.data(), r.buffers[1].data(), out.size());
  auto u16 = [](const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); };
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* x = &in[i * size_B];
    const uint8_t* o = &out[i * size_B];
    EXPECT_EQ(o[0], uint8_t(x[0] - 1));
    EXPECT_EQ(o[1], 0xEE) << "padding";
    EXPECT_EQ(u16(o + 2), ref_half(ref_double(u16(x + 2)) * 2.0));
    for (int k = 0; k < 3; ++k) EXPECT_EQ(o[4 + k], uint8_t(x[4 + 2 - k] + 1));
    EXPECT_EQ(o[7], 0xEE) << "padding";
    for (int k = 0; k < 3; ++k) EXPECT_EQ(u16(o + 8 + 2 * k), uint16_t(-int16_t(u16(x + 8 + 2 * k))));
    EXPECT_EQ(u16(o + 14), 0xEEEE) << "padding";
    for (int k = 0; k < 4; ++k) EXPECT_EQ(u16(o + 16 + 2 * k), u16(x + 16 + 2 * (3 - k)));
    for (int k = 0; k < 3; ++k) EXPECT_EQ(u16(o + 24 + 2 * k), uint16_t(u16(x + 24 + 2 * (2 - k)) ^ 0x5A5A));
    EXPECT_EQ(o[30], x[30]);
    EXPECT_EQ(o[31], 0xEE) << "padding";
    EXPECT_EQ(static_cast<int32_t>(r.buffers[3][i]), int8_t(x[0]) + x[4] + int16_t(u16(x + 10)) + int8_t(x[30]) * 1000);
  }
  std::vector<uint8_t> bytes(r.buffers[2].size() * 4);
  std::memcpy(bytes.data(), r.buffers[2].data(), bytes.size());
  EXPECT_EQ(bytes[0], 0x11);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(bytes[3 * i + 1], uint8_t(i));
    EXPECT_EQ(bytes[3 * i + 2], in[i * size_B]);
    EXPECT_EQ(bytes[3 * i + 3], uint8_t(200 + i));
  }
  EXPECT_EQ(bytes[3 * n + 1], 0x11);
}

TEST(SmallInts, PushConstantsUniformBufferAndShared) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 64) in;
layout(push_constant) uniform P { int8_t a; uint8_t b; int16_t c; float16_t h; u8vec3 v; } p;
layout(std140, set = 0, binding = 0) uniform U { int16_t s16; float16_t f16; i8vec2 s8; u16vec3 w; } u;
layout(set = 0, binding = 1) buffer O { int o[]; };
shared int8_t sb[130];
shared float16_t sh[65];
shared u16vec3 sv[64];
void main() {
  uint i = gl_LocalInvocationIndex;
  sb[i + 1u] = int8_t(i) - int8_t(40);
  sh[i + 1u] = float16_t(i) * 0.5hf;
  sv[i] = u16vec3(i, i * 1000u, 65535u - i);
  barrier();
  uint j = 63u - i;
  o[i * 8u + 0u] = int(sb[j + 1u]);
  o[i * 8u + 1u] = int(sh[j + 1u] * 4.0hf);
  o[i * 8u + 2u] = int(sv[j].x) + int(sv[j].y) + int(sv[j].z);
  o[i * 8u + 3u] = int(p.a) * 1000 + int(p.b);
  o[i * 8u + 4u] = int(p.c) + int(p.h * 8.0hf) * 100000;
  o[i * 8u + 5u] = int(p.v.x) + int(p.v.y) * 256 + int(p.v.z) * 65536;
  o[i * 8u + 6u] = int(u.s16) + int(u.f16 * 2.0hf) * 100000;
  o[i * 8u + 7u] = int(u.s8.x) * 1000 + int(u.s8.y) + int(u.w.z) * 10000;
}
)");
  ASSERT_FALSE(s.code.empty());
  Job r;
  // Push constants (std430): a 0, b 1, c 2, h 4, v 8 (a u8vec3 is
  // 4-aligned): -123, 240, -1234, 1.5, (7, 9, 250).
  std::vector<uint8_t> pc2(12, 0);
  pc2[0] = 0x85; pc2[1] = 0xF0; pc2[2] = 0x2E; pc2[3] = 0xFB; pc2[4] = 0x00; pc2[5] = 0x3E; pc2[8] = 7; pc2[9] = 9; pc2[10] = 250;
  r.push.resize(3);
  std::memcpy(r.push.data(), pc2.data(), 12);
  // std140: s16 0, f16 2, s8 4..5, w 8..13.
  std::vector<uint8_t> ub(16, 0);
  ub[0] = 0x39; ub[1] = 0x30;  // 12345
  ub[2] = 0x00; ub[3] = 0x45;  // 5.0
  ub[4] = 0x9C; ub[5] = 0x64;  // -100, 100
  ub[12] = 0x07; ub[13] = 0x00;  // w.z = 7
  std::vector<uint32_t> ubw(4);
  std::memcpy(ubw.data(), ub.data(), 16);
  // Buffers in the ABI's resource order.
  ASSERT_EQ(s.abi.resources.size(), 2u);
  const size_t out = s.abi.resources[0].binding == 1 ? 0 : 1;
  r.buffers.resize(2);
  r.buffers[out] = std::vector<uint32_t>(64 * 8);
  r.buffers[1 - out] = ubw;
  ASSERT_OK(execute(s, r));
  for (uint32_t i = 0; i < 64; ++i) {
    uint32_t j = 63 - i;
    const int32_t* o = reinterpret_cast<const int32_t*>(&r.buffers[out][i * 8]);
    EXPECT_EQ(o[0], int8_t(j - 40));
    EXPECT_EQ(o[1], static_cast<int32_t>(j * 2));
    EXPECT_EQ(o[2], static_cast<int32_t>(j + uint16_t(j * 1000) + (65535 - j)));
    EXPECT_EQ(o[3], -123 * 1000 + 240);
    EXPECT_EQ(o[4], -1234 + 12 * 100000);
    EXPECT_EQ(o[5], 7 + 9 * 256 + 250 * 65536);
    EXPECT_EQ(o[6], 12345 + 10 * 100000);
    EXPECT_EQ(o[7], -100 * 1000 + 100 + 7 * 10000);
  }
}

}  // namespace
}  // namespace agx::compiler::test
