// The run loop's fast paths (issue 11, speed) give exactly what the general
// paths give: a device access of 32 lanes with consecutive indices (one
// block copy) against the same access through a memory that offers no host
// pointer (per-lane reads and writes), including index wrap-around at 32
// bits and the narrow formats' zero-extension; and the `if` of a group with
// no nesting against the rule written out here (applegpu IfICmp exec:
// r0l = 0 and the comparison holds -> runs, else r0l = 1).
#include <fmt/format.h>

#include <string>
#include <type_traits>

#include "helpers.h"
#include "util/bits.h"

namespace agx::usc::test {
namespace {

// A RegionMemory whose host pointers are withheld: every access goes lane
// by lane through read/write.
class NoHostPointer : public GpuMemory {
 public:
  RegionMemory inner;
  bool read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) override {
    return inner.read(va, dst, size, unit, fault);
  }
  bool write(GpuVa va, const void* src, size_t size, GpuUnit unit, GpuFault* fault) override {
    return inner.write(va, src, size, unit, fault);
  }
};

// A RegionMemory that counts the host pointers asked for.
class CountingRegions : public GpuMemory {
 public:
  RegionMemory inner;
  size_t host_pointers = 0;
  bool read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) override {
    return inner.read(va, dst, size, unit, fault);
  }
  bool write(GpuVa va, const void* src, size_t size, GpuUnit unit, GpuFault* fault) override {
    return inner.write(va, src, size, unit, fault);
  }
  uint8_t* host_pointer(GpuVa va, size_t size, Access access) override {
    ++host_pointers;
    return inner.host_pointer(va, size, access);
  }
};

std::vector<uint8_t> program(std::string_view text) {
  auto p = isa::assemble_program(text, 0);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
  return p.ok() ? *p : std::vector<uint8_t>{};
}

constexpr uint64_t kSrc = 0x7000'0000, kDst = 0x7100'0000;
constexpr size_t kRegion_B = 64 * 1024;

std::vector<uint8_t> pattern(uint32_t seed) {
  std::vector<uint8_t> b(kRegion_B);
  Rng rng(seed);
  for (auto& x : b) x = static_cast<uint8_t>(rng());
  return b;
}

// Loads from u0_u1 + index, stores to u2_u3 + index, for the format `fmt`
// (i8, i16, i32) and the index signedness `sign`; the index register r1
// holds first + lane. The bases are unaligned on purpose (rounded down to
// the element size).
struct Outcome {
  Status status;
  std::array<LaneArray, 4> r{};
  std::vector<uint8_t> dst;
  size_t host_pointers = 0;
};
template <class Memory>
Outcome run_copy(const char* fmt, const char* sign, uint32_t first, uint64_t src_base, uint64_t dst_base) {
  Memory m;
  EXPECT_TRUE(m.inner.map(kSrc, pattern(7)).ok());
  EXPECT_TRUE(m.inner.map(kDst, std::vector<uint8_t>(kRegion_B, 0xEE)).ok());
  Core c = make_core();
  c.u[0] = uint32_t(src_base);
  c.u[1] = uint32_t(src_base >> 32);
  c.u[2] = uint32_t(dst_base);
  c.u[3] = uint32_t(dst_base >> 32);
  for (unsigned l = 0; l < kLanes; ++l) c.r[2][l] = 0xDEADBEEFu;
  for (unsigned l = 0; l < kLanes; ++l) c.r[1][l] = first + l;
  Memories mem;
  mem.device = &m;
  std::string text = fmt::format(
      "device_load 0, {0}, x, r2, u0_u1, r1{1}\nwait 0\ndevice_store 0, {0}, x, r2, u2_u3, r1{1}, 0\nstop", fmt,
      sign);
  Outcome o;
  o.status = run_code(program(text), c, mem);
  for (unsigned i = 0; i < 4; ++i) o.r[i] = c.r[i];
  o.dst = m.inner.regions().at(kDst);
  if constexpr (std::is_same_v<Memory, CountingRegions>) o.host_pointers = m.host_pointers;
  return o;
}

