// The launch encoding, read back with the cmdstream typed tables.
#include <gtest/gtest.h>

#include <cstring>

#include "cmdstream/cmdstream.h"
#include "kmd/kmd.h"
#include "runtime/encoder.h"

namespace agx::runtime {
namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;

LaunchDesc launch(std::span<const uint8_t> code, std::span<const uint32_t> uniforms) {
  LaunchDesc l;
  l.code = code;
  l.uniforms = uniforms;
  l.register_halves = 10;
  l.threadgroup_memory_B = 300;
  l.groups = {2, 3, 1};
  l.local = {5, 2, 1};
  return l;
}

TEST(Encoder, CdmStream) {
  uint8_t code[8] = {};
  uint32_t u[6] = {};
  auto s = pack_cdm_launch(launch(code, u), 0x4040);
  ASSERT_TRUE(s.ok()) << s.error().message();
  std::span<const uint8_t> b(*s);
  ASSERT_EQ(b.size(), 4u + 4 + 12 + 12 + 8);
  auto w0 = cs::unpack<cs::CdmLaunchWord0>(b);
  ASSERT_TRUE(w0.ok());
  EXPECT_EQ(w0->block_type, cs::CdmBlockType::kLaunch);
  EXPECT_EQ(w0->mode, cs::CdmMode::kDirect);
  EXPECT_EQ(w0->uniform_register_count, 64u);  // 12 halves, in groups of 64
  EXPECT_EQ(cs::unpack<cs::CdmLaunchWord1>(b.subspan(4))->pipeline, 0x4040u);
  auto g = cs::unpack<cs::CdmGlobalSize>(b.subspan(8));
  EXPECT_EQ(g->x, 10u);  // threads: 2 groups of 5
  EXPECT_EQ(g->y, 6u);
  auto l = cs::unpack<cs::CdmLocalSize>(b.subspan(20));
  EXPECT_EQ(l->x, 5u);
  EXPECT_EQ(cs::unpack<cs::CdmStreamTerminate>(b.subspan(32))->block_type, cs::CdmBlockType::kStreamTerminate);
}

TEST(Encoder, UscWordsSplitUniforms) {
  uint8_t code[8] = {};
  std::vector<uint32_t> u(140);  // u0..u139: 32+32+32+32 low, then 12 high
  auto w = pack_usc_words(launch(code, u), 0x8000, 0x2'0000'0000);
  ASSERT_TRUE(w.ok()) << w.error().message();
  std::span<const uint8_t> b(*w);
  for (int i = 0; i < 4; ++i) {
    auto uw = cs::unpack<cs::UscUniform>(b.subspan(8 * i));
    ASSERT_TRUE(uw.ok());
    EXPECT_EQ(uw->tag, cs::UscControl::kUniform);
    EXPECT_EQ(uw->start_halfs, 64u * i);
    EXPECT_EQ(uw->size_halfs, 64u);
    EXPECT_EQ(uw->buffer, 0x2'0000'0000u + 128u * i);
  }
  auto hi = cs::unpack<cs::UscUniformHigh>(b.subspan(32));
  EXPECT_EQ(hi->tag, cs::UscControl::kUniformHigh);
  EXPECT_EQ(hi->start_halfs, 0u);
  EXPECT_EQ(hi->size_halfs, 24u);
  EXPECT_EQ(hi->buffer, 0x2'0000'0000u + 128u * 4);
  auto sh = cs::unpack<cs::UscShared>(b.subspan(40));
  EXPECT_TRUE(sh->uses_shared_memory);
  EXPECT_EQ(sh->bytes_per_threadgroup, 512u);  // 300 B in groups of 256
  auto shader = cs::unpack<cs::UscShader>(b.subspan(44));
  EXPECT_EQ(shader->code, 0x8000u);
  auto regs = cs::unpack<cs::UscRegisters>(b.subspan(50));
  EXPECT_EQ(regs->register_count, 16u);  // 10 halves in groups of 8
  EXPECT_EQ(cs::unpack<cs::UscNoPreshader>(b.subspan(54))->tag, cs::UscControl::kNoPreshader);
  EXPECT_EQ(b.size(), 56u);
}

TEST(Encoder, LimitsAreErrors) {
  uint8_t code[8] = {};
  std::vector<uint32_t> u(257);
  EXPECT_FALSE(pack_usc_words(launch(code, u), 0, 0).ok());
  auto l = launch(code, std::span<const uint32_t>());
  l.local = {33, 32, 1};
  EXPECT_FALSE(pack_cdm_launch(l, 0).ok());
  l = launch(code, std::span<const uint32_t>());
  l.threadgroup_memory_B = 65537;
  EXPECT_FALSE(pack_cdm_launch(l, 0).ok());
  l = launch({}, std::span<const uint32_t>());
  EXPECT_FALSE(pack_cdm_launch(l, 0).ok());
}

// Texture and sampler state descriptors: USC Texture / USC Sampler words
// after the uniforms, and their counts in Launch Word 0.
TEST(Encoder, TextureAndSamplerStates) {
  uint8_t code[8] = {};
  uint32_t u[2] = {};
  std::vector<uint8_t> textures(3 * 24), samplers(2 * 8);
  LaunchDesc l = launch(code, u);
  l.texture_states = textures;
  l.sampler_states = samplers;
  auto w = pack_usc_words(l, 0x8000, 0x2'0000'0000, 0x3'0000'0000, 0x4'0000'0000);
  ASSERT_TRUE(w.ok()) << w.error().message();
  std::span<const uint8_t> b(*w);
  auto t = cs::unpack<cs::UscTexture>(b.subspan(8));
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->start, 0u);
  EXPECT_EQ(t->count, 3u);
  EXPECT_EQ(t->buffer, 0x3'0000'0000u);
  auto s = cs::unpack<cs::UscSampler>(b.subspan(16));
  ASSERT_TRUE(s.ok()) << s.error().message();
  EXPECT_EQ(s->count, 2u);
  EXPECT_EQ(s->buffer, 0x4'0000'0000u);
  auto c = pack_cdm_launch(l, 0);
  ASSERT_TRUE(c.ok());
  auto w0 = cs::unpack<cs::CdmLaunchWord0>(*c);
  EXPECT_EQ(w0->texture_state_register_count, 8u);  // groups of 8
  EXPECT_EQ(w0->sampler_state_register_count, cs::SamplerStates::k4Compact);
  // 17 samplers do not fit a compute launch; a partial descriptor is refused.
  std::vector<uint8_t> many(17 * 8), partial(30);
  l.sampler_states = many;
  EXPECT_FALSE(pack_usc_words(l, 0, 0).ok());
  l.sampler_states = {};
  l.texture_states = partial;
  EXPECT_FALSE(pack_cdm_launch(l, 0).ok());
}

