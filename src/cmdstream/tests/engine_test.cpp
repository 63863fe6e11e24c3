// The field engine on each kind of field: bit placement (against words
// computed by hand from cmdbuf.xml's positions), every modifier and type,
// range errors naming struct and field, and unknown-bit reporting.
#include <gtest/gtest.h>

#include <cmath>

#include "cmdstream/cmdstream.h"
#include "util/hex.h"

namespace agx::cmdstream {
namespace AGX_UNITY_ID {

std::vector<uint8_t> le32(uint32_t w) {
  return {uint8_t(w), uint8_t(w >> 8), uint8_t(w >> 16), uint8_t(w >> 24)};
}

std::string error_of(Result<std::vector<uint8_t>> r) {
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().message();
}

TEST(Engine, CdmLaunchWord0ByHand) {
  CdmLaunchWord0 w;
  w.uniform_register_count = 128;       // 2 groups of 64 at bit 1
  w.texture_state_register_count = 8;   // 1 group of 8 at bit 4
  w.sampler_state_register_count = SamplerStates::k8Extended;  // 6 at bit 9
  w.preshader_register_count = 16;      // 1 group of 16 at bit 12
  w.mode = CdmMode::kIndirectGlobal;    // 1 at bit 27
  auto b = pack(w);
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_EQ(*b, le32(2u << 1 | 1u << 4 | 6u << 9 | 1u << 12 | 1u << 27));
  auto back = unpack<CdmLaunchWord0>(*b);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, w);
  EXPECT_EQ(back->block_type, CdmBlockType::kLaunch);
}

TEST(Engine, ExactTagsAreFilledIn) {
  // Defaults pack to nothing but the exact fields.
  EXPECT_EQ(to_hex(*pack(UscPreshader{})), "380080c000000000");  // tag 0x38, Unk 0xc08000
  EXPECT_EQ(to_hex(*pack(CdmStreamTerminate{})), "0000004000000000");  // block type 2 at bit 29
  EXPECT_EQ(to_hex(*pack(VdmStreamTerminate{})).substr(0, 8), "000000c0");  // 6 at bit 29
  EXPECT_EQ(to_hex(*pack(CdmUnkG14x{})), "0000000000000040");  // bit 1:30
  EXPECT_EQ(to_hex(*pack(UscUniformHigh{})), "3d00000000000000");
  UscShared s;
  s.tag = UscControl::kTexture;
  EXPECT_NE(error_of(pack(s)).find("USC Shared: field 'Tag' (8 bits at bit 0): must be exactly Shared (77), got 221"),
            std::string::npos)
      << error_of(pack(s));
}

TEST(Engine, SixAndTwoByteStructs) {
  UscShader s;
  s.loads_varyings = true;
  s.code = 0x12345678;
  auto b = pack(s);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(to_hex(*b), "0d0178563412");  // tag, bit 8, then Code at bit 16
  EXPECT_EQ(unpack<UscShader>(*b)->code, 0x12345678u);
  EXPECT_EQ(to_hex(*pack(UscNoPreshader{})), "8800");
  EXPECT_FALSE(unpack<UscShader>(std::vector<uint8_t>(5)).ok());  // short buffer
}

TEST(Engine, MinusShrLog2) {
  Texture t;
  t.width = 1;                 // minus(1): stores 0
  t.height = 16384;            // 14 bits: stores 0x3fff
  t.address = 0x123450;        // shr(4) at bit 66
  t.channels = Channels::R8G8B8A8;
  t.swizzle_g = Channel::kG;
  auto b = pack(t);
  ASSERT_TRUE(b.ok()) << b.error().message();
  auto u = *unpack<Texture>(*b);
  EXPECT_EQ(u.width, 1u);
  EXPECT_EQ(u.height, 16384u);
  EXPECT_EQ(u.address, 0x123450u);
  EXPECT_EQ(u.channels, Channels::R8G8B8A8);
  // Height 0x3fff sits at bits 42..55: word 1 bits 10..23.
  EXPECT_EQ((*b)[5] | (*b)[6] << 8, 0x3fff << 2);

  t.width = 0;
  EXPECT_NE(error_of(pack(t)).find("Texture: field 'Width' (14 bits at bit 28): 0 is below the minimum 1"),
            std::string::npos);
  t.width = 16385;
  EXPECT_NE(error_of(pack(t)).find("Texture: field 'Width'"), std::string::npos);
  t.width = 4;
  t.address = 0x123458;
  EXPECT_NE(error_of(pack(t)).find("field 'Address' (36 bits at bit 66): 0x123458 is not a multiple of 16"),
            std::string::npos);

  Sampler s;
  s.maximum_anisotropy = 16;  // log2 4 at bit 20
  EXPECT_EQ(to_hex(*pack(s)), "0000400000000000");
  s.maximum_anisotropy = 3;
  EXPECT_NE(error_of(pack(s)).find("Sampler: field 'Maximum anisotropy' (3 bits at bit 20): 3 is not a power of two"),
            std::string::npos);
}

TEST(Engine, Groups) {
  const StructDesc& d = kCdmLaunchWord0;
  const FieldDesc& f = d.fields[size_t(CdmLaunchWord0Field::uniform_register_count)];
  EXPECT_EQ(*encode_field(d, f, 64), 1u);
  EXPECT_EQ(*encode_field(d, f, 65), 2u);    // rounded up to whole groups
  EXPECT_EQ(*encode_field(d, f, 0), 1u);     // none is packed as one group
  EXPECT_EQ(*encode_field(d, f, 448), 7u);
  EXPECT_EQ(*encode_field(d, f, 512), 0u);   // 8 groups: all, stored as 0
  EXPECT_FALSE(encode_field(d, f, 513).ok());
  EXPECT_EQ(decode_field(f, 0), 512u);
  EXPECT_EQ(decode_field(f, 3), 192u);
  EXPECT_EQ(default_value(f), 512u);  // the value whose bits are zero
}

TEST(Engine, LodAndHalf) {
  Sampler s;
  s.minimum_lod = 1.5f;    // 4:6 fixed point: 96
  s.maximum_lod = 14.0f;   // 0x380
  auto b = *pack(s);
  uint32_t w0 = b[0] | b[1] << 8 | b[2] << 16 | uint32_t(b[3]) << 24;
  EXPECT_EQ(w0 & 0x3ff, 96u);
  EXPECT_EQ((w0 >> 10) & 0x3ff, 0x380u);
  s.minimum_lod = 0.01f;  // truncated toward zero
  EXPECT_EQ(unpack<Sampler>(*pack(s))->minimum_lod, 0.0f);
  s.minimum_lod = -1.0f;
  EXPECT_NE(error_of(pack(s)).find("Sampler: field 'Minimum LOD' (10 bits at bit 0): -1 is negative"),
            std::string::npos);
  s.minimum_lod = 16.0f;
  EXPECT_NE(error_of(pack(s)).find("above the largest level of detail 15.98"), std::string::npos);

  VdmStateTessellationScale t;
  t.scale = 1.0f;
  EXPECT_EQ(to_hex(*pack(t)), "003c0000");
  t.scale = 0.1f;  // rounded to the nearest half
  EXPECT_EQ(unpack<VdmStateTessellationScale>(*pack(t))->scale, 0.0999755859375f);
  t.scale = 1e6f;
  EXPECT_NE(error_of(pack(t)).find("out of the half-float range"), std::string::npos);
  t.scale = NAN;
  EXPECT_TRUE(std::isnan(unpack<VdmStateTessellationScale>(*pack(t))->scale));
}

TEST(Engine, BoolsAndEnumsOutOfRange) {
  const StructDesc& d = kPbe;
  // The PBE swizzle is 2 bits of the 3-bit Channel enum: "0" (5) does not fit.
  Pbe p;
  p.swizzle_r = Channel::k0;
  EXPECT_NE(error_of(pack(p)).find("PBE: field 'Swizzle R' (2 bits at bit 16): 5 does not fit"),
            std::string::npos);
  const FieldDesc& b = d.fields[size_t(PbeField::srgb)];
  EXPECT_FALSE(encode_field(d, b, 2).ok());
  EXPECT_EQ(*encode_field(d, b, 1), 1u);
}

TEST(Engine, UnknownBitsAreReportedNotRefused) {
  // Sparse block: bits 26..29 belong to no field.
  auto u = unpack(kSparseBlock, le32(0x84000001));
  ASSERT_TRUE(u.ok());
  EXPECT_TRUE(u->has_unknown_bits);
  EXPECT_EQ(to_hex(u->unknown_bits), "00000004");
  EXPECT_EQ(u->values[0], 1u << 14);  // Address, shr(14)
  EXPECT_EQ(u->values[2], 1u);        // Enabled
  auto clean = unpack(kSparseBlock, le32(0xc0000001));
  EXPECT_FALSE(clean->has_unknown_bits);
  EXPECT_EQ(to_hex(clean->unknown_bits), "00000000");
  // A struct without fields: every set bit is unknown.
  auto v2 = unpack(kVarying2, std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(to_hex(v2->unknown_bits), "0102030405060708");
  EXPECT_FALSE(check_strict(kSparseBlock, le32(0x84000001)).ok());
  EXPECT_TRUE(check_strict(kSparseBlock, le32(0xc0000001)).ok());
}

TEST(Engine, UnnamedEnumAndWrongExactStillDecode) {
  // CDM Launch Word 0 with Mode 3 (unnamed) and block type Barrier (3).
  auto u = unpack(kCdmLaunchWord0, le32(3u << 27 | 3u << 29));
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->values[size_t(CdmLaunchWord0Field::mode)], 3u);
  ASSERT_EQ(u->exact_mismatches.size(), 1u);
  EXPECT_EQ(print(kCdmLaunchWord0, *u).find("Mode: unknown 3") != std::string::npos, true);
  EXPECT_NE(print(kCdmLaunchWord0, *u).find("Block Type: Barrier (expected Launch)"), std::string::npos);
  auto typed = unpack<CdmLaunchWord0>(le32(3u << 27));
  EXPECT_EQ(uint32_t(typed->mode), 3u);
}

TEST(Engine, OverlappingReadings) {
  // Texture: Stride (shr 4) and Depth (minus 1) share bit 110; both read.
  Texture t;
  t.depth = 6;  // stores 5
  auto b = *pack(t);
  auto u = *unpack<Texture>(b);
  EXPECT_EQ(u.depth, 6u);
  EXPECT_EQ(u.stride, 5u << 4);
  // Packing both readings ORs them, as the driver does.
  t.stride = 2u << 4;
  EXPECT_EQ(unpack<Texture>(*pack(t))->depth, 8u);  // (5 | 2) + 1
}

TEST(Engine, StraddlingAndWideFields) {
  // USC Uniform Buffer: 38 bits at 26, straddling both words.
  UscUniform u;
  u.buffer = (uint64_t{1} << 40) - 4;
  u.size_halfs = 64;  // all groups: stored 0
  u.start_halfs = 255;
  auto b = pack(u);
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_EQ(*unpack<UscUniform>(*b), u);
  EXPECT_EQ(to_hex(*b), "1dff00fcffffffff");
  // PBE Acceleration buffer: 64 bits at 128 with shr(4).
  Pbe p;
  p.acceleration_buffer = 0xfffffffffffffff0ull;
  EXPECT_EQ(unpack<Pbe>(*pack(p))->acceleration_buffer, 0xfffffffffffffff0ull);
}

// Mesa src/asahi/lib/agx_usc.h asserts that the USC Uniform, Uniform High,
// Texture and Sampler words have one length (they share a slot count).
static_assert(UscUniformHigh::kSize_B == UscUniform::kSize_B &&
              UscTexture::kSize_B == UscUniform::kSize_B && UscSampler::kSize_B == UscUniform::kSize_B);

TEST(Engine, FindByName) {
  ASSERT_NE(find_struct("CDM Launch Word 0"), nullptr);
  EXPECT_EQ(find_struct("cdm launch word 0"), &kCdmLaunchWord0);
  EXPECT_EQ(find_struct("Index List: Count"), &kIndexListCount);
  EXPECT_EQ(find_struct("No such"), nullptr);
  EXPECT_EQ(find_enum("Channels")->values.size(), 48u);
  EXPECT_EQ(to_string(CdmMode::kIndirectLocal), "Indirect local");
  EXPECT_EQ(to_string(Channels::R32G32B32_EMULATED), "R32G32B32 (Emulated)");
}

}  // namespace
}  // namespace agx::cmdstream
