// The fixture of the fragment render tests: fragment shaders compiled,
// linked with their epilog and drawn by the software GPU's fragment half
// (src/gpu/tests/pdm_fixture.h).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "../../gpu/tests/pdm_fixture.h"
#include "compiler/compiler.h"
#include "varyings/varyings.h"

namespace agx::compiler::test {

namespace cs = agx::cmdstream;
using gpu::test::f2u;

class FragmentRender : public gpu::test::RenderTest {
 public:
  static constexpr GpuVa kConstants = 0x6000'0000ull;

  // The linked shader of `glsl` with the epilog of `key`.
  Shader linked(const std::string& glsl, const FragmentEpilogKey& key = {}, bool preamble = true) {
    Options o;
    o.stage = Stage::fragment;
    o.file_name = "t.frag";
    o.preamble = preamble;
    auto main = compile_glsl(glsl, o);
    EXPECT_TRUE(main.ok()) << (main.ok() ? "" : main.error().message());
    auto epilog = compile_fragment_epilog(key);
    EXPECT_TRUE(epilog.ok()) << (epilog.ok() ? "" : epilog.error().message());
    if (!main.ok() || !epilog.ok()) return {};
    auto l = link_fragment(*main, *epilog);
    EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().message());
    return l.ok() ? *l : Shader{};
  }
  // A draw state running `s` over `iface` (the vertex side's outputs, one
  // varying per FragmentAbi input, in order); u2..u5 hold `constant`;
  // `extra_state` (USC Texture / Sampler words) goes after the uniforms.
  uint32_t draw_shader(const Shader& s, const varyings::Interface& iface, gpu::PppWords w = open_words(),
                       std::array<float, 4> constant = {}, const std::vector<uint8_t>& extra_state = {}) {
    const FragmentAbi& fa = s.abi.fragment;
    auto report = varyings::make_report(iface);
    EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message());
    if (!report.ok()) return 0;
    std::vector<varyings::SeparableEntry> entries;
    for (size_t i = 0; i < fa.inputs.size(); ++i)
      entries.push_back({int(i), cs::CoefficientSource::kVarying, fa.inputs[i].cf, 0});
    if (fa.z_cf != FragmentAbi::kNoCf) entries.push_back({-1, cs::CoefficientSource::kFragcoordZ, fa.z_cf, 1});
    auto b = varyings::separable_bindings(report->slots, iface, entries, fa.w_cf);
    EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message());
    auto words_b = b.ok() ? varyings::pack_bindings(*b) : Result<std::vector<uint32_t>>(Error::invalid_argument("no bindings"));
    EXPECT_TRUE(words_b.ok());
    if (!b.ok() || !words_b.ok()) return 0;
    std::vector<uint8_t> consts(16);
    std::memcpy(consts.data(), constant.data(), 16);
    if (mem.regions().count(kConstants) == 0) {
      EXPECT_TRUE(mem.map(kConstants, std::vector<uint8_t>(4096, 0)).ok());
    }
    const GpuVa where = kConstants + (constants_used_++ % 256) * 16;
    GpuFault f;
    EXPECT_TRUE(mem.write(where, consts.data(), 16, GpuUnit::host, &f));
    std::vector<uint8_t> state;
    cs::UscUniform u;
    u.start_halfs = 2 * FragmentAbi::kBlendConstantUniform;
    u.size_halfs = 8;
    u.buffer = where;
    append(state, u);
    state.insert(state.end(), extra_state.begin(), extra_state.end());
    cs::UscFragmentProperties late{};
    late.early_z_testing = false;
    set_fragment_shader(w, words(usc_put(s.code), false, std::max(s.stats.gprs, 8u), late, state), *words_b,
                        b->bindings.size());
    gpu::DrawState ds;
    ds.ppp = w;
    ds.slots = report->slots;
    ds.output_count = report->layout.output_count;
    scene.states.push_back(ds);
    return uint32_t(scene.states.size() - 1);
  }

 private:
  uint32_t constants_used_ = 0;  // 16-byte blocks of kConstants handed out
};

}  // namespace agx::compiler::test
