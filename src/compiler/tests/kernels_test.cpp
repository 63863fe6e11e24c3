// The sample kernel set (kernels.cpp): every kernel compiles, and the
// ones with a plain C++ equivalent run on the emulator and match it.
#include <bit>
#include <cmath>
#include <random>
#include <utility>

#include "compiler/kernels.h"
#include "compiler/tests/buffer_words.h"
#include "compiler/tests/run_helpers.h"
#include "tilebuffer/tilebuffer.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

Shader kernel(std::string_view name) {
  for (const Kernel& k : sample_kernels()) {
    if (k.name != name) continue;
    auto s = compile(std::string(k.glsl), k.env);
    EXPECT_TRUE(s.ok()) << name << ": " << (s.ok() ? "" : s.error().message());
    return s.ok() ? std::move(*s) : Shader{};
  }
  ADD_FAILURE() << "no kernel " << name;
  return {};
}

TEST(Kernels, AllCompile) {
  for (const Kernel& k : sample_kernels()) {
    auto s = compile(std::string(k.glsl), k.env);
    ASSERT_TRUE(s.ok()) << k.name << ": " << s.error().message();
    EXPECT_GT(s->stats.instructions, 0u);
    EXPECT_EQ(s->code.size(), s->stats.bytes);
    EXPECT_GT(s->stats.threads_per_core, 0u);
  }
}

// The instruction budget of each kernel: its count when the budget was
// last lowered (docs/compiler.md, "Instruction counts"). A change to the
// compiler that needs more instructions fails here and must either be
// fixed or raise the budget on purpose.
TEST(Kernels, StayWithinTheirInstructionBudget) {
  const std::pair<std::string_view, uint32_t> budgets[] = {
      {"saxpy", 9},         {"reduce_shared", 31},   {"histogram_atomics", 39},
      {"matmul_naive", 21}, {"mandelbrot", 41},      {"particles_vec4", 62},
      {"gl_counter_compact", 10}, {"int_division", 19},
  };
  EXPECT_EQ(std::size(budgets), sample_kernels().size()) << "every kernel has a budget";
  for (const auto& [name, budget] : budgets) {
    Shader s = kernel(name);
    EXPECT_LE(s.stats.instructions, budget) << name;
    EXPECT_GT(s.stats.instructions, 0u) << name;
  }
}

// The vertex and fragment set: each compiles for its stage with the ABI a
// draw needs, and each fragment shader links with its epilog.
Result<Shader> compile_graphics(const Kernel& k) {
  Options o;
  o.env = k.env;
  o.stage = k.stage;
  return compile_glsl(k.glsl, o);
}

TEST(Kernels, GraphicsCompileForTheirStage) {
  ASSERT_EQ(sample_graphics_kernels().size(), 3u);
  for (const Kernel& k : sample_graphics_kernels()) {
    auto s = compile_graphics(k);
    ASSERT_TRUE(s.ok()) << k.name << ": " << s.error().message();
    if (k.stage == Stage::vertex) {
      // gl_Position and three varyings (vec3, vec2, vec3).
      EXPECT_EQ(s->abi.vertex.layout.outputs.size(), 4u) << k.name;
      continue;
    }
    ASSERT_EQ(k.stage, Stage::fragment) << k.name;
    auto key = sample_epilog_key(k.name);
    ASSERT_TRUE(key.ok()) << key.error().message();
    uint32_t targets = 0;
    for (uint32_t rt = 0; rt < tilebuffer::kMaxRenderTargets; ++rt) targets |= uint32_t{key->layout.used(rt)} << rt;
    EXPECT_EQ(s->abi.fragment.colour_outputs, targets) << k.name << ": the epilog stores what the shader writes";
    auto epilog = compile_fragment_epilog(*key);
    ASSERT_TRUE(epilog.ok()) << epilog.error().message();
    auto linked = link_fragment(*s, *epilog);
    ASSERT_TRUE(linked.ok()) << linked.error().message();
    EXPECT_GT(linked->stats.instructions, s->stats.instructions) << k.name;
  }
  EXPECT_FALSE(sample_epilog_key("textured_blended")->layout.used(1));
  EXPECT_TRUE(sample_epilog_key("textured_blended")->targets[0].blend.enable);
}

// Budgets as for compute (docs/compiler.md "agx bench compiler"), each
// shader linked with its prolog or epilog (compile_sample). The vertex
// shader's count includes its prolog: three R32G32B32A32_SFLOAT attributes.
TEST(Kernels, GraphicsStayWithinTheirInstructionBudget) {
  const std::pair<std::string_view, uint32_t> budgets[] = {
      {"transform_lighting", 136}, {"textured_blended", 50}, {"deferred_gbuffer", 89}};
  for (const auto& [name, budget] : budgets) {
    const Kernel* k = nullptr;
    for (const Kernel& g : sample_graphics_kernels()) if (g.name == name) k = &g;
    ASSERT_NE(k, nullptr) << name;
    Options o;
    o.env = k->env;
    o.stage = k->stage;
    auto s = compile_sample(*k, o);
    ASSERT_TRUE(s.ok()) << name << ": " << s.error().message();
    EXPECT_LE(s->stats.instructions, budget) << name;
  }
}

