// A push constant / loose uniform block in memory (runtime/push_memory.h):
// the words past the uniform file go into a buffer whose address lands in
// the named uniform pair, for compute launches and graphics programs.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kmd/kmd.h"
#include "runtime/encoder.h"
#include "runtime/tests/draw_fixture.h"

namespace agx::runtime::test {
namespace AGX_UNITY_ID {

uint64_t pair_at(std::span<const uint32_t> u, uint32_t at) { return u[at] | uint64_t{u[at + 1]} << 32; }

TEST(PushMemory, TheAbiNamesTheBlock) {
  compiler::Abi abi;
  abi.push_constants_uniform = 6;
  abi.push_constants_size_B = 40;
  abi.uniform_count = 16;
  EXPECT_FALSE(push_memory(abi).has_value());  // pushed
  abi.push_memory_uniform = 6;
  abi.push_constants_uniform = compiler::Abi::kPushMemoryFirstWord;
  abi.push_constants_size_B = 1202;  // a partial last word counts
  abi.uniform_count = 8;
  auto m = push_memory(abi);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->address_uniform, 6u);
  EXPECT_EQ(m->first_word, 256u);
  EXPECT_EQ(m->words, 301u);
  EXPECT_EQ(m->file_words, 8u);
  compiler::Shader sh;
  sh.code = {1, 2};
  sh.abi = abi;
  EXPECT_TRUE(shader_launch(sh, {1, 1, 1}).push_memory.has_value());
  EXPECT_TRUE(program_code(sh, {}).push_memory.has_value());
}

TEST(PushMemory, BlockWordsMoveIntoABuffer) {
  auto d = Device::open_in_process();
  ASSERT_TRUE(d.ok()) << d.error().message();
  std::vector<uint32_t> u(256 + 300, 0);
  for (uint32_t i = 0; i < 8; ++i) u[i] = 100 + i;
  for (uint32_t i = 0; i < 300; ++i) u[256 + i] = 0x5000 + i;
  const PushMemory block{4, 256, 310, 8};  // 10 words past the list: zero
  std::unique_ptr<Buffer> b;
  auto file = place_push_memory(**d, u, block, &b, "test block");
  ASSERT_TRUE(file.ok()) << file.error().message();
  ASSERT_EQ(file->size(), 8u);
  ASSERT_TRUE(b);
  EXPECT_EQ(pair_at(*file, 4), b->gpu_va());
  for (uint32_t i : {0u, 1u, 2u, 3u, 6u, 7u}) EXPECT_EQ((*file)[i], 100 + i);
  ASSERT_GE(b->size_B(), 310u * 4);
  std::vector<uint32_t> words(310);
  std::memcpy(words.data(), b->host().data(), 310 * 4);
  for (uint32_t i = 0; i < 310; ++i) EXPECT_EQ(words[i], i < 300 ? 0x5000 + i : 0u) << i;
  // The pair outside the file, or the block over it: errors naming both.
  auto bad = place_push_memory(**d, u, PushMemory{7, 256, 300, 8}, &b, "test block");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("u7_u8 is outside the uniform file of 8 words"), std::string::npos)
      << bad.error().message();
  bad = place_push_memory(**d, u, PushMemory{0, 4, 300, 8}, &b, "test block");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("overlaps the uniform file"), std::string::npos) << bad.error().message();
}

TEST(PushMemory, EncodeLaunchLoadsTheFileAlone) {
  kmd::Device kdev;
  kdev.set_executor(kmd::completing_executor());
  auto d = Device::open(in_process_transport(kdev));
  ASSERT_TRUE(d.ok());
  uint8_t code[8] = {1, 2, 3};
  std::vector<uint32_t> u(256 + 400, 7);
  LaunchDesc l;
  l.code = code;
  l.register_halves = 8;
  l.uniforms = u;
  // Without a block in memory, 656 uniforms are too many; with it the file
  // is u0..u3 and the block a buffer.
  auto e = encode_launch(**d, l);
  ASSERT_FALSE(e.ok());
  l.push_memory = PushMemory{2, 256, 400, 4};
  auto packed = pack_usc_words(l, 0, 0);  // only encode_launch makes the buffer
  ASSERT_FALSE(packed.ok());
  EXPECT_NE(packed.error().message().find("placed by encode_launch"), std::string::npos);
  e = encode_launch(**d, l);
  ASSERT_TRUE(e.ok()) << e.error().message();
  ASSERT_TRUE(e->push_block && e->uniforms);
  std::vector<uint32_t> file(4);
  std::memcpy(file.data(), e->uniforms->host().data(), 16);
  EXPECT_EQ(file[0], 7u);
  EXPECT_EQ(pair_at(file, 2), e->push_block->gpu_va());
  EXPECT_TRUE((*d)->submit_compute(e->command, "dispatch 1").ok());
}

// The fixture's vertex program reads its vertex table from u0_u1: given as
// a block in memory, the table's words are the block and the runtime puts
// its address there.
TEST_F(DrawTest, VertexBlockInMemoryIsDrawn) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM);
  ASSERT_TRUE(rt);
  const std::vector<Vertex> quad = rect(8, 8, 24, 40, {0, 1, 0, 1});
  GraphicsPipelineDesc d = desc(quad);  // its table's address is not given below
  const uint32_t words = uint32_t(quad.size() * sizeof(Vertex) / 4);
  d.vertex.uniforms.assign(256 + words, 0);
  std::memcpy(d.vertex.uniforms.data() + 256, quad.data(), words * 4);
  d.vertex.push_memory = PushMemory{0, 256, words, 2};
  const GraphicsPipeline* p = pipeline(std::move(d));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->desc().vertex.uniforms.size(), 2u);  // the file the VDM State loads
  auto pass = begin(rt);
  ASSERT_TRUE(pass);
  ASSERT_TRUE(pass->bind_pipeline(*p).ok());
  ASSERT_TRUE(pass->draw(6).ok());
  Status st = pass->end();
  ASSERT_TRUE(st.ok()) << st.error().message();
  expect_pixels(pixels(*rt), [](uint32_t x, uint32_t y) -> std::optional<std::array<uint8_t, 4>> {
    if (x >= 8 && x < 24 && y >= 8 && y < 40) return std::array<uint8_t, 4>{0, 255, 0, 255};
    return std::nullopt;
  });
  // A pair outside the file: the pipeline is refused, named.
  GraphicsPipelineDesc bad = desc(quad);
  bad.vertex.uniforms.assign(256 + words, 0);
  bad.vertex.push_memory = PushMemory{2, 256, words, 2};
  auto refused = GraphicsPipeline::create(*dev, std::move(bad));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("vertex program: push constant block"), std::string::npos)
      << refused.error().message();
}

}  // namespace AGX_UNITY_ID
}  // namespace agx::runtime::test
