// The run loop's fast paths (issue 11, speed) give exactly what the general
// paths give: a device access of 32 lanes with consecutive indices (one
// block copy) against the same access through a memory that offers no host
// pointer (per-lane reads and writes), including index wrap-around at 32
// bits and the narrow formats' zero-extension; and the `if` of a group with
// no nesting against the rule written out here (applegpu IfICmp exec:
// r0l = 0 and the comparison holds -> runs, else r0l = 1).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <string>
#include <type_traits>

#include "helpers.h"
#include "util/bits.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

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

// The plain run loop (no trace) follows the next step in the array unless a
// step changed the flow; the observed loop (trace on) looks every pc up.
// Both must stop at the same place with the same state: a loop with a
// divergent exit and a backward jmp_exec_any, a jmp_exec_none over a body no
// lane runs, a barrier (the run returns after it and resumes), stop, and
// runs cut into single steps by max_steps.
TEST(FastPath, PlainRunLoopMatchesTracedLoop) {
  const char* text = R"(get_sr r5, sr52
mov_imm r3, 0, 0b0
if_icmp r0l, ueq, r0l, 0, 1
iadd r3, r3, 1
while_icmp r0l, ult, r3, r5, 1
jmp_exec_any pc-14
pop_exec r0l, 1
if_icmp r0l, ugt, r5, 100, 1
jmp_exec_none pc+12
mov_imm r4, 1, 0b0
pop_exec r0l, 1
threadgroup_barrier
iadd r6, r3, r5
stop
mov_imm r7, 9, 0b0)";
  auto code = program(text);
  ASSERT_FALSE(code.empty());
  auto p = compile(code, 0);
  ASSERT_TRUE(p.ok());
  for (uint64_t chunk : {UINT64_MAX, uint64_t{1}, uint64_t{3}}) {
    SCOPED_TRACE(fmt::format("max_steps {}", chunk));
    Core plain = random_core(5, true), traced = plain;
    plain.pc = traced.pc = 0;
    std::vector<TraceEntry> trace;
    RunOptions plain_opt, traced_opt;
    traced_opt.trace = &trace;
    std::vector<StopReason> plain_stops, traced_stops;
    for (int i = 0; i < 1000 && (plain_stops.empty() || plain_stops.back() != StopReason::finished); ++i) {
      auto r = run(*p, plain, {}, plain_opt, chunk);
      ASSERT_TRUE(r.ok()) << r.error().message();
      plain_stops.push_back(*r);
    }
    for (int i = 0; i < 1000 && (traced_stops.empty() || traced_stops.back() != StopReason::finished); ++i) {
      auto r = run(*p, traced, {}, traced_opt, chunk);
      ASSERT_TRUE(r.ok()) << r.error().message();
      traced_stops.push_back(*r);
    }
    EXPECT_EQ(plain_stops, traced_stops);
    EXPECT_EQ(plain.r, traced.r);
    EXPECT_EQ(plain.exec, traced.exec);
    EXPECT_EQ(plain.pc, traced.pc);
    EXPECT_EQ(plain_stops.back(), StopReason::finished);
    EXPECT_NE(std::find(plain_stops.begin(), plain_stops.end(), StopReason::barrier), plain_stops.end());
    for (unsigned l = 0; l < kLanes; ++l)
      if (plain.exec >> l & 1) {
        EXPECT_EQ(plain.r[3][l], std::max(1u, l)) << l;  // the loop ran to each lane's exit
        EXPECT_EQ(plain.r[6][l], plain.r[3][l] + l) << l;
      }
    EXPECT_EQ(plain.r[7], traced.r[7]);  // after stop: never run
  }
  // A step limit and a jump out of the program fail alike in both loops.
  for (const char* bad : {"iadd r3, r3, 1\njmp_exec_any pc-8\nstop", "jmp_exec_any pc+64\nstop"}) {
    SCOPED_TRACE(bad);
    auto q = compile(program(bad), 0);
    ASSERT_TRUE(q.ok());
    Core a = make_core(), b = make_core();
    RunOptions plain_opt, traced_opt;
    plain_opt.step_limit = traced_opt.step_limit = 50;
    traced_opt.on_trace = [](const TraceEntry&) {};
    auto ra = run(*q, a, {}, plain_opt), rb = run(*q, b, {}, traced_opt);
    ASSERT_FALSE(ra.ok());
    ASSERT_FALSE(rb.ok());
    EXPECT_EQ(ra.error().message(), rb.error().message());
    EXPECT_EQ(a.pc, b.pc);
    EXPECT_EQ(a.r, b.r);
  }
}

// get_sr of a per-lane special register into a 32-bit register is a copy
// when every lane is active; with some lanes inactive (and for the dynamic
// registers) it is the general path: only active lanes are written.
TEST(FastPath, GetSrCopyMatchesGeneralPath) {
  for (uint32_t exec : {0xFFFFFFFFu, 0x0F0F00F1u}) {
    for (unsigned sr : {80u, 52u, 20u, 58u, 63u}) {
      SCOPED_TRACE(fmt::format("exec {:#x} sr{}", exec, sr));
      Core c = random_core(11, true);
      place(c, Placement{{3, 0, 0}, {64, 1, 1}, 1, {}});
      c.sr_known[20] = true;
      c.sr[20].fill(5);
      c.exec = exec;
      Core before = c;
      ASSERT_TRUE(run_code(program(fmt::format("get_sr r3, sr{}\nstop", sr)), c).ok());
      for (unsigned l = 0; l < kLanes; ++l) {
        uint32_t below = exec & ((1u << l) - 1);
        uint32_t want = sr == 58 ? std::popcount(below) : sr == 63 ? (exec >> l & 1) : before.sr[sr][l];
        EXPECT_EQ(c.r[3][l], (exec >> l & 1) ? want : before.r[3][l]) << l;
      }
      EXPECT_TRUE(c.written[3]);
    }
  }
}

}  // namespace
}  // namespace agx::usc::test
