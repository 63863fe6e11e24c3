// Whole-struct and whole-array stores (and the loads feeding them) between
// std140 / std430 buffers and shared memory, with nested structs, arrays of
// structs, row-major matrices and 64-bit members. Each kernel is checked
// against the same copy written member by member (scalar and vector
// stores, translated by other code), byte for byte including the padding
// neither may touch, and against offsets computed here by hand.
#include <cstring>

#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace {

constexpr uint32_t kSentinel = 0xdeadbeefu;

const char* kTypes = R"(
struct Inner { uvec2 u; float f; };
struct S {
  vec3 a;
  float b;
  mat2x3 m;
  int c[3];
  Inner inner[2];
  uint64_t big;
};
)";

// The member-by-member form of "dst = src" for an S.
std::string copy_members(const std::string& dst, const std::string& src) {
  std::string s;
  for (const char* m : {"a", "b", "m", "c[0]", "c[1]", "c[2]", "inner[0].u", "inner[0].f", "inner[1].u", "inner[1].f", "big"})
    s += "  " + dst + "." + m + " = " + src + "." + m + ";\n";
  return s;
}

// Runs src with buffers in Abi order (storage buffers before uniform
// buffers); returns buffer `result`.
std::vector<uint32_t> run(const std::string& src, std::vector<std::vector<uint32_t>> buffers, size_t result) {
  Shader sh = must_compile(src);
  if (sh.code.empty()) return {};
  Job r;
  r.buffers = std::move(buffers);
  auto st = execute(sh, r);
  EXPECT_TRUE(st.ok()) << st.error().message();
  return r.buffers[result];
}

std::vector<uint32_t> pattern(size_t words) {
  std::vector<uint32_t> v(words);
  for (size_t i = 0; i < words; ++i) v[i] = 0x1000u + static_cast<uint32_t>(i) * 7u;
  return v;
}

// The std430 layout of S by hand (row-major block: mat2x3 is 3 rows of
// vec2, MatrixStride 8).
struct Offsets { uint32_t a = 0, b = 12, m = 16, c = 40, inner = 56, big = 88, size = 96; };

TEST(StructCopy, Std430RoundTripWithChanges) {
  std::string head = std::string("#version 450\n#extension GL_ARB_gpu_shader_int64 : require\nlayout(local_size_x = 4) in;\n") + kTypes +
                     R"(layout(std430, row_major, binding = 0) buffer In { S s[4]; };
layout(std430, row_major, binding = 1) buffer Out { S o[4]; };
void main() {
  uint i = gl_LocalInvocationIndex;
)";
  const std::string changes = "  o[i].b += 1.0;\n  o[i].inner[1].u.y = i;\n  o[i].c[1] = -int(i);\n}\n";
  std::string whole = head + "  o[i] = s[3u - i];\n" + changes;
  std::string members = head + copy_members("o[i]", "s[3u - i]") + changes;
  Offsets off;
  std::vector<uint32_t> in = pattern(4 * off.size / 4);
  for (uint32_t k = 0; k < 4; ++k) {  // b is a float
    float f = 0.5f * k;
    std::memcpy(&in[(k * off.size + off.b) / 4], &f, 4);
  }
  auto got = run(whole, {in, std::vector<uint32_t>(in.size(), kSentinel)}, 1);
  auto want = run(members, {in, std::vector<uint32_t>(in.size(), kSentinel)}, 1);
  ASSERT_EQ(got.size(), in.size());
  EXPECT_EQ(got, want);
  // By hand: element i comes from 3 - i; a, m, big unchanged, b + 1, padding untouched.
  for (uint32_t i = 0; i < 4; ++i) {
    uint32_t o = i * off.size / 4, s = (3 - i) * off.size / 4;
    for (uint32_t k = 0; k < 3; ++k) EXPECT_EQ(got[o + off.a / 4 + k], in[s + off.a / 4 + k]);
    float b;
    std::memcpy(&b, &got[o + off.b / 4], 4);
    EXPECT_EQ(b, 0.5f * (3 - i) + 1.0f);
    for (uint32_t k = 0; k < 6; ++k) EXPECT_EQ(got[o + off.m / 4 + k], in[s + off.m / 4 + k]);
    EXPECT_EQ(got[o + off.c / 4 + 1], static_cast<uint32_t>(-static_cast<int32_t>(i)));
    EXPECT_EQ(got[o + off.c / 4 + 3], kSentinel);  // padding before inner
    EXPECT_EQ(got[o + off.inner / 4 + 4 + 1], i);  // inner[1].u.y
    EXPECT_EQ(got[o + off.inner / 4 + 3], kSentinel);  // inner[0] padding
    EXPECT_EQ(got[o + off.big / 4], in[s + off.big / 4]);
    EXPECT_EQ(got[o + off.big / 4 + 1], in[s + off.big / 4 + 1]);
  }
}

