// device_load with the packed formats against vectors computed by hand from
// dougallj/applegpu applegpu.py (commit 4c5bae61):
// DeviceLoadInstructionDesc.exec_thread (address, mask, registers),
// decode_float11 / decode_float10 and its rgb9e5 rule, and
// MaskedInstructionDesc.exec, which runs exec_thread only for active lanes.
// These are the loads Mesa's vertex fetch emits (agx_compile.c).
#include <cstring>

#include "usc/tests/helpers.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

constexpr uint64_t kBase = 0x30000;

// device_load F, mask, data r20 (32-bit) or r20l (16-bit), base r10_r11,
// offset r12 (signed) shifted by s.
std::vector<uint8_t> load(uint32_t f, uint32_t mask, bool r32, uint32_t s = 0) {
  return enc(Opcode::device_load, {{"F", f}, {"mask", mask}, {"Rt", r32}, {"R", 40}, {"At", 0}, {"A", 20},
                                   {"Ot", 0}, {"O", 24}, {"Ou", 0}, {"s", s}});
}

struct Rig {
  RegionMemory mem;
  Core c = make_core();
  // 64 bytes at kBase; words: 0 at +0, then `words` from +4.
  explicit Rig(std::initializer_list<uint32_t> words, uint64_t base_reg = kBase, uint32_t offset = 1) {
    std::vector<uint8_t> bytes(64, 0);
    size_t at = 4;
    for (uint32_t w : words) {
      std::memcpy(bytes.data() + at, &w, 4);
      at += 4;
    }
    EXPECT_TRUE(mem.map(kBase, bytes).ok());
    c.exec = 1;  // lane 0 only
    c.r[10][0] = uint32_t(base_reg);
    c.r[11][0] = uint32_t(base_reg >> 32);
    c.r[12][0] = offset;
  }
  Status run(const std::vector<uint8_t>& code) { return run_code(code, c, {&mem}); }
};

// rgb9e5 word: exponent 20 (2^(20-15) = 32), mantissas 384, 128, 256 (of
// 512): 24.0, 8.0, 16.0. The base 0x30002 rounds down to 0x30000 (applegpu:
// address &= ~3 for a bit-packed format), the offset 1 counts words (shift
// forced to 2, the instruction's s = 3 ignored), and the mask (x only) is
// ignored: three registers.
TEST(ApplegpuPacked, Rgb9e5UnalignedBaseWordOffsetIgnoresShiftAndMask) {
  const uint32_t word = 20u << 27 | 256u << 18 | 128u << 9 | 384u;
  Rig r32({word}, kBase + 2);
  ASSERT_TRUE(r32.run(load(13, 0b0001, true, 3)).ok());
  EXPECT_EQ(r32.c.r[20][0], 0x41C00000u);  // 24.0f
  EXPECT_EQ(r32.c.r[21][0], 0x41000000u);  // 8.0f
  EXPECT_EQ(r32.c.r[22][0], 0x41800000u);  // 16.0f
  EXPECT_EQ(r32.c.r[23][0], 0u);           // a fourth register is not written
  Rig r16({word}, kBase + 3);
  ASSERT_TRUE(r16.run(load(13, 0b1111, false)).ok());
  EXPECT_EQ(r16.c.r16(40, 0), 0x4E00u);  // 24.0 as f16
  EXPECT_EQ(r16.c.r16(41, 0), 0x4800u);  // 8.0
  EXPECT_EQ(r16.c.r16(42, 0), 0x4C00u);  // 16.0
}

// rg11b10f: r = float11 exponent 15 mantissa 0 (1.0), g = exponent 16
// mantissa 32 ((64 + 32) / 64 * 2 = 3.0), b = float10 exponent 14 mantissa
// 16 ((32 + 16) / 32 / 2 = 0.75). A negative offset (-1 from base + 8)
// reaches the word at +4.
TEST(ApplegpuPacked, Rg11b10fNegativeOffset) {
  const uint32_t word = (14u << 5 | 16u) << 22 | (16u << 6 | 32u) << 11 | 15u << 6;
  ASSERT_EQ(word, 0x742103C0u);
  Rig r({word}, kBase + 8, uint32_t(-1));
  ASSERT_TRUE(r.run(load(12, 0b0000, true)).ok());  // the mask is ignored, even when empty
  EXPECT_EQ(r.c.r[20][0], 0x3F800000u);  // 1.0f
  EXPECT_EQ(r.c.r[21][0], 0x40400000u);  // 3.0f
  EXPECT_EQ(r.c.r[22][0], 0x3F400000u);  // 0.75f
  Rig h({word}, kBase + 8, uint32_t(-1));
  ASSERT_TRUE(h.run(load(12, 0b0010, false)).ok());
  EXPECT_EQ(h.c.r16(40, 0), 0x3C00u);
  EXPECT_EQ(h.c.r16(41, 0), 0x4200u);
  EXPECT_EQ(h.c.r16(42, 0), 0x3A00u);
}

// MaskedInstructionDesc.exec runs no lane when none is active: an
// undefined format, registers past r127 and i32 data in 16-bit registers
// then do nothing; with one lane active each one fails.
TEST(ApplegpuPacked, RefusalsOnlyWhenALaneRuns) {
  const std::vector<std::vector<uint8_t>> refused = {
      load(9, 0b0001, true),   // undefined format 9
      load(11, 0b0011, false),  // undefined format 11
      enc(Opcode::device_load, {{"F", 13}, {"mask", 1}, {"Rt", 1}, {"R", 252}, {"A", 20}, {"O", 24}}),  // r126..r128
      enc(Opcode::device_load, {{"F", 8}, {"mask", 0}, {"Rt", 0}, {"R", 254}, {"A", 20}, {"O", 24}}),   // r127h..
      load(2, 0b0000, false),  // i32 into 16-bit registers: illegal even with an empty mask
      load(2, 0b0001, false),
  };
  for (const auto& code : refused) {
    Rig idle({0});
    idle.c.exec = 0;
    Core before = idle.c;
    ASSERT_TRUE(idle.run(code).ok());
    EXPECT_EQ(idle.c.r, before.r);
    Rig one({0});
    Status st = one.run(code);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().kind(), ErrorKind::unsupported);
    EXPECT_NE(st.error().message().find("pc 0x0: device_load: "), std::string::npos) << st.error().message();
  }
  Rig one({0});
  Status st = one.run(load(9, 0b0001, true));
  EXPECT_NE(st.error().message().find("undefined memory format 9"), std::string::npos);
  st = one.run(load(2, 0b0000, false));
  EXPECT_NE(st.error().message().find("i32 data in 16-bit registers is an illegal instruction"), std::string::npos);
}

// rg11b10f.rtz and rgb9e5.rtz (14, 15) are not in applegpu's bit-packed
// set: with an empty mask it reads no element and writes no register.
TEST(ApplegpuPacked, RtzFormatsWithAnEmptyMaskLoadNothing) {
  for (uint32_t f : {14u, 15u}) {
    Rig r({0x742103C0u});
    Core before = r.c;
    ASSERT_TRUE(r.run(load(f, 0b0000, true)).ok());
    EXPECT_EQ(r.c.r, before.r) << f;
  }
}

}  // namespace
}  // namespace agx::usc::test