// The fields Mesa sets and a LaunchDesc does not choose: Shared without
// threadgroup memory (agx_usc_shared_none: 65536 bytes, not used), Shader
// Unk 2 = 3 and Registers Unk 4 = 1 (agx_linker.c, a non-fragment shader).
TEST(Encoder, FieldsAsMesaPacksThem) {
  uint8_t code[8] = {};
  uint32_t u[2] = {};
  LaunchDesc l = launch(code, u);
  l.threadgroup_memory_B = 0;
  auto w = pack_usc_words(l, 0x8000, 0x2'0000'0000);
  ASSERT_TRUE(w.ok()) << w.error().message();
  std::span<const uint8_t> b(*w);
  auto sh = cs::unpack<cs::UscShared>(b.subspan(8));
  ASSERT_TRUE(sh.ok()) << sh.error().message();
  EXPECT_FALSE(sh->uses_shared_memory);
  EXPECT_EQ(sh->layout, cs::SharedLayout::kVertexCompute);
  EXPECT_EQ(sh->bytes_per_threadgroup, 65536u);
  auto shader = cs::unpack<cs::UscShader>(b.subspan(12));
  ASSERT_TRUE(shader.ok());
  EXPECT_EQ(shader->unk_2, 3u);
  EXPECT_FALSE(shader->loads_varyings);
  auto regs = cs::unpack<cs::UscRegisters>(b.subspan(18));
  ASSERT_TRUE(regs.ok());
  EXPECT_EQ(regs->unk_4, 1u);
  EXPECT_FALSE(regs->unk_1);
}

