// Device and threadgroup atomics: every op on random 32-lane state with
// partial exec masks and many lanes hitting the same word. The reference
// below applies the active lanes one at a time in ascending lane order (the
// order the emulator documents) and records each lane's old value; the
// operation meanings are those of applegpu's atomic op names (add, sub,
// xchg, cmpxchg, umin, imin, umax, imax, and, or, xor) with cmpxchg's pair
// S = new value, S+1 = compare value as Mesa's AGX compiler packs it.
#include <cstring>

#include "helpers.h"
#include "util/bits.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

constexpr uint64_t kBase = 0x200000;
constexpr unsigned kWords = 64;

uint32_t ref_op(unsigned op, uint32_t old, uint32_t v, uint32_t cmp) {
  switch (op) {
    case 0: return old + v;
    case 1: return old - v;
    case 2: return v;
    case 3: return old == cmp ? v : old;
    case 4: return std::min(old, v);
    case 5: return uint32_t(std::min(int32_t(old), int32_t(v)));
    case 6: return std::max(old, v);
    case 7: return uint32_t(std::max(int32_t(old), int32_t(v)));
    case 8: return old & v;
    case 9: return old | v;
    default: return old ^ v;
  }
}

// Registers used: r10_r11 device base, r12 index, r8l threadgroup base, r9l
// threadgroup index, r20 (r20_r21 for cmpxchg) source, r30 old value.
struct State {
  Core c;
  std::vector<uint8_t> words;  // kWords little-endian words
  explicit State(uint32_t seed, unsigned op) : c(random_core(seed)) {
    Rng rng(seed * 7 + 1);
    words.resize(kWords * 4);
    // Small values so cmpxchg compares hit often; signed ops see negatives.
    for (unsigned i = 0; i < kWords; ++i) store_le<uint32_t>(&words[i * 4], small(rng));
    for (unsigned l = 0; l < kLanes; ++l) {
      c.r[10][l] = uint32_t(kBase + 16 * 4 + (rng() & 3));  // unaligned base: rounded down
      c.r[11][l] = 0;
      c.r[12][l] = uint32_t(int32_t(rng() % 8) - 4);        // signed, lanes collide
      c.r[8][l] = (c.r[8][l] & 0xFFFF0000u) | (16 * 4);      // threadgroup base (bytes)
      c.r[9][l] = (c.r[9][l] & 0xFFFF0000u) | (rng() % 6);   // threadgroup index
      c.r[20][l] = op == 3 ? small(rng) : rng() % 3 == 0 ? small(rng) : rng();
      c.r[21][l] = small(rng);
    }
  }
  static uint32_t small(Rng& rng) { return uint32_t(int32_t(rng() % 5) - 2); }
};

// Applies the active lanes in ascending order to `words` (word index per
// lane from `index_of`), returning each lane's old value.
template <typename F>
std::array<uint32_t, kLanes> reference(const Core& c, unsigned op, std::vector<uint8_t>& words, F index_of) {
  std::array<uint32_t, kLanes> old{};
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!on(c, l)) continue;
    uint8_t* p = &words[index_of(l) * 4];
    old[l] = load_le<uint32_t>(p);
    store_le<uint32_t>(p, ref_op(op, old[l], c.r[20][l], c.r[21][l]));
  }
  return old;
}

std::vector<uint8_t> mapped(RegionMemory& mem) {
  std::vector<uint8_t> got(kWords * 4);
  GpuFault f;
  EXPECT_TRUE(mem.read(kBase, got.data(), got.size(), GpuUnit::host, &f));
  return got;
}

std::vector<uint8_t> device_atomic(unsigned op, bool ret, Fields extra = {}) {
  std::vector<std::pair<std::string_view, uint32_t>> f = {
      {"op", op}, {"Rt", ret}, {"R", 60}, {"At", 0}, {"A", 20}, {"Ot", 0}, {"O", 24}, {"Ou", 0}, {"S", 40}};
  for (auto& e : extra)
    for (auto& x : f)
      if (x.first == e.first) x.second = e.second;
  auto e = isa::encode_fields(Opcode::atomic, f);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  if (!e.ok()) return {};
  return {e->span().begin(), e->span().end()};
}

// R field 60: r30 (Rt = 1, register 60 >> 1) or r30l (Rt = 0: half 60).
std::vector<uint8_t> threadgroup_atomic(unsigned op, bool ret, bool r32 = true) {
  return enc(Opcode::threadgroup_atomic, {{"op", op}, {"Rt", r32}, {"Ra", ret}, {"R", 60}, {"At", 0},
                                          {"A", 16}, {"Ot", 0}, {"O", 18}, {"S", 40}});
}

