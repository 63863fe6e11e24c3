#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "mem/mem.h"

namespace agx::mem {
namespace AGX_UNITY_ID {

struct Pages {
  explicit Pages(size_t n) : bytes(n * kPageSize_B) {
    for (size_t i = 0; i < bytes.size(); i++) bytes[i] = uint8_t(i * 7 + 1);
  }
  uint8_t* data() { return bytes.data(); }
  std::vector<uint8_t> bytes;
};

constexpr GpuVa kBase = 0x1'0000'0000;

TEST(AddressSpace, ReadsAcrossPagesOfAnyAlignment) {
  AddressSpace as;
  Pages p(3);
  ASSERT_TRUE(as.map(kBase, p.data(), 3 * kPageSize_B, kRead | kWrite));
  for (uint64_t off : {uint64_t{0}, uint64_t{1}, kPageSize_B - 3, 2 * kPageSize_B - 1}) {
    uint8_t out[37];
    ASSERT_TRUE(as.read(kBase + off, out, sizeof out, GpuUnit::usc, nullptr)) << off;
    EXPECT_EQ(0, std::memcmp(out, p.data() + off, sizeof out)) << off;
  }
}

TEST(AddressSpace, WriteLandsInHostMemory) {
  AddressSpace as;
  Pages p(2);
  ASSERT_TRUE(as.map(kBase, p.data(), 2 * kPageSize_B, kRead | kWrite));
  const char msg[] = "crosses a 16 KiB page";
  ASSERT_TRUE(as.write(kBase + kPageSize_B - 5, msg, sizeof msg, GpuUnit::pbe, nullptr));
  EXPECT_EQ(0, std::memcmp(p.data() + kPageSize_B - 5, msg, sizeof msg));
}

TEST(AddressSpace, UnmappedReadFaultsWithAddressAndUnit) {
  AddressSpace as;
  Pages p(1);
  ASSERT_TRUE(as.map(kBase, p.data(), kPageSize_B, kRead));
  uint8_t out[8];
  GpuFault f;
  EXPECT_FALSE(as.read(kBase + kPageSize_B - 4, out, 8, GpuUnit::texture, &f));
  EXPECT_EQ(f.va, kBase + kPageSize_B);  // first faulting byte
  EXPECT_EQ(f.unit, GpuUnit::texture);
  EXPECT_EQ(f.access, Access::read);
  EXPECT_EQ(f.reason, "unmapped");
  EXPECT_EQ(as.fault_count(), 1u);
  ASSERT_EQ(as.faults().size(), 1u);
}

TEST(AddressSpace, FaultingWriteChangesNothing) {
  AddressSpace as;
  Pages p(2);
  ASSERT_TRUE(as.map(kBase, p.data(), kPageSize_B, kRead | kWrite));
  ASSERT_TRUE(as.map(kBase + kPageSize_B, p.data() + kPageSize_B, kPageSize_B, kRead));
  std::vector<uint8_t> before = p.bytes;
  std::vector<uint8_t> junk(64, 0xEE);
  GpuFault f;
  EXPECT_FALSE(as.write(kBase + kPageSize_B - 32, junk.data(), junk.size(), GpuUnit::usc, &f));
  EXPECT_EQ(f.reason, "not writable");
  EXPECT_EQ(f.va, kBase + kPageSize_B);
  EXPECT_EQ(p.bytes, before);
}

TEST(AddressSpace, WriteOnlyPageIsNotReadable) {
  AddressSpace as;
  Pages p(1);
  ASSERT_TRUE(as.map(kBase, p.data(), kPageSize_B, kWrite));
  uint8_t b = 0;
  GpuFault f;
  EXPECT_FALSE(as.read(kBase, &b, 1, GpuUnit::usc, &f));
  EXPECT_EQ(f.reason, "not readable");
  EXPECT_TRUE(as.write(kBase, &b, 1, GpuUnit::usc, nullptr));
}

TEST(AddressSpace, AccessPastVaSpaceFaults) {
  AddressSpace as;
  uint8_t b[4];
  GpuFault f;
  EXPECT_FALSE(as.read(kVaLimit - 2, b, 4, GpuUnit::cdm, &f));
  EXPECT_FALSE(as.read(~0ull, b, 1, GpuUnit::cdm, &f));
  EXPECT_EQ(f.reason, "outside the VA space");
}

TEST(AddressSpace, RejectsMisalignedOrOverflowingMaps) {
  AddressSpace as;
  Pages p(1);
  EXPECT_FALSE(as.map(kBase + 4, p.data(), kPageSize_B, kRead));
  EXPECT_FALSE(as.map(kBase, p.data(), 100, kRead));
  EXPECT_FALSE(as.map(kVaLimit, p.data(), kPageSize_B, kRead));
  EXPECT_FALSE(as.map(~kPageMask, p.data(), kPageSize_B, kRead));
  EXPECT_FALSE(as.map(kBase, p.data(), kPageSize_B, 0));
  EXPECT_FALSE(as.unmap(kBase + 1, kPageSize_B));
  EXPECT_EQ(as.mapped_pages(), 0u);
}

TEST(AddressSpace, UnmapSubRangeLeavesNeighbours) {
  AddressSpace as;
  Pages p(4);
  ASSERT_TRUE(as.map(kBase, p.data(), 4 * kPageSize_B, kRead));
  ASSERT_TRUE(as.unmap(kBase + kPageSize_B, 2 * kPageSize_B));
  EXPECT_EQ(as.mapped_pages(), 2u);
  uint8_t b;
  EXPECT_TRUE(as.read(kBase, &b, 1, GpuUnit::usc, nullptr));
  EXPECT_FALSE(as.read(kBase + kPageSize_B, &b, 1, GpuUnit::usc, nullptr));
  EXPECT_TRUE(as.read(kBase + 3 * kPageSize_B, &b, 1, GpuUnit::usc, nullptr));
  EXPECT_EQ(b, p.bytes[3 * kPageSize_B]);
  ASSERT_TRUE(as.unmap(0, kVaLimit));  // whole space, mostly absent leaves
  EXPECT_EQ(as.mapped_pages(), 0u);
}

TEST(AddressSpace, RepeatedPageMapsOneHostPage) {
  AddressSpace as;
  Pages p(1);
  ASSERT_TRUE(as.map_repeated(kBase, p.data(), 8 * kPageSize_B, kRead));
  uint8_t a, b;
  ASSERT_TRUE(as.read(kBase + 5, &a, 1, GpuUnit::usc, nullptr));
  ASSERT_TRUE(as.read(kBase + 7 * kPageSize_B + 5, &b, 1, GpuUnit::usc, nullptr));
  EXPECT_EQ(a, b);
  // Not contiguous in host memory: no fast pointer across pages.
  EXPECT_EQ(as.host_pointer(kBase, 2 * kPageSize_B, Access::read), nullptr);
  EXPECT_NE(as.host_pointer(kBase, kPageSize_B, Access::read), nullptr);
}

TEST(AddressSpace, HostPointerHonoursPermissionAndContiguity) {
  AddressSpace as;
  Pages p(2);
  ASSERT_TRUE(as.map(kBase, p.data(), 2 * kPageSize_B, kRead));
  EXPECT_EQ(as.host_pointer(kBase + 8, 2 * kPageSize_B - 8, Access::read), p.data() + 8);
  EXPECT_EQ(as.host_pointer(kBase, 4, Access::write), nullptr);
  EXPECT_EQ(as.host_pointer(kBase, 2 * kPageSize_B + 1, Access::read), nullptr);
}

TEST(AddressSpace, VmsAreIsolated) {
  AddressSpace a, b;
  Pages p(1);
  ASSERT_TRUE(a.map(kBase, p.data(), kPageSize_B, kRead | kWrite));
  uint8_t x;
  EXPECT_TRUE(a.read(kBase, &x, 1, GpuUnit::usc, nullptr));
  EXPECT_FALSE(b.read(kBase, &x, 1, GpuUnit::usc, nullptr));
  EXPECT_EQ(b.fault_count(), 1u);
  EXPECT_EQ(a.fault_count(), 0u);
}

TEST(AddressSpace, ConcurrentReadersAndMappers) {
  AddressSpace as;
  Pages p(4);
  std::atomic<bool> stop{false};
  std::thread mapper([&] {
    for (int i = 0; i < 2000; i++) {
      (void)as.map(kBase, p.data(), 4 * kPageSize_B, kRead);
      (void)as.unmap(kBase + kPageSize_B, kPageSize_B);
    }
    stop = true;
  });
  uint64_t ok = 0, bad = 0;
  while (!stop) {
    uint8_t buf[64];
    (as.read(kBase + kPageSize_B - 32, buf, 64, GpuUnit::usc, nullptr) ? ok : bad)++;
  }
  mapper.join();
  EXPECT_EQ(ok + bad, ok + as.fault_count());  // every failure was recorded
}

}  // namespace
}  // namespace agx::mem
