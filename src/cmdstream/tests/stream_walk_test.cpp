// The shared stream walker (stream_walk.h) with a recording visitor over a
// small flat memory: blocks in order, links, calls, returns, named
// transfers, enter(), and every way a walk ends, with its text.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

#include "cmdstream/stream_walk.h"

namespace agx::cmdstream {
namespace AGX_UNITY_ID {

constexpr GpuVa kBase = 0x1000;

// 4 KiB at kBase; everything else unmapped.
class FlatMemory final : public GpuMemory {
 public:
  std::vector<uint8_t> bytes = std::vector<uint8_t>(4096, 0);
  bool read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) override {
    if (va < kBase || va + size > kBase + bytes.size()) {
      const GpuVa end = kBase + bytes.size();
      const GpuVa first = (va < kBase || va >= end) ? va : end;
      *fault = {first, Access::read, unit, "unmapped"};
      return false;
    }
    std::memcpy(dst, bytes.data() + (va - kBase), size);
    return true;
  }
  bool write(GpuVa, const void*, size_t, GpuUnit, GpuFault*) override { return false; }
};

// Blocks are given by address; the visitor records the order it saw them
// and the head bytes it was handed.
class Script final : public StreamVisitor {
 public:
  std::map<GpuVa, Step> steps;
  std::vector<GpuVa> seen;
  std::vector<uint8_t> first_heads;
  GpuVa refuse = 0;  // enter() says no here
  bool enter(GpuVa va) override { return va != refuse; }
  Step block(GpuVa va, std::span<const uint8_t> head) override {
    seen.push_back(va);
    first_heads.push_back(head[0]);
    auto it = steps.find(va);
    return it == steps.end() ? Step{Flow::next, 4} : it->second;
  }
};

StreamFormat format(uint64_t max_blocks = 100, unsigned depth = 8) {
  StreamFormat f;
  f.unit = GpuUnit::vdm;
  f.head_B = 4;
  f.head_name = "Test head";
  f.max_blocks = max_blocks;
  f.max_call_depth = depth;
  return f;
}

TEST(StreamWalk, BlocksLinksCallsAndReturns) {
  FlatMemory m;
  m.bytes[0] = 0xA1;
  m.bytes[0x100] = 0xB2;
  Script s;
  s.steps[kBase + 4] = {Flow::call, 8, kBase + 0x100};         // call; returns to kBase + 12
  s.steps[kBase + 0x104] = {Flow::ret};                        // back
  s.steps[kBase + 12] = {Flow::link, 8, kBase + 0x200};        // jump
  s.steps[kBase + 0x200] = {Flow::terminate};
  const WalkEnd end = walk_stream(m, kBase, format(), s);
  EXPECT_EQ(end.kind, WalkEnd::Kind::terminate);
  EXPECT_FALSE(end.error());
  EXPECT_EQ(end.at, kBase + 0x200);
  EXPECT_EQ(end.blocks, 6u);
  EXPECT_EQ(s.seen, (std::vector<GpuVa>{kBase, kBase + 4, kBase + 0x100, kBase + 0x104, kBase + 12, kBase + 0x200}));
  EXPECT_EQ(s.first_heads[0], 0xA1);  // the head is the block's first bytes
  EXPECT_EQ(s.first_heads[2], 0xB2);
}

TEST(StreamWalk, VisitorStopAndEnter) {
  FlatMemory m;
  Script s;
  s.steps[kBase + 8] = {Flow::stop};
  WalkEnd end = walk_stream(m, kBase, format(), s);
  EXPECT_EQ(end.kind, WalkEnd::Kind::stop);
  EXPECT_EQ(end.at, kBase + 8);
  EXPECT_TRUE(end.message.empty());
  Script r;
  r.refuse = kBase + 4;
  end = walk_stream(m, kBase, format(), r);
  EXPECT_EQ(end.kind, WalkEnd::Kind::stop);
  EXPECT_EQ(end.at, kBase + 4);
  EXPECT_EQ(r.seen, std::vector<GpuVa>{kBase});  // refused before the head is read
}

TEST(StreamWalk, UnreadableHead) {
  FlatMemory m;
  Script s;
  s.steps[kBase] = {Flow::link, 4, 0x9000};
  const WalkEnd end = walk_stream(m, kBase, format(), s);
  EXPECT_EQ(end.kind, WalkEnd::Kind::unreadable);
  EXPECT_TRUE(end.error());
  EXPECT_EQ(end.at, 0x9000u);
  EXPECT_EQ(end.fault.va, 0x9000u);
  EXPECT_EQ(end.fault.unit, GpuUnit::vdm);
  EXPECT_EQ(end.message, "Test head at 0x9000 (4 bytes): unmapped at 0x9000");
  // A head straddling the end of memory faults at the first missing byte.
  Script t;
  t.steps[kBase] = {Flow::link, 4, kBase + 4094};
  const WalkEnd straddle = walk_stream(m, kBase, format(), t);
  EXPECT_EQ(straddle.message, "Test head at 0x1ffe (4 bytes): unmapped at 0x2000");
}

TEST(StreamWalk, Runaway) {
  FlatMemory m;
  Script s;  // every block is 4 bytes on: 10 blocks, then the bound
  const WalkEnd end = walk_stream(m, kBase, format(10), s);
  EXPECT_EQ(end.kind, WalkEnd::Kind::runaway);
  EXPECT_EQ(end.blocks, 10u);
  EXPECT_EQ(end.at, kBase + 40);
  EXPECT_EQ(end.message, "stream longer than 10 packets at 0x1028");
}

TEST(StreamWalk, CallDepth) {
  FlatMemory m;
  Script s;
  for (GpuVa va = kBase; va < kBase + 64; va += 8) s.steps[va] = {Flow::call, 8, va + 8};  // each calls the next
  const WalkEnd end = walk_stream(m, kBase, format(100, 3), s);
  EXPECT_EQ(end.kind, WalkEnd::Kind::call_depth);
  EXPECT_EQ(end.at, kBase + 24);
  EXPECT_EQ(end.message, "Stream Link call at 0x1018: call depth 4 exceeds the limit");
}

TEST(StreamWalk, ReturnWithoutCallNamesTheTransfer) {
  FlatMemory m;
  Script s;
  s.steps[kBase] = {Flow::ret};
  WalkEnd end = walk_stream(m, kBase, format(), s);
  EXPECT_EQ(end.kind, WalkEnd::Kind::no_call);
  EXPECT_EQ(end.message, "Stream Return at 0x1000 with no call to return to");
  s.steps[kBase] = {Flow::ret, 4, 0, "Barrier with Returns"};
  end = walk_stream(m, kBase, format(), s);
  EXPECT_EQ(end.message, "Barrier with Returns at 0x1000 with no call to return to");
}

TEST(StreamWalk, Cycles) {
  FlatMemory m;
  // A link back to the start.
  Script s;
  s.steps[kBase + 4] = {Flow::link, 4, kBase};
  WalkEnd end = walk_stream(m, kBase, format(), s);
  EXPECT_EQ(end.kind, WalkEnd::Kind::cycle);
  EXPECT_EQ(end.at, kBase + 4);
  EXPECT_EQ(end.message, "link cycle: Stream Link at 0x1004 to 0x1000 repeats an earlier path (the hardware would loop)");
  // The same subroutine called twice is no cycle (different return stacks);
  // a return that leads back into a loop is.
  Script t;
  t.steps[kBase] = {Flow::call, 8, kBase + 0x100};
  t.steps[kBase + 8] = {Flow::call, 8, kBase + 0x100};
  t.steps[kBase + 0x100] = {Flow::ret};
  t.steps[kBase + 16] = {Flow::terminate};
  end = walk_stream(m, kBase, format(), t);
  EXPECT_EQ(end.kind, WalkEnd::Kind::terminate);
  Script u;
  u.steps[kBase] = {Flow::call, 8, kBase + 0x100};
  u.steps[kBase + 0x100] = {Flow::ret};
  u.steps[kBase + 8] = {Flow::link, 8, kBase};
  end = walk_stream(m, kBase, format(), u);
  EXPECT_EQ(end.kind, WalkEnd::Kind::cycle);
  EXPECT_EQ(end.message,
            "link cycle: Stream Link at 0x1008 to 0x1000 repeats an earlier path (the hardware would loop)");
}

}  // namespace
}  // namespace agx::cmdstream
