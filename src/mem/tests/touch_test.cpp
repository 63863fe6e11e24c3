// Page touch tracking: which pages reads, writes and host_pointer() reached
// since a mark.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "mem/mem.h"

namespace agx::mem {
namespace AGX_UNITY_ID {

constexpr GpuVa kBase = 0x2'0000'0000;

struct Space {
  AddressSpace as;
  std::vector<uint8_t> host = std::vector<uint8_t>(16 * kPageSize_B);
  Space() { EXPECT_TRUE(as.map(kBase, host.data(), host.size(), kRead | kWrite)); }
  GpuVa page(uint64_t n) const { return kBase + n * kPageSize_B; }
};

using Ranges = std::vector<AddressSpace::TouchedRange>;

TEST(Touch, NothingIsStampedUntilTrackingStarts) {
  Space s;
  uint8_t b = 0;
  ASSERT_TRUE(s.as.read(s.page(1), &b, 1, GpuUnit::usc, nullptr));
  EXPECT_FALSE(s.as.tracking_touches());
  EXPECT_TRUE(s.as.touched_since(0).empty());
  s.as.track_touches();
  const uint64_t mark = s.as.touch_mark();
  EXPECT_TRUE(s.as.touched_since(mark).empty());
}

TEST(Touch, ReadsWritesAndHostPointersSinceTheMark) {
  Space s;
  s.as.track_touches();
  uint8_t buf[8] = {};
  const uint64_t earlier = s.as.touch_mark();
  ASSERT_TRUE(s.as.read(s.page(9), buf, 1, GpuUnit::usc, nullptr));  // before the mark
  const uint64_t mark = s.as.touch_mark();
  ASSERT_TRUE(s.as.read(s.page(2) + 5, buf, 1, GpuUnit::usc, nullptr));
  ASSERT_TRUE(s.as.read(s.page(3) + kPageSize_B - 4, buf, 8, GpuUnit::usc, nullptr));  // pages 3 and 4
  ASSERT_TRUE(s.as.write(s.page(7) + 100, buf, 4, GpuUnit::pbe, nullptr));
  ASSERT_NE(s.as.host_pointer(s.page(11), 2 * kPageSize_B, Access::read), nullptr);  // 11, 12
  ASSERT_NE(s.as.host_pointer(s.page(13), 4, Access::write), nullptr);
  EXPECT_EQ(s.as.touched_since(mark), (Ranges{{s.page(2), 3 * kPageSize_B, false},
                                              {s.page(7), kPageSize_B, true},
                                              {s.page(11), 2 * kPageSize_B, false},
                                              {s.page(13), kPageSize_B, true}}));
  // A read after a write keeps the page written; the older mark still
  // sees page 9's earlier read.
  ASSERT_TRUE(s.as.read(s.page(7), buf, 1, GpuUnit::usc, nullptr));
  EXPECT_TRUE(s.as.touched_since(mark)[1].written);
  EXPECT_EQ(s.as.touched_since(earlier).size(), 5u);
  // A new mark starts empty.
  EXPECT_TRUE(s.as.touched_since(s.as.touch_mark()).empty());
}

TEST(Touch, FaultsAndFailedLookupsTouchNothing) {
  Space s;
  s.as.track_touches();
  const uint64_t mark = s.as.touch_mark();
  uint8_t buf[2] = {};
  // A read running off the mapping faults before any byte moves.
  EXPECT_FALSE(s.as.read(s.page(15) + kPageSize_B - 1, buf, 2, GpuUnit::usc, nullptr));
  EXPECT_EQ(s.as.host_pointer(s.page(15), 2 * kPageSize_B, Access::read), nullptr);
  EXPECT_TRUE(s.as.touched_since(mark).empty());
}

TEST(Touch, UnmappedPagesAreNotListedAndNewLeavesAreTracked) {
  Space s;
  s.as.track_touches();
  const uint64_t mark = s.as.touch_mark();
  uint8_t b = 0;
  ASSERT_TRUE(s.as.read(s.page(4), &b, 1, GpuUnit::usc, nullptr));
  ASSERT_TRUE(s.as.unmap(s.page(4), kPageSize_B));
  EXPECT_TRUE(s.as.touched_since(mark).empty());
  // A leaf made after tracking started (another 128 MiB of VA) stamps too.
  std::vector<uint8_t> far(kPageSize_B);
  const GpuVa far_va = 0x40'0000'0000;
  ASSERT_TRUE(s.as.map(far_va, far.data(), far.size(), kRead));
  ASSERT_TRUE(s.as.read(far_va + 1, &b, 1, GpuUnit::usc, nullptr));
  EXPECT_EQ(s.as.touched_since(mark), (Ranges{{far_va, kPageSize_B, false}}));
}

// Threads with an older epoch never hide a newer user's touch.
TEST(Touch, ConcurrentUsersSeeTheirPages) {
  Space s;
  s.as.track_touches();
  const uint64_t first = s.as.touch_mark();
  std::thread t([&] {
    uint8_t b = 0;
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(s.as.read(s.page(i % 8), &b, 1, GpuUnit::usc, nullptr));
  });
  const uint64_t second = s.as.touch_mark();
  uint8_t b = 0;
  ASSERT_TRUE(s.as.read(s.page(5), &b, 1, GpuUnit::usc, nullptr));
  t.join();
  const Ranges since_second = s.as.touched_since(second);
  bool has5 = false;
  for (const auto& r : since_second) has5 |= r.va <= s.page(5) && s.page(5) < r.va + r.size_B;
  EXPECT_TRUE(has5);
  EXPECT_EQ(s.as.touched_since(first), (Ranges{{s.page(0), 8 * kPageSize_B, false}}));
}

}  // namespace
}  // namespace agx::mem
