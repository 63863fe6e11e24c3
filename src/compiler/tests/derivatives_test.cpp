// GL_NV_compute_shader_derivatives: dFdx/dFdy (fine, coarse), fwidth over
// quads and linear derivative groups, against the extension's quad
// definitions computed here in C++.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

// f(x, y) on the local invocation: small integers / 4, exact in float.
float f(uint32_t x, uint32_t y, uint32_t group) { return float(x * x + 3 * x * y + 2 * y * y + 7 * group) / 4.0f; }

struct Expect { float dx_fine, dy_fine, dx_coarse, dy_coarse, fwidth; };

// Element (i, j) of the quad holding local (x, y): quads = the 2x2 block,
// linear = 4 consecutive indices (i = index bit 0, j = index bit 1).
Expect expected(bool quads, uint32_t sx, uint32_t index, uint32_t group) {
  auto at = [&](uint32_t idx) { return f(idx % sx, idx / sx, group); };
  uint32_t i = index & 1, step = quads ? sx : 2;
  uint32_t j = quads ? (index / sx) & 1 : (index >> 1) & 1;
  uint32_t tl = index - i - j * step;
  uint32_t row = index - i, col = index - j * step;
  Expect e{};
  e.dx_fine = at(row + 1) - at(row);
  e.dy_fine = at(col + step) - at(col);
  e.dx_coarse = at(tl + 1) - at(tl);
  e.dy_coarse = at(tl + step) - at(tl);
  e.fwidth = std::fabs(e.dx_fine) + std::fabs(e.dy_fine);
  return e;
}

std::string shader(const char* layout, uint32_t sx, uint32_t sy) {
  return fmt::format(R"(#version 450
#extension GL_NV_compute_shader_derivatives : require
layout(local_size_x = {}, local_size_y = {}) in;
{}
layout(set = 0, binding = 0) buffer A {{ float a[]; }};
layout(set = 0, binding = 1) buffer O {{ float o[]; }};
void main() {{
  uint g = gl_WorkGroupID.x * gl_WorkGroupSize.x * gl_WorkGroupSize.y + gl_LocalInvocationIndex;
  float v = a[g];
  o[g * 5u + 0u] = dFdxFine(v);
  o[g * 5u + 1u] = dFdyFine(v);
  o[g * 5u + 2u] = dFdxCoarse(v);
  o[g * 5u + 3u] = dFdyCoarse(v);
  o[g * 5u + 4u] = fwidth(v);
}}
)", sx, sy, layout);
}

void check(bool quads, uint32_t sx, uint32_t sy, uint32_t groups) {
  SCOPED_TRACE(fmt::format("{} {}x{} x{}", quads ? "quads" : "linear", sx, sy, groups));
  auto s = compile(shader(quads ? "layout(derivative_group_quadsNV) in;" : "layout(derivative_group_linearNV) in;", sx, sy));
  ASSERT_TRUE(s.ok()) << s.error().message();
  uint32_t size = sx * sy;
  Job run;
  run.groups = {groups, 1, 1};
  std::vector<uint32_t> a(size * groups), o(size * groups * 5, 0xdeadbeef);
  for (uint32_t g = 0; g < groups; ++g)
    for (uint32_t idx = 0; idx < size; ++idx) {
      float v = f(idx % sx, idx / sx, g);
      std::memcpy(&a[g * size + idx], &v, 4);
    }
  run.buffers = {a, o};
  auto st = execute(*s, run);
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (uint32_t g = 0; g < groups; ++g)
    for (uint32_t idx = 0; idx < size; ++idx) {
      Expect e = expected(quads, sx, idx, g);
      float want[5] = {e.dx_fine, e.dy_fine, e.dx_coarse, e.dy_coarse, e.fwidth};
      for (int k = 0; k < 5; ++k) {
        float got;
        std::memcpy(&got, &run.buffers[1][(g * size + idx) * 5 + k], 4);
        EXPECT_EQ(got, want[k]) << "group " << g << " index " << idx << " result " << k;
      }
    }
}

TEST(Derivatives, QuadsOneSimdGroup) { check(true, 8, 4, 2); }
TEST(Derivatives, QuadsAcrossSimdGroups) { check(true, 8, 8, 1); }
TEST(Derivatives, QuadsNarrow) { check(true, 2, 6, 3); }
TEST(Derivatives, Linear) { check(false, 6, 6, 2); }

TEST(Derivatives, NoGroupIsZero) {
  auto s = compile(shader("", 4, 4));
  ASSERT_TRUE(s.ok()) << s.error().message();
  Job run;
  std::vector<uint32_t> a(16), o(80, 0xdeadbeef);
  for (uint32_t idx = 0; idx < 16; ++idx) {
    float v = f(idx % 4, idx / 4, 0);
    std::memcpy(&a[idx], &v, 4);
  }
  // The input is dead (every derivative is 0): only the output is a resource.
  ASSERT_EQ(s->abi.resources.size(), 1u);
  run.buffers = {o};
  auto st = execute(*s, run);
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (uint32_t k = 0; k < 80; ++k) EXPECT_EQ(run.buffers[0][k], 0u) << k;
}

TEST(Derivatives, QuadCrossingASimdGroupIsUnsupported) {
  // 10x4: rows 2 and 3 are indices 20-39, across the lane-32 boundary.
  auto s = compile(shader("layout(derivative_group_quadsNV) in;", 10, 4));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("cross a 32-lane SIMD group"), std::string::npos) << s.error().message();
}

// texture() with an implicit LOD inside a group: the coordinates' fine
// derivatives become texture_sample's gradients (lod_grad), 2 per
// coordinate; without a group it stays the base level (LOD 0).
TEST(Derivatives, ImplicitLodTextureTakesGradients) {
  const char* src = R"(#version 450
#extension GL_NV_compute_shader_derivatives : require
layout(local_size_x = 2, local_size_y = 2) in;
%s
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) buffer O { vec4 o[]; };
void main() { o[gl_LocalInvocationIndex] = texture(tex, vec2(gl_LocalInvocationID.xy) / 8.0); }
)";
  std::string grouped(src), plain(src);
  grouped.replace(grouped.find("%s"), 2, "layout(derivative_group_quadsNV) in;");
  plain.replace(plain.find("%s"), 2, "");
  auto g = compile(grouped);
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_NE(g->ir_text.find("texture_sample"), std::string::npos);
  EXPECT_NE(g->ir_text.find("simd_shuffle"), std::string::npos) << g->ir_text;
  auto p = compile(plain);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->ir_text.find("simd_shuffle"), std::string::npos) << p->ir_text;
}

}  // namespace
}  // namespace agx::compiler::test
