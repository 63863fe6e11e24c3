// Device and threadgroup memory: every load format and mask against
// applegpu's DeviceLoad exec formulas (address rounding, offset shift,
// conversions), stores, faults, and a threadgroup whose SIMD groups meet at a
// barrier. formats_test.cpp covers srgba8, the stores of every format and
// the vectors of applegpu's exec over every input value.
#include <bit>
#include <cmath>

#include "helpers.h"
#include "util/bits.h"
#include "util/half.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

constexpr uint64_t kBase = 0x100000;

// device_load/store F, mask -> registers starting at rR (or rRl when 16-bit),
// base r10_r11, offset register r12 (signed) shifted by s.
std::vector<uint8_t> dev(Opcode op, uint32_t f, uint32_t mask, unsigned r, bool r32, uint32_t s) {
  return enc(op, {{"F", f}, {"mask", mask}, {"Rt", r32}, {"R", r * 2}, {"At", 0}, {"A", 20},
                  {"Ot", 0}, {"O", 24}, {"Ou", 0}, {"s", s}});
}

struct Fixture {
  RegionMemory mem;
  std::vector<uint8_t> bytes;
  Core c;
  explicit Fixture(uint32_t seed) : c(random_core(seed)) {
    Rng rng(seed);
    bytes.resize(4096);
    for (auto& b : bytes) b = rng();
    EXPECT_TRUE(mem.map(kBase, bytes).ok());
    for (unsigned l = 0; l < kLanes; ++l) {
      c.r[10][l] = uint32_t(kBase + 1024 + (rng() % 64));  // unaligned on purpose
      c.r[11][l] = 0;
      c.r[12][l] = uint32_t(int32_t(rng() % 64) - 32);    // signed element offset
    }
  }
};

double ref_load_real(uint32_t f, unsigned n, uint32_t v, uint32_t packed) {
  auto f11 = [](uint32_t x, int mb) {
    int e = (x >> mb) & 0x1F;
    uint32_t m = x & ((1u << mb) - 1);
    if (e == 0x1F) return m ? std::nan("") : INFINITY;
    return e == 0 ? std::ldexp(double(m), 1 - 15 - mb) : std::ldexp(double((1u << mb) | m), e - 15 - mb);
  };
  switch (f) {
    case 4: return v / 255.0;
    case 5: return std::max<double>(-127, int8_t(v)) / 127.0;
    case 6: return v / 65535.0;
    case 7: return std::max<double>(-32767, int16_t(v)) / 32767.0;
    case 8: return n < 3 ? ((packed >> (10 * n)) & 1023) / 1023.0 : (packed >> 30) / 3.0;
    case 12: case 14:  // .rtz loads like the plain form (derived)
      return n == 0 ? f11(packed & 0x7FF, 6) : n == 1 ? f11((packed >> 11) & 0x7FF, 6) : f11(packed >> 22, 5);
    case 13: case 15: return std::ldexp(double((packed >> (9 * n)) & 0x1FF) / 512.0, int(packed >> 27) - 15);
  }
  return 0;
}

void check_load(uint32_t f, uint32_t mask, bool r32, uint32_t s, uint32_t seed) {
  Fixture fx(seed);
  Core want = fx.c;
  unsigned size = (f == 1 || f == 3 || f == 6 || f == 7) ? 2 : f == 2 ? 4 : 1;
  bool packed_fmt = f == 8 || f >= 12;
  ASSERT_TRUE(run_code(dev(Opcode::device_load, f, mask, 40, r32, s), fx.c, {&fx.mem}).ok());
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!on(want, l)) continue;
    uint64_t addr = (uint64_t{want.r[10][l]} & ~uint64_t(size - 1));
    int64_t off = int32_t(want.r[12][l]) * (int64_t{1} << (packed_fmt ? 2 : (s == 3 ? 2 : s)));
    if (packed_fmt) addr &= ~uint64_t{3};
    uint32_t m = packed_fmt ? 0xF : mask;
    uint32_t vals[4] = {}, packed = 0;
    for (unsigned i = 0; i < 4; ++i) {
      if (!(m >> i & 1)) continue;
      uint64_t a = addr + uint64_t((off + i) * int64_t(size)) - kBase;
      for (unsigned b = 0; b < size; ++b) vals[i] |= uint32_t(fx.bytes[a + b]) << (8 * b);
      packed |= (vals[i] & 0xFF) << (8 * i);
    }
    unsigned reg = r32 ? 40 : 80;
    for (unsigned i = 0; i < 4; ++i) {
      if (!(m >> i & 1)) continue;
      if (f >= 12 && i == 3) continue;
      uint32_t out;
      if (f <= 3) out = vals[i];
      else {
        double real = ref_load_real(f, i, vals[i], packed);
        out = r32 ? (std::isnan(real) ? 0x7FC00000u : std::bit_cast<uint32_t>(float(real)))
                  : (std::isnan(real) ? 0x7E00 : double_to_half(real));
      }
      if (r32) want.r[reg][l] = out;
      else want.r[reg / 2][l] = (reg & 1) ? (want.r[reg / 2][l] & 0xFFFF) | out << 16 : (want.r[reg / 2][l] & 0xFFFF0000u) | (out & 0xFFFF);
      ++reg;
    }
  }
  for (unsigned r = 0; r < kRegisters; ++r)
    for (unsigned l = 0; l < kLanes; ++l)
      ASSERT_EQ(fx.c.r[r][l], want.r[r][l]) << "format " << f << " mask " << mask << " r" << r << " lane " << l;
}

