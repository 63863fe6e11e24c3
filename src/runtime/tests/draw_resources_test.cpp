// Draws whose compiled fragment shaders use resources, bound by the rule
// compute launches bind with (runtime/resource_binding.h): a texture
// sampled with implicit LOD, and a storage buffer written by plain stores
// and atomics, which helper lanes must leave alone.
#include "runtime/tests/draw_fixture.h"

#include "compiler/compiler.h"
#include "runtime/resource_binding.h"

namespace agx::runtime::test {

namespace AGX_UNITY_ID {

class DrawResourcesTest : public DrawTest {
 protected:
  // The fixture's vertex program (position, then the vertex's "colour"
  // vec4 as location 0) and a compiled fragment shader reading it,
  // linked with the epilog of the pass's tilebuffer; its resources bound
  // through `lookup`.
  const GraphicsPipeline* compiled(const std::vector<Vertex>& vertices, const std::string& fragment_glsl,
                                   const RenderPass& pass, const ResourceLookup& lookup) {
    compiler::Options o;
    o.env = compiler::TargetEnv::opengl;
    o.stage = compiler::Stage::fragment;
    o.preamble = false;
    auto fs = compiler::compile_glsl(fragment_glsl, o);
    EXPECT_TRUE(fs.ok()) << (fs.ok() ? "" : fs.error().message());
    if (!fs.ok()) return nullptr;
    compiler::FragmentEpilogKey key;
    key.layout = pass.tilebuffer();
    auto epilog = compiler::compile_fragment_epilog(key);
    EXPECT_TRUE(epilog.ok());
    if (!epilog.ok()) return nullptr;
    auto linked = compiler::link_fragment(*fs, *epilog);
    EXPECT_TRUE(linked.ok());
    if (!linked.ok()) return nullptr;
    GraphicsPipelineDesc d = desc(vertices);
    d.fragment = ProgramCode{};
    d.fragment.code = linked->code;
    d.fragment.register_halves = linked->stats.gprs;
    d.fragment.uniforms.assign(std::max(fs->abi.uniform_count, compiler::FragmentAbi::kFirstShaderUniform), 0);
    auto states = bind_resources(fs->abi, lookup, d.fragment.uniforms);
    EXPECT_TRUE(states.ok()) << (states.ok() ? "" : states.error().message());
    if (!states.ok()) return nullptr;
    d.fragment.texture_states = states->textures;
    d.fragment.sampler_states = states->samplers;
    d.fragment.extended_samplers = states->extended_samplers;
    const compiler::FragmentAbi& fa = fs->abi.fragment;
    std::vector<varyings::SeparableEntry> entries;
    for (const auto& in : fa.inputs) entries.push_back({0, varyings::CoefficientSource::kVarying, in.cf, 0});
    d.fragment_inputs = std::move(entries);
    d.fragment_w_cf = fa.w_cf;
    return pipeline(std::move(d));
  }
};

// A 2x2 texture of four colours over the whole target: texture
// coordinates 0..1 across it, so texel (x / 32, y / 32) at each pixel.
TEST_F(DrawResourcesTest, TexturedDrawSamplesEveryPixel) {
  layout::Request r;
  r.format = format::Format::R8G8B8A8_UNORM;
  r.width_px = r.height_px = 2;
  r.tiling = layout::Tiling::gpu;
  auto tex = Image::create(*dev, r, "texture");
  ASSERT_TRUE(tex.ok()) << tex.error().message();
  const std::array<std::array<uint8_t, 4>, 4> texels{{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255},
                                                      {255, 255, 0, 128}}};
  ASSERT_TRUE((*tex)->upload({&texels[0][0], 16}, 8).ok());
  Image* rt = image(format::Format::R8G8B8A8_UNORM);
  auto pass = begin(rt);
  ASSERT_TRUE(pass);
  // Colour = texture coordinate: (x / 64, y / 64) at each corner.
  auto corner = [](float x, float y) { return vtx(x, y, {x / kW, y / kH, 0, 1}); };
  const std::vector<Vertex> quad = {corner(0, 0), corner(64, 0), corner(0, 64),
                                    corner(64, 0), corner(64, 64), corner(0, 64)};
  ResourceLookup lookup;
  lookup.image_for = [&](const compiler::ImageBinding& b) -> Result<BoundImage> {
    EXPECT_EQ(b.name, "t");
    return BoundImage{tex->get(), {}};
  };
  const GraphicsPipeline* p = compiled(quad,
                                       "#version 450\nlayout(location = 0) in vec4 c;\n"
                                       "layout(binding = 0) uniform sampler2D t;\nlayout(location = 0) out vec4 o;\n"
                                       "void main() { o = texture(t, c.xy); }\n",
                                       *pass, lookup);
  ASSERT_TRUE(p);
  ASSERT_TRUE(pass->bind_pipeline(*p).ok());
  ASSERT_TRUE(pass->draw(6).ok());
  Status st = pass->end();
  ASSERT_TRUE(st.ok()) << st.error().message();
  expect_pixels(pixels(*rt), [&](uint32_t x, uint32_t y) -> std::optional<std::array<uint8_t, 4>> {
    return texels[(y / 32) * 2 + x / 32];
  });
}

// A triangle whose edges cut quads: every covered pixel counts itself once
// (atomicAdd) and marks its word; helper lanes of the cut quads do neither.
TEST_F(DrawResourcesTest, FragmentShaderWritesABufferOncePerCoveredPixel) {
  auto buffer = dev->create_buffer(4 + kW * kH * 4, "ssbo");
  ASSERT_TRUE(buffer.ok());
  Image* rt = image(format::Format::R8G8B8A8_UNORM);
  auto pass = begin(rt);
  ASSERT_TRUE(pass);
  const std::array<float, 2> a{3, 5}, b{60, 17}, c{21, 58};
  const std::array<float, 4> white{1, 1, 1, 1};
  ResourceLookup lookup;
  lookup.buffer_for = [&](const compiler::Resource& r) -> Result<const Buffer*> {
    EXPECT_EQ(r.kind, compiler::Resource::Kind::storage_buffer);
    EXPECT_EQ(r.binding, 0u);
    return buffer->get();
  };
  const GraphicsPipeline* p =
      compiled({vtx(a[0], a[1], white), vtx(b[0], b[1], white), vtx(c[0], c[1], white)},
               "#version 450\nlayout(location = 0) in vec4 c;\n"
               "layout(std430, binding = 0) buffer B { uint n; uint px[]; };\nlayout(location = 0) out vec4 o;\n"
               "void main() {\n  atomicAdd(n, 1u);\n  px[uint(gl_FragCoord.y) * 64u + uint(gl_FragCoord.x)] += 1u;\n"
               "  o = c;\n}\n",
               *pass, lookup);
  ASSERT_TRUE(p);
  ASSERT_TRUE(pass->bind_pipeline(*p).ok());
  ASSERT_TRUE(pass->draw(3).ok());
  Status st = pass->end();
  ASSERT_TRUE(st.ok()) << st.error().message();
  const uint32_t* words = reinterpret_cast<const uint32_t*>((*buffer)->host().data());
  uint32_t covered = 0;
  for (uint32_t y = 0; y < kH; ++y)
    for (uint32_t x = 0; x < kW; ++x) {
      const bool in = centre_inside(a, b, c, x, y);
      covered += in;
      ASSERT_EQ(words[1 + y * kW + x], in ? 1u : 0u) << "pixel (" << x << ", " << y << ")";
    }
  EXPECT_GT(covered, 500u);
  EXPECT_EQ(words[0], covered);
}

}  // namespace AGX_UNITY_ID

}  // namespace agx::runtime::test