TEST(Atomic, DeviceEveryOpMatchesSerialLaneOrder) {
  for (unsigned op = 0; op <= 10; ++op) {
    for (uint32_t seed = 1; seed <= 6; ++seed) {
      SCOPED_TRACE(testing::Message() << "op " << op << " seed " << seed);
      State st(seed * 100 + op, op);
      RegionMemory mem;
      ASSERT_TRUE(mem.map(kBase, st.words).ok());
      Core want = st.c;
      std::vector<uint8_t> want_words = st.words;
      auto old = reference(st.c, op, want_words, [&](unsigned l) { return 16 + int32_t(st.c.r[12][l]); });
      bool ret = seed % 3 != 0;
      ASSERT_TRUE(run_code(device_atomic(op, ret), st.c, {&mem}).ok());
      std::vector<uint8_t> got = mapped(mem);
      EXPECT_EQ(got, want_words);
      for (unsigned l = 0; l < kLanes; ++l)
        EXPECT_EQ(st.c.r[30][l], ret && on(want, l) ? old[l] : want.r[30][l]) << "lane " << l;
      for (unsigned r : {10u, 12u, 20u, 21u}) EXPECT_EQ(st.c.r[r], want.r[r]);
    }
  }
}

TEST(Atomic, DeviceImmediateAndUnsignedIndex) {
  State st(77, 0);
  RegionMemory mem;
  ASSERT_TRUE(mem.map(kBase, st.words).ok());
  // Immediate index -3: word 16 - 3 = 13 for every lane.
  std::vector<uint8_t> want_words = st.words;
  auto old = reference(st.c, 0, want_words, [](unsigned) { return 13u; });
  ASSERT_TRUE(run_code(device_atomic(0, true, {{"Ot", 1}, {"O", 0xFFFD}}), st.c, {&mem}).ok());
  std::vector<uint8_t> got = mapped(mem);
  EXPECT_EQ(got, want_words);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (on(st.c, l)) {
      EXPECT_EQ(st.c.r[30][l], old[l]);
    }
  }
  // Unsigned register index: 0xFFFFFFFF is 4 Gi words past the base, which
  // is unmapped, so the access faults instead of wrapping to word 15.
  for (auto& v : st.c.r[12]) v = 0xFFFFFFFFu;
  Status s = run_code(device_atomic(0, true, {{"Ou", 1}}), st.c, {&mem});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("pc 0x0"), std::string::npos) << s.error().message();
  // The same index signed is -1: word 15.
  ASSERT_TRUE(run_code(device_atomic(0, true), st.c, {&mem}).ok());
}

TEST(Atomic, ThreadgroupEveryOpMatchesSerialLaneOrder) {
  for (unsigned op = 0; op <= 10; ++op) {
    for (uint32_t seed = 1; seed <= 6; ++seed) {
      SCOPED_TRACE(testing::Message() << "op " << op << " seed " << seed);
      State st(seed * 31 + op, op);
      std::vector<uint8_t> tg = st.words;
      Memories m;
      m.threadgroup = &tg;
      Core want = st.c;
      std::vector<uint8_t> want_words = st.words;
      auto old = reference(st.c, op, want_words, [&](unsigned l) { return 16 + (st.c.r[9][l] & 0xFFFF); });
      bool ret = seed % 3 != 0;
      bool r32 = seed % 2 == 0;
      ASSERT_TRUE(run_code(threadgroup_atomic(op, ret, r32), st.c, m).ok());
      EXPECT_EQ(tg, want_words);
      for (unsigned l = 0; l < kLanes; ++l) {
        uint32_t prev = want.r[30][l];
        uint32_t w = r32 ? (ret && on(want, l) ? old[l] : want.r[30][l])
                         : (ret && on(want, l) ? (prev & 0xFFFF0000u) | (old[l] & 0xFFFFu) : prev);
        EXPECT_EQ(st.c.r[30][l], w) << "lane " << l;
      }
    }
  }
}

TEST(Atomic, BadAccessesAreErrorsNamingThePc) {
  State st(5, 0);
  Status s = run_code(device_atomic(0, true), st.c, {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("no device memory"), std::string::npos) << s.error().message();
  std::vector<uint8_t> tg(32);  // base 64 is past its end
  Memories m;
  m.threadgroup = &tg;
  s = run_code(threadgroup_atomic(0, true), st.c, m);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("outside the 32 bytes"), std::string::npos) << s.error().message();
  // An op code past xor is not one the emulator knows.
  s = run_code(device_atomic(12, true), st.c, {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("not supported by the emulator"), std::string::npos) << s.error().message();
}

}  // namespace
}  // namespace agx::usc::test
