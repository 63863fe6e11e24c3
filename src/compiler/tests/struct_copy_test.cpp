// Whole-struct and whole-array stores (and the loads feeding them) between
// std140 / std430 buffers and shared memory, with nested structs, arrays of
// structs, row-major matrices and 64-bit members. Each kernel is checked
// against the same copy written member by member (scalar and vector
// stores, translated by other code), byte for byte including the padding
// neither may touch, and against offsets computed here by hand.
#include <cstring>

#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

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

// glslang writes "b[0] = a[1]" as OpLoad + OpStore of a whole struct; this
// rewrites each such pair into OpNops and one OpCopyMemory (target,
// source) where the store was, as other front ends emit it. Returns how
// many pairs it rewrote.
int loads_and_stores_to_copy_memory(std::vector<uint32_t>& w) {
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
  return rewritten;
}

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
  ASSERT_EQ(loads_and_stores_to_copy_memory(w), 2);
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

// Structs with dmat members, whole: std140 -> std430 column-major and
// row-major (the block's row_major reaches the struct's matrices), through
// shared memory, through a local variable written at run-time indices, and
// as OpCopyMemory. Checked against offsets worked out here from the
// std140/std430 rules (dvec3 columns / rows aligned to 32 bytes, dvec2 ones
// to 16, double arrays 16 bytes apart in std140 and 8 in std430), padding
// untouched.
const char* kDoubleTypes = R"(
struct D { double d; dmat3 m; dmat2x3 n; dmat3x2 q; double a[2]; float f; dvec3 v; };
)";

// Byte offsets of D's scalars, in declaration order (matrices column by
// column), in the three layouts, and each scalar's size.
struct DoubleLayout {
  std::vector<uint32_t> std140, col430, row430, size_B;
};
DoubleLayout double_layout() {
  DoubleLayout l;
  auto add = [&](uint32_t a, uint32_t b, uint32_t c, uint32_t size_B = 8) {
    l.std140.push_back(a);
    l.col430.push_back(b);
    l.row430.push_back(c);
    l.size_B.push_back(size_B);
  };
  add(0, 0, 0);                                    // d
  for (uint32_t c = 0; c < 3; ++c)                 // m: dmat3 at 32, columns (rows) 32 apart
    for (uint32_t r = 0; r < 3; ++r) add(32 + c * 32 + r * 8, 32 + c * 32 + r * 8, 32 + r * 32 + c * 8);
  for (uint32_t c = 0; c < 2; ++c)                 // n: dmat2x3 at 128; row-major rows are dvec2: 16 apart
    for (uint32_t r = 0; r < 3; ++r) add(128 + c * 32 + r * 8, 128 + c * 32 + r * 8, 128 + r * 16 + c * 8);
  for (uint32_t c = 0; c < 3; ++c)                 // q: dmat3x2 at 192; columns dvec2 16 apart, rows dvec3 32
    for (uint32_t r = 0; r < 2; ++r) add(192 + c * 16 + r * 8, 192 + c * 16 + r * 8, 192 + r * 32 + c * 8);
  for (uint32_t k = 0; k < 2; ++k) add(240 + 16 * k, 240 + 8 * k, 256 + 8 * k);  // a
  add(272, 256, 272, 4);                           // f
  for (uint32_t k = 0; k < 3; ++k) add(288 + 8 * k, 288 + 8 * k, 288 + 8 * k);    // v
  return l;
}
constexpr uint32_t kDoubleStructB = 320;  // every layout's size (32-byte aligned)

// Checks that element `dst` of `out` (layout `to`) holds element `src` of
// `in` (layout `from`) scalar by scalar and that its padding is untouched.
void expect_double_struct(const std::vector<uint32_t>& out, uint32_t dst, const std::vector<uint32_t>& to,
                          const std::vector<uint32_t>& in, uint32_t src, const std::vector<uint32_t>& from, const char* what) {
  const DoubleLayout l = double_layout();
  std::vector<uint8_t> covered(kDoubleStructB / 4, 0);
  for (size_t k = 0; k < to.size(); ++k)
    for (uint32_t w = 0; w < l.size_B[k] / 4; ++w) {
      covered[to[k] / 4 + w] = 1;
      EXPECT_EQ(out[(dst * kDoubleStructB + to[k]) / 4 + w], in[(src * kDoubleStructB + from[k]) / 4 + w])
          << what << ": scalar " << k << " word " << w;
    }
  for (uint32_t w = 0; w < kDoubleStructB / 4; ++w)
    if (!covered[w]) {
      EXPECT_EQ(out[dst * kDoubleStructB / 4 + w], kSentinel) << what << ": padding word " << w;
    }
}