TEST(StructCopy, Std140ToStd430AndThroughShared) {
  // A std140 uniform block (column-major, arrays of 16-byte strides) into
  // std430 storage, once directly and once through shared memory (natural
  // layout), each lane writing another lane's element.
  std::string head = std::string("#version 450\n#extension GL_ARB_gpu_shader_int64 : require\nlayout(local_size_x = 2) in;\n") + kTypes +
                     R"(layout(std140, binding = 0) uniform In { S s[2]; };
layout(std430, binding = 1) buffer Out { S o[4]; };
shared S sh[2];
void main() {
  uint i = gl_LocalInvocationIndex;
)";
  std::string whole = head + "  o[i] = s[i];\n  sh[i] = s[1u - i];\n  barrier();\n  o[2u + i] = sh[i];\n}\n";
  std::string members = head + copy_members("o[i]", "s[i]") + copy_members("sh[i]", "s[1u - i]") + "  barrier();\n" +
                        copy_members("o[2u + i]", "sh[i]") + "}\n";
  // std140 S: a 0, b 12, m 16 (2 columns of 16), c 48 (stride 16), inner 96 (stride 16: u 0, f 8), big 128; size 144.
  std::vector<uint32_t> in = pattern(2 * 144 / 4);
  auto got = run(whole, {std::vector<uint32_t>(4 * 112 / 4, kSentinel), in}, 0);
  auto want = run(members, {std::vector<uint32_t>(4 * 112 / 4, kSentinel), in}, 0);
  ASSERT_EQ(got.size(), 4u * 28u);
  EXPECT_EQ(got, want);
  // By hand, std430 column-major S: a 0, b 12, m 16 (columns 16 apart), c 48 (stride 4), inner 64
  // (Inner aligns to 8, size 16), big 96; size 104 rounded to S's alignment 16: 112.
  for (uint32_t k = 0; k < 3; ++k) EXPECT_EQ(got[k], in[k]);               // a
  EXPECT_EQ(got[3], in[3]);                                                // b
  for (uint32_t k = 0; k < 3; ++k) EXPECT_EQ(got[4 + k], in[4 + k]);       // m column 0
  for (uint32_t k = 0; k < 3; ++k) EXPECT_EQ(got[8 + k], in[8 + k]);       // m column 1
  for (uint32_t k = 0; k < 3; ++k) EXPECT_EQ(got[12 + k], in[12 + 4 * k]); // c: std140 stride 16 -> 4
  EXPECT_EQ(got[15], kSentinel);                                           // padding
  for (uint32_t k = 0; k < 2; ++k) {                                       // inner[k].u, .f
    EXPECT_EQ(got[16 + 4 * k], in[24 + 4 * k]);
    EXPECT_EQ(got[17 + 4 * k], in[25 + 4 * k]);
    EXPECT_EQ(got[18 + 4 * k], in[26 + 4 * k]);
  }
  EXPECT_EQ(got[24], in[32]);                                              // big
  EXPECT_EQ(got[25], in[33]);
  // Through shared memory: o[2] = s[1], o[3] = s[0].
  for (uint32_t k = 0; k < 28; ++k) EXPECT_EQ(got[2 * 28 + k], got[28 + k]) << k;
}

TEST(StructCopy, WholeArraysAndCopyMemory) {
  // Arrays as values: a uint[5] member, an array of vec2 in shared memory,
  // and a local array copied whole.
  const char* src = R"(#version 450
layout(local_size_x = 3) in;
layout(std430, binding = 0) buffer In { uint a[5]; vec2 v[3]; };
layout(std430, binding = 1) buffer Out { uint oa[5]; vec2 ov[3]; uint ob[5]; };
shared vec2 sv[3];
void main() {
  uint i = gl_LocalInvocationIndex;
  if (i == 0u) { oa = a; sv = v; }
  barrier();
  if (i == 1u) { ov = sv; uint t[5] = a; t[2] = 99u; ob = t; }
}
)";
  std::vector<uint32_t> in = pattern(5 + 1 + 6);  // v at 24 (8-aligned)
  auto got = run(src, {in, std::vector<uint32_t>(5 + 1 + 6 + 5, kSentinel)}, 1);
  ASSERT_EQ(got.size(), 17u);
  for (uint32_t k = 0; k < 5; ++k) EXPECT_EQ(got[k], in[k]);
  EXPECT_EQ(got[5], kSentinel);
  for (uint32_t k = 0; k < 6; ++k) EXPECT_EQ(got[6 + k], in[6 + k]);
  for (uint32_t k = 0; k < 5; ++k) EXPECT_EQ(got[12 + k], k == 2 ? 99u : in[k]);
}