TEST(Memory, DeviceLoadEveryFormatAndMask) {
  uint32_t seed = 1;
  for (uint32_t f : {0u, 1u, 3u, 4u, 5u, 6u, 7u})
    for (uint32_t mask = 1; mask < 16; ++mask)
      for (bool r32 : {false, true}) {
        check_load(f, mask, r32, seed % 4, seed);
        ++seed;
      }
  for (uint32_t mask = 1; mask < 16; ++mask) check_load(2, mask, true, mask % 4, seed++);
  // Bit-packed formats ignore the mask (0 included) and the shift. The
  // .rtz forms do too when the mask is not empty (derived); with an empty
  // mask they load nothing, as in applegpu's exec (applegpu_packed_test).
  for (uint32_t f : {8u, 12u, 13u, 14u, 15u})
    for (uint32_t mask = f >= 14 ? 1 : 0; mask < 16; ++mask)
      for (bool r32 : {false, true}) check_load(f, mask, r32, mask % 4, seed++);
}

TEST(Memory, DeviceStoreThenLoadRoundTrips) {
  for (uint32_t f : {0u, 1u, 2u}) {
    Fixture fx(50 + f);
    for (unsigned l = 0; l < kLanes; ++l) {
      fx.c.r[12][l] = l * 4;  // disjoint slots per lane
      fx.c.r[10][l] = uint32_t(kBase);
    }
    Core before = fx.c;
    auto code = cat({dev(Opcode::device_store, f, 0b1101, 30, true, 0), dev(Opcode::device_load, f, 0b1101, 50, true, 0)});
    ASSERT_TRUE(run_code(code, fx.c, {&fx.mem}).ok());
    uint32_t keep = f == 0 ? 0xFF : f == 1 ? 0xFFFF : 0xFFFFFFFFu;
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!on(before, l)) continue;
      for (unsigned i = 0; i < 3; ++i) EXPECT_EQ(fx.c.r[50 + i][l], before.r[30 + i][l] & keep) << f << " " << l;
    }
  }
}

TEST(Memory, UnmappedAccessFaultsWithPcAndAddress) {
  RegionMemory mem;
  ASSERT_TRUE(mem.map(kBase, std::vector<uint8_t>(64)).ok());
  Core c = make_core();
  for (unsigned l = 0; l < kLanes; ++l) { c.r[10][l] = uint32_t(kBase); c.r[12][l] = l; }
  auto code = cat({enc(Opcode::mov_imm32, {{"Dt", 2}, {"D", 60}, {"imm32", 1}}),
                   dev(Opcode::device_load, 2, 1, 40, true, 0)});
  Status st = run_code(code, c, {&mem});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind(), ErrorKind::fault);
  EXPECT_NE(st.error().message().find("pc 0x6: read of 0x0000000000100040 by usc: unmapped"), std::string::npos)
      << st.error().message();
}

// Threadgroup program: out[tid] = tg[tid] + tg[tid ^ 64] after each thread
// stored tid + 1 to tg[tid]. With the barrier every group sees all stores.
std::vector<uint8_t> exchange_kernel(bool barrier) {
  auto tg = [](Opcode op, unsigned r, unsigned idx_half) {
    return enc(op, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", r * 2}, {"At", 2}, {"A", 0}, {"Ot", 0}, {"O", idx_half}});
  };
  return cat({enc(Opcode::get_sr, {{"Dt", 2}, {"D", 4}, {"SR", 51}}),
              enc(Opcode::bitop, {{"tt1", 1}, {"tt2", 1}, {"Dt", 2}, {"D", 6}, {"At", 0b1001}, {"A", 4}, {"Bt", 0}, {"B", 64}}),
              enc(Opcode::iadd, {{"Dt", 2}, {"D", 8}, {"At", 0b1001}, {"A", 4}, {"Bt", 0}, {"B", 1}}),
              tg(Opcode::threadgroup_store, 4, 4),
              barrier ? enc(Opcode::threadgroup_barrier, {}) : std::vector<uint8_t>{},
              tg(Opcode::threadgroup_load, 5, 4), tg(Opcode::threadgroup_load, 6, 6), enc(Opcode::wait, {}),
              enc(Opcode::iadd, {{"Dt", 2}, {"D", 14}, {"At", 0b1001}, {"A", 10}, {"Bt", 0b1001}, {"B", 12}}),
              enc(Opcode::device_store, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 14}, {"At", 1}, {"A", 0},
                                         {"Ot", 0}, {"O", 4}, {"Ou", 1}, {"s", 0}}),
              enc(Opcode::stop, {})});
}