TEST(StructCopy, DoubleMatrixMembersInStd140Std430AndRowMajor) {
  std::string head = std::string("#version 450\nlayout(local_size_x = 2) in;\n") + kDoubleTypes + R"(
layout(std140, binding = 0) uniform U { D u[2]; };
layout(std430, binding = 0) buffer C { D c[2]; };
layout(std430, row_major, binding = 1) buffer R { D r[2]; };
layout(std430, binding = 2) buffer S { D s[2]; };
shared D sh[2];
void main() {
  uint i = gl_LocalInvocationIndex;
)";
  const std::string whole = head + "  c[i] = u[1u - i];\n  r[i] = u[i];\n  sh[i] = r[1u - i];\n  barrier();\n  s[i] = sh[i];\n}\n";
  // The member-by-member form (dmat members loaded and stored whole by the
  // matrix code, not the composite copy).
  auto members = [](const std::string& dst, const std::string& src) {
    std::string out;
    for (const char* m : {"d", "m", "n", "q", "a[0]", "a[1]", "f", "v"}) out += "  " + dst + "." + m + " = " + src + "." + m + ";\n";
    return out;
  };
  const std::string by_member = head + members("c[i]", "u[1u - i]") + members("r[i]", "u[i]") + members("sh[i]", "r[1u - i]") +
                                "  barrier();\n" + members("s[i]", "sh[i]") + "}\n";
  std::vector<uint32_t> in = pattern(2 * kDoubleStructB / 4);
  const std::vector<uint32_t> empty(2 * kDoubleStructB / 4, kSentinel);
  std::vector<std::vector<uint32_t>> got, want;
  for (const std::string* src : {&whole, &by_member}) {
    Shader sh = must_compile(*src);
    ASSERT_FALSE(sh.code.empty());
    Job r;
    r.buffers = {empty, empty, empty, in};  // storage buffers, then the uniform buffer
    ASSERT_OK(execute(sh, r));
    (src == &whole ? got : want) = r.buffers;
  }
  for (int b = 0; b < 3; ++b) EXPECT_EQ(got[b], want[b]) << "buffer " << b;
  const DoubleLayout l = double_layout();
  for (uint32_t i = 0; i < 2; ++i) {
    expect_double_struct(got[0], i, l.col430, in, 1 - i, l.std140, "std140 -> std430");
    expect_double_struct(got[1], i, l.row430, in, i, l.std140, "std140 -> std430 row-major");
    expect_double_struct(got[2], i, l.col430, in, 1 - i, l.std140, "row-major -> shared -> std430");
  }
}

TEST(StructCopy, DoubleMatrixStructsThroughALocalVariableAndCopyMemory) {
  // A local D filled from a buffer, written at run-time column and row
  // indices (SPIRV-Tools splits it into its members: the dmat3 stays a
  // local variable on the stack, the double[2] one in registers), stored
  // whole; and a copy between two arrays of one block as OpCopyMemory.
  const std::string src = std::string("#version 450\nlayout(local_size_x = 2) in;\n") + kDoubleTypes + R"(
layout(std430, binding = 0) buffer In { D a[2]; uint k[2]; D p[2]; };
layout(std430, row_major, binding = 1) buffer Out { D o[2]; };
#define i gl_LocalInvocationIndex
void main() {
  D l = a[i];
  l.m[k[i]][k[1u - i]] = l.q[k[i]][1];
  l.a[k[i] + 5u] = l.d;
  o[i] = l;
  p[i] = a[1u - i];
}
)";
  Options o;
  o.file_name = "test.comp";
  auto words = glsl_to_spirv(src, o);
  ASSERT_TRUE(words.ok()) << words.error().message();
  std::vector<uint32_t> w = *words;
  ASSERT_GE(loads_and_stores_to_copy_memory(w), 1);
  auto sh = compile_spirv(w, o);
  ASSERT_TRUE(sh.ok()) << sh.error().message();
  EXPECT_GT(sh->stats.scratch_B, 0u);  // l is on the stack
  constexpr uint32_t kK = 2 * kDoubleStructB / 4, kP = 672 / 4;  // k at 640, p at 672 (32-byte aligned)
  std::vector<uint32_t> in = pattern(kP + 2 * kDoubleStructB / 4);
  in[kK] = 2;      // k[0]: l.m[2][1] in lane 0, l.a[1] (7 clamped)
  in[kK + 1] = 1;  // k[1]: l.m[1][2] in lane 1, l.a[1] (6 clamped)
  for (uint32_t w = kK + 2; w < in.size(); ++w) in[w] = kSentinel;
  Job r;
  r.buffers = {in, std::vector<uint32_t>(2 * kDoubleStructB / 4, kSentinel)};
  ASSERT_OK(execute(*sh, r));
  const DoubleLayout l = double_layout();
  // The expected element: a[i] with the two writes, in column-major std430.
  for (uint32_t i = 0; i < 2; ++i) {
    std::vector<uint32_t> e(in.begin() + i * kDoubleStructB / 4, in.begin() + (i + 1) * kDoubleStructB / 4);
    const uint32_t c = in[kK + i], row = in[kK + 1 - i];
    auto put = [&](uint32_t to_B, uint32_t from_B) { for (uint32_t k = 0; k < 2; ++k) e[to_B / 4 + k] = e[from_B / 4 + k]; };
    put(32 + c * 32 + row * 8, 192 + c * 16 + 8);  // l.m[c][row] = l.q[c][1]
    put(240 + 8, 0);                               // l.a[min(c + 5, 1)] = l.d
    expect_double_struct(r.buffers[1], i, l.row430, e, 0, l.col430, "local variable");
    const std::vector<uint32_t> p(r.buffers[0].begin() + kP, r.buffers[0].end());
    expect_double_struct(p, i, l.col430, in, 1 - i, l.col430, "OpCopyMemory");
  }
}

}  // namespace
}  // namespace agx::compiler::test
