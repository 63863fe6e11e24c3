// The SIMD-group memory path (issue 11: the memory kernel ran at 0.013 of
// native because pages were translated per lane): a device load or store
// of 32 contiguous lanes translates its span once (one host_pointer call,
// no per-lane reads or writes), and falls back to per-lane accesses, with
// the same results and faults, when the span is not one host range.
#include "helpers.h"
#include "util/bits.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

// Counts the calls the emulator makes into device memory.
class CountingMemory : public GpuMemory {
 public:
  RegionMemory inner;
  size_t reads = 0, writes = 0, host_pointers = 0;
  bool read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) override {
    ++reads;
    return inner.read(va, dst, size, unit, fault);
  }
  bool write(GpuVa va, const void* src, size_t size, GpuUnit unit, GpuFault* fault) override {
    ++writes;
    return inner.write(va, src, size, unit, fault);
  }
  uint8_t* host_pointer(GpuVa va, size_t size, Access access) override {
    ++host_pointers;
    return inner.host_pointer(va, size, access);
  }
};

// r20 = load i32 [u0_u1 + r12 * 4]; wait; r20 += 1; store i32 r20 at [u2_u3 + r12 * 4].
std::vector<uint8_t> load_add_store() {
  return cat({enc(Opcode::device_load, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 40}, {"At", 1}, {"A", 0}, {"Ot", 0},
                                        {"O", 24}, {"Ou", 1}}),
              enc(Opcode::wait, {}),
              enc(Opcode::iadd, {{"Dt", 2}, {"D", 40}, {"At", 0b1001}, {"A", 40}, {"Bt", 0}, {"B", 1}}),
              enc(Opcode::device_store, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 40}, {"At", 1}, {"A", 4}, {"Ot", 0},
                                         {"O", 24}, {"Ou", 1}})});
}

Core lanes_core(uint64_t src, uint64_t dst, uint32_t first) {
  Core c = make_core();
  c.u[0] = uint32_t(src);
  c.u[1] = uint32_t(src >> 32);
  c.u[2] = uint32_t(dst);
  c.u[3] = uint32_t(dst >> 32);
  for (unsigned l = 0; l < kLanes; ++l) c.r[12][l] = first + l;
  return c;
}

std::vector<uint8_t> words(size_t n, uint32_t seed) {
  std::vector<uint8_t> b(4 * n);
  for (size_t i = 0; i < n; ++i) store_le<uint32_t>(b.data() + 4 * i, uint32_t(i * 2654435761u + seed));
  return b;
}

TEST(SimdMemory, ContiguousLanesTranslateOncePerAccess) {
  CountingMemory m;
  auto src = words(64, 1);
  ASSERT_TRUE(m.inner.map(0x10000, src).ok());
  ASSERT_TRUE(m.inner.map(0x20000, std::vector<uint8_t>(256)).ok());
  Memories mem;
  mem.device = &m;
  Core c = lanes_core(0x10000, 0x20000, 8);
  ASSERT_TRUE(run_code(load_add_store(), c, mem).ok());
  EXPECT_EQ(m.host_pointers, 2u);  // one per instruction, not per lane
  EXPECT_EQ(m.reads, 0u);
  EXPECT_EQ(m.writes, 0u);
  const auto& out = m.inner.regions().at(0x20000);
  for (unsigned l = 0; l < kLanes; ++l)
    EXPECT_EQ(load_le<uint32_t>(out.data() + 4 * (8 + l)), load_le<uint32_t>(src.data() + 4 * (8 + l)) + 1) << l;
}

TEST(SimdMemory, SpanAcrossTwoHostRangesFallsBackPerLaneWithTheSameResult) {
  // Two regions adjacent in GPU addresses but separate on the host: lanes
  // 0-15 read the first, 16-31 the second.
  CountingMemory m;
  auto a = words(16, 2), b = words(16, 3);
  ASSERT_TRUE(m.inner.map(0x10000, a).ok());
  ASSERT_TRUE(m.inner.map(0x10040, b).ok());
  ASSERT_TRUE(m.inner.map(0x20000, std::vector<uint8_t>(128)).ok());
  Memories mem;
  mem.device = &m;
  Core c = lanes_core(0x10000, 0x20000, 0);
  ASSERT_TRUE(run_code(load_add_store(), c, mem).ok());
  EXPECT_EQ(m.reads, 32u);  // the load fell back to one read per lane
  const auto& out = m.inner.regions().at(0x20000);
  for (unsigned l = 0; l < kLanes; ++l) {
    uint32_t want = l < 16 ? load_le<uint32_t>(a.data() + 4 * l) : load_le<uint32_t>(b.data() + 4 * (l - 16));
    EXPECT_EQ(load_le<uint32_t>(out.data() + 4 * l), want + 1) << l;
  }
}