// OpCopyMemory: glslang writes "b[0] = a[1]" as OpLoad + OpStore of a
// whole struct; the words are rewritten into OpNops and one OpCopyMemory
// (target, source) where the store was, as other front ends emit it.
TEST(StructCopy, CopyMemoryOfAWholeStruct) {
  const char* src = R"(#version 450
layout(local_size_x = 1) in;
struct P { vec2 v; uint k[3]; };
layout(std430, binding = 0) buffer In { P a[2]; };
layout(std430, binding = 1) buffer Out { P b[2]; };
void main() { b[0] = a[1]; b[1] = a[0]; }
)";
  Options o;
  o.file_name = "test.comp";
  auto words = glsl_to_spirv(src, o);
  ASSERT_TRUE(words.ok()) << words.error().message();
  std::vector<uint32_t> w = *words;
  constexpr uint32_t kOpLoad = 61, kOpStore = 62, kOpCopyMemory = 63, kOpNop = 0;
  int rewritten = 0;
  for (size_t i = 5; i < w.size();) {
    uint32_t op = w[i] & 0xffff, len = w[i] >> 16;
    if (!len) break;
    if (op == kOpLoad && len == 4) {
      uint32_t result = w[i + 2], source = w[i + 3];
      for (size_t j = i + len; j + 3 <= w.size() && (w[j] >> 16);) {
        uint32_t jlen = w[j] >> 16;
        if ((w[j] & 0xffff) == kOpStore && jlen == 3 && w[j + 2] == result) {
          w[j] = 3u << 16 | kOpCopyMemory;
          w[j + 2] = source;  // w[j + 1] stays the target
          for (size_t k = 0; k < 4; ++k) w[i + k] = 1u << 16 | kOpNop;
          ++rewritten;
          break;
        }
        j += jlen;
      }
    }
    i += len;
  }
  ASSERT_EQ(rewritten, 2);
  auto sh = compile_spirv(w, o);
  ASSERT_TRUE(sh.ok()) << sh.error().message();
  std::vector<uint32_t> in = pattern(2 * 6);  // P: v 0, k 8, size 20 -> 24 (align 8)
  Job r;
  r.buffers = {in, std::vector<uint32_t>(12, kSentinel)};
  ASSERT_OK(execute(*sh, r));
  for (uint32_t k = 0; k < 5; ++k) {
    EXPECT_EQ(r.buffers[1][k], in[6 + k]);
    EXPECT_EQ(r.buffers[1][6 + k], in[k]);
  }
  EXPECT_EQ(r.buffers[1][5], kSentinel);
  EXPECT_EQ(r.buffers[1][11], kSentinel);
}

// Doubles are word pairs like 64-bit integers: a struct holding a double
// and a dvec3 copies bit for bit (std430: d at 0, f at 8, v at 32, size 64).
TEST(StructCopy, DoubleMembersCopyAsWordPairs) {
  auto sh = compile(R"(#version 450
layout(local_size_x = 1) in;
struct D { double d; float f; dvec3 v; };
layout(std430, binding = 0) buffer B { D x; D y; };
void main() { y = x; }
)");
  ASSERT_TRUE(sh.ok()) << sh.error().message();
  std::vector<uint32_t> buf(32, kSentinel);
  const uint32_t words[] = {0, 1, 2, 8, 9, 10, 11, 12, 13};  // d, f, v (padding 3..7 and 14..15)
  for (uint32_t w : words) buf[w] = 0x3ff00000u + w * 0x1111u;
  Job r;
  r.buffers = {buf};
  ASSERT_OK(execute(*sh, r));
  for (uint32_t w : words) EXPECT_EQ(r.buffers[0][16 + w], buf[w]) << "word " << w;
  for (uint32_t w : {3u, 4u, 5u, 6u, 7u, 14u, 15u}) EXPECT_EQ(r.buffers[0][16 + w], kSentinel) << "padding word " << w;
}

TEST(StructCopy, DoubleMatricesInACompositeAreNamed) {
  auto s = compile(R"(#version 450
layout(local_size_x = 1) in;
struct D { dmat2 m; float f; };
layout(std430, binding = 0) buffer B { D x; D y; };
void main() { y = x; }
)");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("test.comp:5: a matrix of doubles inside a whole-struct or array copy"), std::string::npos)
      << s.error().message();
}

}  // namespace
}  // namespace agx::compiler::test