// The packers under encode_launch take words as given: indirect modes, a
// preshader, the barrier and the terminate (what the gpu tests build with).
TEST(Encoder, IndirectLaunchesBarrierAndTerminate) {
  std::vector<uint8_t> s;
  CdmLaunch c;
  c.pipeline_usc = 0x1040;
  c.uniform_count = 3;
  c.preshader_register_halves = 20;
  c.mode = cs::CdmMode::kIndirectGlobal;
  c.indirect = 0x12'3456'7880;
  c.local = {64, 2, 1};
  ASSERT_TRUE(push_cdm_launch(s, c));
  ASSERT_EQ(s.size(), 4u + 4 + 8 + 12);  // Indirect replaces Global size
  auto w0 = cs::unpack<cs::CdmLaunchWord0>(s);
  EXPECT_EQ(w0->mode, cs::CdmMode::kIndirectGlobal);
  EXPECT_EQ(w0->preshader_register_count, 32u);  // groups of 16
  auto ind = cs::unpack<cs::CdmIndirect>(std::span<const uint8_t>(s).subspan(8));
  EXPECT_EQ(ind->address_hi, 0x12u);
  EXPECT_EQ(ind->address_lo, 0x3456'7880u);
  EXPECT_EQ(cs::unpack<cs::CdmLocalSize>(std::span<const uint8_t>(s).subspan(16))->y, 2u);
  s.clear();
  c.mode = cs::CdmMode::kIndirectLocal;  // the sizes come from memory: no Local size
  ASSERT_TRUE(push_cdm_launch(s, c));
  EXPECT_EQ(s.size(), 4u + 4 + 8);
  ASSERT_TRUE(push_cdm_barrier(s));
  auto bar = cs::unpack<cs::CdmBarrier>(std::span<const uint8_t>(s).subspan(16));
  ASSERT_TRUE(bar.ok());
  EXPECT_TRUE(bar->usc_cache_inval && bar->unk_0 && bar->unk_19);
  EXPECT_FALSE(bar->unk_20 || bar->returns);
  ASSERT_TRUE(push_cdm_terminate(s));
  EXPECT_EQ(cs::unpack<cs::CdmStreamTerminate>(std::span<const uint8_t>(s).subspan(20))->block_type,
            cs::CdmBlockType::kStreamTerminate);
  // A word list with a preshader ends with it; nothing is checked here.
  UscWordList w;
  w.code_usc = 0x100;
  w.register_halves = 0;  // encode_launch would refuse it
  w.preshader_usc = 0x200;
  auto words = pack_usc_words(w);
  ASSERT_TRUE(words.ok()) << words.error().message();
  auto pre = cs::unpack<cs::UscPreshader>(std::span<const uint8_t>(*words).subspan(words->size() - 8));
  ASSERT_TRUE(pre.ok());
  EXPECT_EQ(pre->code, 0x200u);
}

// A fragment-side word list (background / end of tile) carries the
// tilebuffer's Shared word as given; a render command's VDM stream ends
// with the VDM Stream Terminate.
TEST(Encoder, TileSharedWordAndVdmTerminate) {
  UscWordList w;
  w.code_usc = 0x140;
  w.register_halves = 16;
  cs::UscShared tile;
  tile.uses_shared_memory = true;
  tile.layout = cs::SharedLayout::k32x32;
  tile.sample_count = 4;
  tile.sample_stride_in_8_bytes = 2;
  tile.bytes_per_threadgroup = 16384;
  w.tile_shared = tile;
  auto words = pack_usc_words(w);
  ASSERT_TRUE(words.ok()) << words.error().message();
  auto sh = cs::unpack<cs::UscShared>(*words);
  ASSERT_TRUE(sh.ok()) << sh.error().message();
  EXPECT_EQ(sh->layout, cs::SharedLayout::k32x32);
  EXPECT_EQ(sh->sample_count, 4u);
  EXPECT_EQ(sh->sample_stride_in_8_bytes, 2u);
  EXPECT_TRUE(sh->uses_shared_memory);
  std::vector<uint8_t> s;
  ASSERT_TRUE(push_vdm_terminate(s));
  auto t = cs::unpack<cs::VdmStreamTerminate>(s);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(s.size(), 32u);  // read whole (docs/gpu.md "The VDM stream")
}

TEST(Encoder, ShaderLaunchTakesWhatTheCompilerReports) {
  compiler::Shader sh;
  sh.code = {1, 2, 3, 4};
  sh.preamble = {5, 6};
  sh.stats.gprs = 24;
  sh.stats.preamble_gprs = 8;
  sh.stats.scratch_B = 64;
  sh.abi.threadgroup_memory_B = 512;
  sh.abi.workgroup_size = {8, 4, 2};
  LaunchDesc l = shader_launch(sh, {3, 2, 1});
  EXPECT_EQ(l.code.data(), sh.code.data());
  EXPECT_EQ(l.code.size(), 4u);
  EXPECT_EQ(l.preamble.size(), 2u);
  EXPECT_EQ(l.register_halves, 24u);
  EXPECT_EQ(l.preamble_register_halves, 8u);
  EXPECT_EQ(l.scratch_B, 64u);
  EXPECT_EQ(l.threadgroup_memory_B, 512u);
  EXPECT_EQ(l.groups, (std::array<uint32_t, 3>{3, 2, 1}));
  EXPECT_EQ(l.local, (std::array<uint32_t, 3>{8, 4, 2}));
  EXPECT_TRUE(l.uniforms.empty());
}

TEST(Encoder, EncodesIntoDeviceBuffers) {
  // The code is not a kernel: the firmware only completes the command.
  kmd::Device kdev;
  kdev.set_executor(kmd::completing_executor());
  auto d = Device::open(in_process_transport(kdev));
  ASSERT_TRUE(d.ok());
  uint8_t code[8] = {1, 2, 3};
  uint32_t u[2] = {7, 8};
  auto e = encode_launch(**d, launch(code, u));
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->code->host()[2], 3);
  EXPECT_EQ(e->command.cdm_ctrl_stream_base, e->stream->gpu_va());
  EXPECT_EQ(e->command.cdm_ctrl_stream_end - e->command.cdm_ctrl_stream_base, 40u);
  auto w1 = cs::unpack<cs::CdmLaunchWord1>(e->stream->host().subspan(4));
  EXPECT_EQ(w1->pipeline + (*d)->va_layout().usc_base, e->usc_words->gpu_va());
  // The submit goes through the UAPI (the in-process firmware completes it).
  auto st = (*d)->submit_compute(e->command, "dispatch 1");
  EXPECT_TRUE(st.ok()) << st.error().message();
}