TEST(Kernels, MatmulMatchesCpp) {
  Shader s = kernel("matmul_naive");
  ASSERT_FALSE(s.code.empty());
  const uint32_t n = 16;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<uint32_t> a(n * n), b(n * n);
  for (auto& x : a) x = fbits(dist(rng));
  for (auto& x : b) x = fbits(dist(rng));
  Job r;
  r.buffers = {a, b, std::vector<uint32_t>(n * n)};
  r.push = {n};
  r.groups = {2, 2, 1};
  auto st = execute(s, r);
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (uint32_t row = 0; row < n; ++row)
    for (uint32_t col = 0; col < n; ++col) {
      float acc = 0.0f;
      for (uint32_t k = 0; k < n; ++k) acc = std::fma(bitsf(a[row * n + k]), bitsf(b[k * n + col]), acc);
      EXPECT_EQ(bitsf(r.buffers[2][row * n + col]), acc) << row << "," << col;
    }
}

TEST(Kernels, MandelbrotMatchesCpp) {
  Shader s = kernel("mandelbrot");
  ASSERT_FALSE(s.code.empty());
  Job r;
  r.groups = {2, 2, 1};
  const uint32_t w = 32;
  r.buffers = {std::vector<uint32_t>(w * w)};
  auto st = execute(s, r);
  ASSERT_TRUE(st.ok()) << st.error().message();
  size_t mismatches = 0;
  for (uint32_t y = 0; y < w; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      // The same float operations in the same order (fma where the
      // compiler fuses a multiply into an add is allowed to differ in the
      // last bit, so escapes near the boundary may shift by an iteration).
      float cx = float(x) * (1.0f / float(w)) * 3.0f - 2.0f, cy = float(y) * (1.0f / float(w)) * 3.0f - 1.5f;
      float zx = 0, zy = 0;
      uint32_t it = 0;
      while (it < 256 && zx * zx + zy * zy < 4.0f) {
        float nx = zx * zx - zy * zy + cx;
        zy = 2.0f * zx * zy + cy;
        zx = nx;
        ++it;
      }
      uint32_t got = r.buffers[0][y * w + x];
      if (got != it) {
        ++mismatches;
        EXPECT_NEAR(double(got), double(it), 3.0) << x << "," << y;
      }
    }
  EXPECT_LE(mismatches, w * w / 50) << "more than 2% of the points differ";
}

TEST(Kernels, HistogramMatchesCpp) {
  Shader s = kernel("histogram_atomics");
  ASSERT_FALSE(s.code.empty());
  std::mt19937 rng(8);
  std::vector<uint32_t> a(256);
  for (auto& x : a) x = rng();
  Job r;
  r.buffers = {a, std::vector<uint32_t>(256)};
  r.groups = {4, 1, 1};
  auto st = execute(s, r);
  ASSERT_TRUE(st.ok()) << st.error().message();
  std::vector<uint32_t> h(256);
  for (uint32_t x : a) { h[x & 255]++; h[(x >> 8) & 255]++; }
  EXPECT_EQ(r.buffers[1], h);
}

TEST(Kernels, ParticlesMatchCpp) {
  Shader s = kernel("particles_vec4");
  ASSERT_FALSE(s.code.empty());
  std::vector<uint32_t> ps(64 * 8);
  for (uint32_t i = 0; i < 64; ++i) {
    float pos[4] = {float(i % 5) - 2.0f, float(i % 7) * 0.5f - 1.0f, 1.0f + float(i % 3), 1.0f};
    float vel[4] = {0.5f, -1.0f, 0.25f * float(i % 4), 0.0f};
    for (int c = 0; c < 4; ++c) { ps[i * 8 + c] = fbits(pos[c]); ps[i * 8 + 4 + c] = fbits(vel[c]); }
  }
  Job r;
  r.buffers = {ps};
  r.push = {fbits(0.01f), fbits(0.99f)};
  auto st = execute(s, r);
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (uint32_t i = 0; i < 64; ++i) {
    float p[3], v[3];
    for (int c = 0; c < 3; ++c) { p[c] = bitsf(ps[i * 8 + c]); v[c] = bitsf(ps[i * 8 + 4 + c]); }
    float len = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    for (int c = 0; c < 3; ++c) {
      float acc = -(p[c] / len) * 9.8f;
      v[c] = (v[c] + acc * 0.01f) * 0.99f;
      p[c] += v[c] * 0.01f;
    }
    if (p[1] < 0.0f) { p[1] = -p[1]; v[1] = std::fabs(v[1]); }
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(bitsf(r.buffers[0][i * 8 + c]), p[c], 1e-5) << i << " pos " << c;
      EXPECT_NEAR(bitsf(r.buffers[0][i * 8 + 4 + c]), v[c], 1e-5) << i << " vel " << c;
    }
    EXPECT_EQ(r.buffers[0][i * 8 + 3], fbits(1.0f));
  }
}

TEST(Kernels, CounterCompactKeepsEveryLargeValueOnce) {
  Shader s = kernel("gl_counter_compact");
  ASSERT_FALSE(s.code.empty());
  std::mt19937 rng(12);
  std::vector<uint32_t> vals(128);
  for (auto& v : vals) v = rng() % 1000;
  Job r;
  // Resources in ABI order: storage buffers (In, Out), then the counter.
  r.buffers = {vals, std::vector<uint32_t>(128, 0xFFFFFFFF), {0}};
  r.push = {500};
  r.groups = {2, 1, 1};
  auto st = execute(s, r);
  ASSERT_TRUE(st.ok()) << st.error().message();
  std::vector<uint32_t> want;
  for (uint32_t v : vals) if (v > 500) want.push_back(v);
  ASSERT_EQ(r.buffers[2][0], want.size());
  std::vector<uint32_t> got(r.buffers[1].begin(), r.buffers[1].begin() + want.size());
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace agx::compiler::test