TEST(FastPath, ConsecutiveLanesMatchPerLaneAccess) {
  struct Case {
    const char* fmt;
    const char* sign;
    uint32_t first;
    uint64_t src, dst;
  };
  const Case cases[] = {
      {"i32", ", unsigned", 0, kSrc, kDst},
      {"i32", ", unsigned", 100, kSrc + 2, kDst + 3},  // bases rounded down to 4
      {"i16", ", unsigned", 17, kSrc + 1, kDst + 1},   // zero-extended into r2
      {"i8", ", unsigned", 5, kSrc, kDst},
      {"i32", ", signed", uint32_t(-8), kSrc + 4096, kDst + 4096},  // negative indices
      // Indices that wrap around 32 bits between lanes: the lanes are not one
      // block (unsigned: 0xFFFFFFF0.. then 0..; signed: INT32_MAX then
      // INT32_MIN), so each lane has its own address; here far outside the
      // regions, a fault in both paths.
      {"i32", ", unsigned", 0xFFFFFFF0u, kSrc, kDst},
      {"i32", ", signed", 0x7FFFFFF0u, kSrc, kDst},
      // The same wrap with a base that brings the signed lanes back into the
      // regions: lanes 0-15 at +2^31 - 16.. and 16-31 at -2^31..: unmapped.
      {"i8", ", signed", 0x7FFFFFF8u, kSrc - 0x7FFFFFF8ull, kDst - 0x7FFFFFF8ull},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(fmt::format("{} {} first {:#x}", k.fmt, k.sign, k.first));
    Outcome fast = run_copy<CountingRegions>(k.fmt, k.sign, k.first, k.src, k.dst);
    Outcome slow = run_copy<NoHostPointer>(k.fmt, k.sign, k.first, k.src, k.dst);
    ASSERT_EQ(fast.status.ok(), slow.status.ok()) << (fast.status.ok() ? slow.status : fast.status).error().message();
    if (!fast.status.ok()) {
      EXPECT_EQ(fast.status.error().message(), slow.status.error().message());
      continue;
    }
    EXPECT_EQ(fast.r, slow.r);
    EXPECT_EQ(fast.host_pointers, 2u);  // one block per instruction
    EXPECT_TRUE(fast.dst == slow.dst);
  }
}

TEST(FastPath, IfWithoutNestingFollowsApplegpuRule) {
  // if_icmp r0l, cc, r1, B, 1 with every lane's r0l 0; B a register (r2),
  // a uniform (u5) or an immediate. cc: ueq, ult, ugt and their negations
  // (the fast path), and slt (signed: the general path).
  const char* conds[] = {"ueq", "ult", "ugt", "nueq", "ugte", "ulte", "slt"};
  const char* sources[] = {"r2", "u5", "17"};
  for (const char* cc : conds)
    for (const char* b : sources) {
      SCOPED_TRACE(fmt::format("{} {}", cc, b));
      Core c = random_core(99, true);
      for (unsigned l = 0; l < kLanes; ++l) {
        c.r[1][l] = l % 3 == 0 ? 17 : l % 7 == 0 ? c.r[1][l] | 0x80000000u : c.r[1][l] % 40;
        c.r[2][l] = l % 5 == 0 ? c.r[1][l] : c.r[2][l] % 40;
      }
      c.u[5] = 17;
      c.present = 0x7FFFFFFFu;  // lane 31 absent: never runs
      c.exec = c.present;
      Core before = c;
      ASSERT_TRUE(run_code(program(fmt::format("if_icmp r0l, {}, r1, {}, 1\nstop", cc, b)), c).ok());
      uint32_t exec = 0;
      for (unsigned l = 0; l < kLanes; ++l) {
        uint32_t x = before.r[1][l];
        uint32_t y = std::string_view(b) == "r2" ? before.r[2][l] : 17;
        std::string_view k = cc;
        bool holds = k == "ueq" ? x == y : k == "ult" ? x < y : k == "ugt" ? x > y
                   : k == "nueq" ? x != y : k == "ugte" ? x >= y : k == "ulte" ? x <= y
                   : int32_t(x) < int32_t(y);
        EXPECT_EQ(c.r[0][l], (before.r[0][l] & 0xFFFF0000u) | (holds ? 0u : 1u)) << l;
        if (holds && l < 31) exec |= 1u << l;
      }
      EXPECT_EQ(c.exec, exec);
    }
}

}  // namespace
}  // namespace agx::usc::test
