// The vertex tests' shared pieces: compiling a GLSL vertex shader and
// drawing it on the software GPU's vertex half (gpu::VertexPipeline, the
// gpu unit's vdm_fixture.h), with optional code in front of the shader.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "gpu/tests/vdm_fixture.h"

namespace agx::compiler::test {

inline Result<Shader> compile_vs(const std::string& src, TargetEnv env = TargetEnv::vulkan, bool preamble = true) {
  Options o;
  o.env = env;
  o.stage = Stage::vertex;
  o.file_name = "v.vert";
  o.preamble = preamble;
  return compile_glsl(src, o);
}

// The first output word of the interface entry of `location`
// (VertexAbi::output_locations); fails the test when no entry has it.
inline unsigned output_slot(const VertexAbi& v, uint32_t location) {
  const auto it = std::find(v.output_locations.begin(), v.output_locations.end(), location);
  EXPECT_NE(it, v.output_locations.end()) << "no output at location " << location;
  if (it == v.output_locations.end()) return 0;
  return v.layout.find_varying(static_cast<int>(it - v.output_locations.begin()))->index;
}

namespace cs = cmdstream;
using gpu::test::push;
using gpu::test::push_u32;

class VertexRun : public gpu::test::VertexTest {
 public:
  // The shader's word list: `uniforms` from u0 on, its code and preamble.
  uint32_t program(const Shader& s, const std::vector<uint32_t>& uniforms) {
    std::vector<uint8_t> code = prefix_;
    code.insert(code.end(), s.code.begin(), s.code.end());
    const GpuVa code_va = put(code);
    std::vector<uint32_t> u = uniforms;
    u.resize(std::max<size_t>(u.size(), s.abi.uniform_count), 0);
    const GpuVa u_va = put_words(u);
    std::vector<uint8_t> w;
    // One USC Uniform word per 64 halves (its size field's largest).
    for (uint32_t start = 0; start < 2 * u.size(); start += 64) {
      cs::UscUniform un;
      un.start_halfs = start;
      un.size_halfs = std::min<uint32_t>(64, static_cast<uint32_t>(2 * u.size()) - start);
      un.buffer = u_va + 2 * start;
      push(w, un);
    }
    cs::UscShader sh;
    sh.code = static_cast<uint32_t>(code_va - gpu::test::kBase);
    push(w, sh);
    cs::UscRegisters r;
    r.register_count = std::max(s.stats.gprs, prefix_halves_);
    push(w, r);
    if (!s.preamble.empty()) {
      cs::UscPreshader p;
      p.code = static_cast<uint32_t>(put(s.preamble) - gpu::test::kBase);
      push(w, p);
    } else {
      push(w, cs::UscNoPreshader{});
    }
    return static_cast<uint32_t>(put(w) - gpu::test::kBase);
  }
  // Draws `count` points of `instances` instances with the shader's layout
  // words; true when the draw ran.
  bool draw_points(const Shader& s, const std::vector<uint32_t>& uniforms, uint32_t count, uint32_t instances = 1,
                   uint32_t start = 0) {
    const varyings::VertexOutputLayout& l = s.abi.vertex.layout;
    std::vector<uint8_t> stream;
    vdm_state(stream, program(s, uniforms), l.output_count);
    gpu::test::PppRecord r;
    r.header.viewport = r.header.output_select = r.header.varying_counts_32 = r.header.varying_counts_16 = true;
    r.header.viewport_count = 1;
    r.add(cs::ViewportControl{}).add(gpu::test::viewport(50, 50, 50, 50));
    push_u32(r.words, l.output_select);
    push_u32(r.words, l.varying_counts_32);
    push_u32(r.words, l.varying_counts_16);
    ppp_state(stream, r);
    draw(stream, cs::Primitive::kPoints, count, instances, start);
    terminate(stream);
    return run(stream);
  }
  // Output word `i` of scene vertex `v`.
  uint32_t out(size_t v, unsigned i) const { return scene.outputs[scene.vertices[v].first_output + i]; }
  float outf(size_t v, unsigned i) const { return gpu::test::as_float(out(v, i)); }

  // Code run before the shader (what a prolog leaves), and its registers.
  std::vector<uint8_t> prefix_;
  uint32_t prefix_halves_ = 0;
};

}  // namespace agx::compiler::test