TEST(Memory, ThreadgroupBarrierOrdersExchange) {
  for (bool barrier : {true, false}) {
    auto p = compile(exchange_kernel(barrier), 0);
    ASSERT_TRUE(p.ok());
    RegionMemory mem;
    ASSERT_TRUE(mem.map(kBase, std::vector<uint8_t>(128 * 4 * 2)).ok());
    Dispatch d;
    d.threadgroups = {2, 1, 1};
    d.threads_per_threadgroup = {128, 1, 1};
    d.uniforms[0] = uint32_t(kBase);
    ASSERT_TRUE(dispatch(*p, d, mem, RunOptions{}).ok());
    uint8_t out[512];
    GpuFault f;
    ASSERT_TRUE(mem.read(kBase, out, sizeof out, GpuUnit::host, &f));
    for (unsigned t = 0; t < 128; ++t) {
      uint32_t got = load_le<uint32_t>(out + 4 * t);
      // Without the barrier, groups 0 and 1 run to the end before groups 2
      // and 3 store, so they read zeros from the other half.
      uint32_t other = (barrier || t >= 64) ? (t ^ 64) + 1 : 0;
      EXPECT_EQ(got, t + 1 + other) << "thread " << t << " barrier " << barrier;
    }
  }
}

TEST(Memory, ThreadgroupAccessOutsideMemoryFaults) {
  Core c = make_core();
  std::vector<uint8_t> tg(256);
  Memories m;
  m.threadgroup = &tg;
  auto code = enc(Opcode::threadgroup_load, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 2}, {"At", 2}, {"A", 0}, {"Ot", 1}, {"O", 100}});
  Status st = run_code(code, c, m);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind(), ErrorKind::fault);
}

TEST(Memory, StackIsPrivatePerLane) {
  // stack_store r30..r31 at byte offset 8 (i32 x2), then stack_load them back
  // into r50..r51; each lane keeps its own values. Offset 1020 + 8 faults.
  Core c = random_core(60);
  Core before = c;
  auto st = enc(Opcode::stack_store, {{"F", 2}, {"mask", 3}, {"Rt", 1}, {"R", 60}, {"Ot", 1}, {"O", 8}});
  auto ld = enc(Opcode::stack_load, {{"F", 2}, {"mask", 3}, {"Rt", 1}, {"R", 100}, {"Ot", 1}, {"O", 8}});
  ASSERT_TRUE(run_code(cat({st, ld}), c).ok());
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!on(before, l)) continue;
    EXPECT_EQ(c.r[50][l], before.r[30][l]);
    EXPECT_EQ(c.r[51][l], before.r[31][l]);
  }
  auto far = enc(Opcode::stack_load, {{"F", 2}, {"mask", 3}, {"Rt", 1}, {"R", 100}, {"Ot", 1}, {"O", 1020}});
  Status s = run_code(far, c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind(), ErrorKind::fault);
}

TEST(Memory, DebugModeFlagsReadBeforeWait) {
  Fixture fx(7);
  auto use = enc(Opcode::iadd, {{"Dt", 2}, {"D", 120}, {"At", 0b1001}, {"A", 80}, {"Bt", 0}, {"B", 1}});
  auto p = compile(cat({dev(Opcode::device_load, 2, 1, 40, true, 0), use, enc(Opcode::wait, {}), use}), 0);
  ASSERT_TRUE(p.ok());
  std::vector<std::string> warnings;
  RunOptions opt;
  opt.debug = true;
  opt.warnings = &warnings;
  fx.c.pc = 0;
  ASSERT_TRUE(run(*p, fx.c, {&fx.mem}, opt).ok());
  ASSERT_EQ(warnings.size(), 1u);  // only the read before `wait`
  EXPECT_NE(warnings[0].find("r40 read before `wait` for the load at pc 0x0"), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace agx::usc::test