TEST(SimdMemory, PartlyUnmappedSpanFaultsAtTheFirstUnmappedLane) {
  CountingMemory m;
  ASSERT_TRUE(m.inner.map(0x10000, words(20, 4)).ok());  // lanes 20-31 unmapped
  Memories mem;
  mem.device = &m;
  Core c = lanes_core(0x10000, 0x20000, 0);
  Status s = run_code(load_add_store(), c, mem);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind(), ErrorKind::fault);
  EXPECT_NE(s.error().message().find("0x0000000000010050"), std::string::npos) << s.error().message();
}

TEST(SimdMemory, InactiveLanesAreNotTouched) {
  // Only lanes 0-3 active: the span is theirs, and lanes past the mapping
  // (which would fault) are ignored.
  CountingMemory m;
  auto src = words(4, 5);
  ASSERT_TRUE(m.inner.map(0x10000, src).ok());
  ASSERT_TRUE(m.inner.map(0x20000, std::vector<uint8_t>(16)).ok());
  Memories mem;
  mem.device = &m;
  Core c = lanes_core(0x10000, 0x20000, 0);
  c.exec = 0xF;
  ASSERT_TRUE(run_code(load_add_store(), c, mem).ok());
  EXPECT_EQ(m.reads + m.writes, 0u);
  const auto& out = m.inner.regions().at(0x20000);
  for (unsigned l = 0; l < 4; ++l)
    EXPECT_EQ(load_le<uint32_t>(out.data() + 4 * l), load_le<uint32_t>(src.data() + 4 * l) + 1) << l;
}


TEST(SimdMemory, AtomicsTranslateOncePerAccessInLaneOrder) {
  // atomic add r20 to the word [u0_u1 + r12 * 4], old value to r30; lanes
  // 0-15 hit words 0-15, lanes 16-31 hit them again: each lane sees the
  // lane before it on the same word, in ascending lane order.
  CountingMemory m;
  auto w = words(16, 6);
  ASSERT_TRUE(m.inner.map(0x10000, w).ok());
  Memories mem;
  mem.device = &m;
  Core c = lanes_core(0x10000, 0, 0);
  for (unsigned l = 0; l < kLanes; ++l) {
    c.r[12][l] = l % 16;
    c.r[20][l] = 1000 + l;
  }
  auto add = isa::encode_fields(Opcode::atomic, std::vector<std::pair<std::string_view, uint32_t>>{
      {"op", 0}, {"Rt", 1}, {"R", 60}, {"At", 1}, {"A", 0}, {"Ot", 0}, {"O", 24}, {"Ou", 1}, {"S", 40}});
  ASSERT_TRUE(add.ok());
  ASSERT_TRUE(run_code({add->span().begin(), add->span().end()}, c, mem).ok());
  EXPECT_EQ(m.reads + m.writes, 0u);
  EXPECT_EQ(m.host_pointers, 2u);  // write and read access, once each
  const auto& out = m.inner.regions().at(0x10000);
  for (unsigned l = 0; l < kLanes; ++l) {
    uint32_t w0 = load_le<uint32_t>(w.data() + 4 * (l % 16));
    EXPECT_EQ(c.r[30][l], l < 16 ? w0 : w0 + 1000 + (l - 16)) << l;
  }
  for (unsigned i = 0; i < 16; ++i)
    EXPECT_EQ(load_le<uint32_t>(out.data() + 4 * i), load_le<uint32_t>(w.data() + 4 * i) + (1000 + i) + (1016 + i)) << i;
}

}  // namespace
}  // namespace agx::usc::test