// Scratch (docs/runtime.md): the spill size bucket of Mesa's
// agx_scratch_get_bucket in the Registers word, and a helper program with
// its header in the command.
TEST(Encoder, ScratchSetsTheSpillBucketAndTheHelper) {
  // Bucket b holds 8 << (b - 1) words: 32 bytes in bucket 1, 64 in 2 ...
  EXPECT_EQ(spill_size_bucket(0), 0u);
  EXPECT_EQ(spill_size_bucket(4), 1u);
  EXPECT_EQ(spill_size_bucket(32), 1u);
  EXPECT_EQ(spill_size_bucket(36), 2u);
  EXPECT_EQ(spill_size_bucket(64), 2u);
  EXPECT_EQ(spill_size_bucket(65), 3u);
  EXPECT_EQ(spill_size_bucket(16384), 10u);
  EXPECT_EQ(spill_size_bucket(512 * 1024), 15u);
  uint8_t code[8] = {};
  uint32_t u[2] = {};
  LaunchDesc l = launch(code, u);
  l.scratch_B = 200;
  auto w = pack_usc_words(l, 0x8000, 0x2'0000'0000);
  ASSERT_TRUE(w.ok()) << w.error().message();
  auto regs = cs::unpack<cs::UscRegisters>(std::span<const uint8_t>(*w).subspan(w->size() - 6));
  ASSERT_TRUE(regs.ok());
  EXPECT_EQ(regs->spill_size, 4u);  // 50 words: up to 64
  l.scratch_B = kMaxScratch_B + 4;
  auto too_big = pack_usc_words(l, 0, 0);
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.error().message().find("bytes of scratch per thread"), std::string::npos);

  kmd::Device kdev;
  kdev.set_executor(kmd::completing_executor());
  auto d = Device::open(in_process_transport(kdev));
  ASSERT_TRUE(d.ok());
  l.scratch_B = 200;
  auto e = encode_launch(**d, l);
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->command.helper.binary & 1u, 1u);  // tagged USC address
  EXPECT_EQ((e->command.helper.binary & ~1u) + (*d)->va_layout().usc_base, e->helper_code->gpu_va());
  EXPECT_EQ(e->command.helper.data, e->helper_data->gpu_va());
  uint32_t subgroups = 0;
  std::memcpy(&subgroups, e->helper_data->host().data(), 4);
  EXPECT_EQ(subgroups, kHelperSubgroups);
  // Without scratch: no helper.
  l.scratch_B = 0;
  e = encode_launch(**d, l);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->command.helper.binary, 0u);
  EXPECT_EQ(e->command.helper.data, 0u);
}

}  // namespace
}  // namespace agx::runtime
