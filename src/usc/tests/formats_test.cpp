// Memory formats (formats.cpp): the load conversions against applegpu's
// exec over every input value (tests/data/formats_load_vectors.txt, from
// dougallj/applegpu 4c5bae61), the derived store conversions against
// brute-force references written here, round trips, and every format
// through device, threadgroup and stack instructions with random 32-lane
// states, partial exec masks, every mask and both register sizes.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "helpers.h"
#include "usc/formats.h"
#include "util/bits.h"
#include "util/half.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using detail::MemFormat;
using isa::Opcode;

constexpr const char* kVectors = "tests/data/formats_load_vectors.txt";
constexpr uint64_t kBase = 0x200000;
constexpr uint32_t code_of(MemFormat f) { return static_cast<uint32_t>(f); }
constexpr uint32_t kDefined[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 13, 14, 15};

// ---- The vector file ------------------------------------------------------

struct Vectors {
  struct Hash { uint32_t f; unsigned bits, comp, count; uint64_t fnv; };
  struct Load { uint32_t f; unsigned bits, comp; uint32_t in, out; };
  std::vector<Hash> hashes;
  std::vector<Load> loads;
  std::map<unsigned, std::array<uint32_t, 256>> srgb;  // by destination bits
};

uint32_t format_code(const std::string& name) {
  for (uint32_t f = 0; f < 16; ++f)
    if (detail::memory_format_name(f) == name) return f;
  ADD_FAILURE() << "unknown format " << name;
  return 0;
}

const Vectors& vectors() {
  static const Vectors v = [] {
    Vectors out;
    std::ifstream in(kVectors);
    EXPECT_TRUE(in.good()) << "cannot open " << kVectors;
    std::string line, kind, name, a, b, c;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ss(line);
      unsigned bits = 0, comp = 0, count = 0;
      ss >> kind;
      if (kind == "hash") {
        ss >> name >> bits >> comp >> count >> a;
        out.hashes.push_back({format_code(name), bits, comp, count, std::stoull(a, nullptr, 16)});
      } else if (kind == "load") {
        ss >> name >> bits >> comp >> a >> b;
        out.loads.push_back({format_code(name), bits, comp, uint32_t(std::stoul(a, nullptr, 16)),
                             uint32_t(std::stoul(b, nullptr, 16))});
      } else if (kind == "srgb") {
        ss >> bits >> count >> a;
        out.srgb[bits].at(count) = uint32_t(std::stoul(a, nullptr, 16));
      }
      EXPECT_FALSE(ss.fail()) << line;
    }
    return out;
  }();
  return v;
}

// The word whose component `comp` has field value `in` (rgb9e5: exponent
// << 9 | mantissa), the other fields zero, as the vector file counts them.
uint32_t packed_input(uint32_t f, unsigned comp, uint32_t in) {
  switch (static_cast<MemFormat>(f)) {
    case MemFormat::rgb10a2: return in << (10 * comp);
    case MemFormat::rg11b10f: case MemFormat::rg11b10f_rtz: return in << (11 * comp);
    default: return (in & 0x1FF) << (9 * comp) | (in >> 9) << 27;
  }
}

uint32_t convert_input(uint32_t f, unsigned comp, uint32_t in, bool r32) {
  if (!detail::bit_packed(f)) return detail::load_element(f, comp, in, r32);
  uint32_t out[4] = {};
  detail::load_word(f, packed_input(f, comp, in), r32, out);
  return out[comp];
}

uint64_t fnv1a(const std::vector<uint32_t>& values) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint32_t v : values)
    for (unsigned i = 0; i < 4; ++i) h = (h ^ ((v >> (8 * i)) & 0xFF)) * 0x100000001b3ull;
  return h;
}

TEST(Formats, VectorFileIsComplete) {
  const Vectors& v = vectors();
  EXPECT_EQ(v.hashes.size(), 32u);  // 16 (format, component) pairs x 2 sizes
  EXPECT_GE(v.loads.size(), 200u);
  EXPECT_EQ(v.srgb.size(), 2u);
}

// Every input value of every converting format, both sizes: the hash of
// the outputs equals the hash of applegpu's; the .rtz forms load alike.
TEST(Formats, LoadConversionsMatchApplegpuForEveryInput) {
  for (const auto& h : vectors().hashes) {
    bool r32 = h.bits == 32;
    std::vector<uint32_t> outs(h.count), rtz(h.count);
    for (uint32_t in = 0; in < h.count; ++in) outs[in] = convert_input(h.f, h.comp, in, r32);
    EXPECT_EQ(fnv1a(outs), h.fnv) << detail::memory_format_name(h.f) << " " << h.bits << "-bit component " << h.comp;
    if (h.f == code_of(MemFormat::rg11b10f) || h.f == code_of(MemFormat::rgb9e5)) {
      for (uint32_t in = 0; in < h.count; ++in) rtz[in] = convert_input(h.f + 2, h.comp, in, r32);
      EXPECT_EQ(rtz, outs) << detail::memory_format_name(h.f + 2);
    }
  }
}

TEST(Formats, LoadSamplesMatchApplegpu) {
  for (const auto& l : vectors().loads)
    EXPECT_EQ(convert_input(l.f, l.comp, l.in, l.bits == 32), l.out)
        << detail::memory_format_name(l.f) << " " << l.bits << "-bit component " << l.comp << " input " << l.in;
}

// srgb.py's table is the sRGB decode quantized to 12 bits: entry v is
// k/4095 rounded to f32, k = round(decode(v / 255) * 4095). f32 loads give
// it unchanged, f16 loads round it once (to nearest even).
TEST(Formats, SrgbTableIsTwelveBitDecode) {
  const auto& srgb = vectors().srgb;
  for (unsigned v = 0; v < 256; ++v) {
    double c = v / 255.0;
    double linear = c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    double k = std::nearbyint(linear * 4095);
    uint32_t want = std::bit_cast<uint32_t>(static_cast<float>(k / 4095));
    EXPECT_EQ(detail::srgb8_to_linear_f32_bits(uint8_t(v)), want) << v;
    EXPECT_EQ(srgb.at(32)[v], want) << v;
    EXPECT_EQ(srgb.at(16)[v], float_to_half(std::bit_cast<float>(want))) << v;
    EXPECT_EQ(detail::load_element(code_of(MemFormat::srgba8), 0, v, false), srgb.at(16)[v]) << v;
  }
}

// ---- Store references (derived conversions, brute force) ------------------

double source_value(uint32_t reg, bool r32) {
  return r32 ? double(std::bit_cast<float>(reg)) : half_to_double(uint16_t(reg));
}

// Nearest integer to t >= 0, ties to even, found by comparing neighbours.
double nearest_even(double t) {
  double k = std::floor(t), frac = t - k;
  bool up = frac > 0.5 || (frac == 0.5 && std::fmod(k, 2.0) != 0);
  return up ? k + 1 : k;
}

uint32_t ref_unorm(double x, unsigned bits) {
  if (std::isnan(x) || x <= 0) return 0;
  double scale = double((1u << bits) - 1);
  if (x >= 1) return uint32_t(scale);
  return uint32_t(nearest_even(x * scale));
}

uint32_t ref_snorm(double x, unsigned bits) {
  if (std::isnan(x)) return 0;
  double scale = double((1u << (bits - 1)) - 1);
  x = std::min(std::max(x, -1.0), 1.0);
  double m = nearest_even(std::fabs(x) * scale);
  int64_t v = x < 0 ? -int64_t(m) : int64_t(m);
  return uint32_t(v) & uint32_t(low_mask(bits));
}

uint32_t ref_srgb8(double x) {
  if (std::isnan(x) || x <= 0) return 0;
  if (x >= 1) return 255;
  double s = x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow(x, 1 / 2.4) - 0.055;
  return ref_unorm(s, 8);
}

// Unsigned small float by search: codes in increasing order are values in
// increasing order, so find the neighbours of x among the finite codes.
double small_value(uint32_t code, unsigned mant) {
  uint32_t e = code >> mant, m = code & ((1u << mant) - 1);
  return e ? std::ldexp(1.0 + m / double(1u << mant), int(e) - 15) : std::ldexp(m / double(1u << mant), -14);
}
uint32_t ref_small_float(double x, unsigned mant, bool rtz) {
  uint32_t inf = 0x1Fu << mant;
  if (std::isnan(x)) return inf | 1;
  if (x == INFINITY) return inf;
  if (!(x > 0)) return 0;
  uint32_t lo = 0, hi = inf - 1;  // largest finite code
  if (x >= small_value(hi, mant)) return hi;
  while (hi - lo > 1) {  // small_value(lo) <= x < small_value(hi)
    uint32_t mid = (lo + hi) / 2;
    (small_value(mid, mant) <= x ? lo : hi) = mid;
  }
  if (rtz || x == small_value(lo, mant)) return lo;
  double dl = x - small_value(lo, mant), dh = small_value(hi, mant) - x;
  return dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi);
}

// rgb9e5 by search: the smallest shared exponent whose rounded mantissas
// all fit in 9 bits.
uint32_t ref_rgb9e5(const double in[3], bool rtz) {
  double v[3];
  for (unsigned n = 0; n < 3; ++n) {
    double x = std::isnan(in[n]) ? 0 : in[n];
    v[n] = std::min(std::max(x, 0.0), 65408.0);
  }
  for (uint32_t e = 0; e < 32; ++e) {
    uint32_t m[3];
    bool fits = true;
    for (unsigned n = 0; n < 3; ++n) {
      double q = v[n] / std::ldexp(1.0, int(e) - 24);
      double r = rtz ? std::floor(q) : nearest_even(q);
      fits = fits && r < 512;
      m[n] = fits ? uint32_t(r) : 0;
    }
    if (fits) return e << 27 | m[2] << 18 | m[1] << 9 | m[0];
  }
  ADD_FAILURE() << "no exponent fits";
  return 0;
}

uint32_t ref_store_element(uint32_t f, unsigned pos, uint32_t reg, bool r32) {
  double x = source_value(reg, r32);
  switch (static_cast<MemFormat>(f)) {
    case MemFormat::i8: return reg & 0xFF;
    case MemFormat::i16: case MemFormat::f16: return reg & 0xFFFF;
    case MemFormat::i32: return reg;
    case MemFormat::u8norm: return ref_unorm(x, 8);
    case MemFormat::s8norm: return ref_snorm(x, 8);
    case MemFormat::u16norm: return ref_unorm(x, 16);
    case MemFormat::s16norm: return ref_snorm(x, 16);
    case MemFormat::srgba8: return pos == 3 ? ref_unorm(x, 8) : ref_srgb8(x);
    default: ADD_FAILURE() << "not a per-element format " << f; return 0;
  }
}

uint32_t ref_store_word(uint32_t f, const uint32_t regs[4], bool r32) {
  double c[4];
  for (unsigned n = 0; n < 4; ++n) c[n] = source_value(regs[n], r32);
  switch (static_cast<MemFormat>(f)) {
    case MemFormat::rgb10a2:
      return ref_unorm(c[0], 10) | ref_unorm(c[1], 10) << 10 | ref_unorm(c[2], 10) << 20 | ref_unorm(c[3], 2) << 30;
    case MemFormat::rg11b10f: case MemFormat::rg11b10f_rtz: {
      bool rtz = f == code_of(MemFormat::rg11b10f_rtz);
      return ref_small_float(c[0], 6, rtz) | ref_small_float(c[1], 6, rtz) << 11 | ref_small_float(c[2], 5, rtz) << 22;
    }
    default: return ref_rgb9e5(c, f == code_of(MemFormat::rgb9e5_rtz));
  }
}

// Register values that exercise the conversions: specials, values in the
// normalized range, large values, tiny values and random bits.
uint32_t store_input(Rng& rng, bool r32) {
  static constexpr uint32_t kSpecial32[] = {0, 0x80000000u, 0x3F800000u, 0xBF800000u, 0x7F800000u, 0xFF800000u,
                                             0x7FC00000u, 0xFFC00001u, 0x3F000000u, 0x477E0000u, 0x477F8000u,
                                             0x477FC000u, 0x4F000000u, 0x00000001u, 0x33800000u, 0x3F808000u};
  static constexpr uint32_t kSpecial16[] = {0, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0xFE01,
                                             0x3800, 0x7BFF, 0x7BF0, 0x0001, 0x03FF, 0x3C08, 0x3C18, 0xB800};
  auto from_double = [r32](double d) {
    return r32 ? std::bit_cast<uint32_t>(static_cast<float>(d)) : uint32_t{double_to_half(d)};
  };
  switch (rng() % 8) {
    case 0: return r32 ? kSpecial32[rng() % 16] : kSpecial16[rng() % 16];
    case 1: case 2: case 3: return from_double((rng() % 100001) / 40000.0 - 1.25);
    case 4: return from_double((rng() % 1000001) * 0.07);
    case 5: return from_double(std::ldexp(1.0 + (rng() % 4096) / 4096.0, int(rng() % 48) - 30));
    default: return r32 ? rng() : rng() & 0xFFFF;
  }
}

// Pinned store vectors (worked out by hand from the derived rules).
TEST(Formats, StoreVectors) {
  auto f32 = [](float x) { return std::bit_cast<uint32_t>(x); };
  using detail::store_element;
  EXPECT_EQ(store_element(code_of(MemFormat::u8norm), 0, f32(0.5f), true), 128u);  // 127.5: tie to even
  EXPECT_EQ(store_element(code_of(MemFormat::u8norm), 0, f32(1.5f), true), 255u);
  EXPECT_EQ(store_element(code_of(MemFormat::u8norm), 0, 0x7FC00000u, true), 0u);
  EXPECT_EQ(store_element(code_of(MemFormat::s8norm), 0, f32(-1.0f), true), 0x81u);
  EXPECT_EQ(store_element(code_of(MemFormat::s8norm), 0, f32(-7.0f), true), 0x81u);
  EXPECT_EQ(store_element(code_of(MemFormat::s8norm), 0, f32(0.5f), true), 0x40u);  // 63.5: tie to even
  EXPECT_EQ(store_element(code_of(MemFormat::s16norm), 0, 0xBC00u, false), 0x8001u);
  EXPECT_EQ(store_element(code_of(MemFormat::u16norm), 0, 0x3C00u, false), 0xFFFFu);
  EXPECT_EQ(store_element(code_of(MemFormat::srgba8), 0, f32(0.5f), true), 188u);  // 0.7354 * 255 = 187.5...
  EXPECT_EQ(store_element(code_of(MemFormat::srgba8), 3, f32(0.5f), true), 128u);  // alpha stays linear
  EXPECT_EQ(store_element(code_of(MemFormat::i8), 0, 0x12345678u, true), 0x78u);
  EXPECT_EQ(store_element(code_of(MemFormat::f16), 0, 0x12345678u, true), 0x5678u);
  uint32_t one_two_half[4] = {f32(1.0f), f32(2.0f), f32(0.5f), 0};
  EXPECT_EQ(detail::store_word(code_of(MemFormat::rg11b10f), one_two_half, true), 0x3C0u | 0x400u << 11 | 0x1C0u << 22);
  uint32_t ties[4] = {f32(1.0f + 1.0f / 128), f32(1.0f + 3.0f / 128), f32(1e9f), 0};  // ties: even mantissa
  EXPECT_EQ(detail::store_word(code_of(MemFormat::rg11b10f), ties, true), 0x3C0u | 0x3C2u << 11 | 0x3DFu << 22);
  EXPECT_EQ(detail::store_word(code_of(MemFormat::rg11b10f_rtz), ties, true), 0x3C0u | 0x3C1u << 11 | 0x3DFu << 22);
  uint32_t specials[4] = {0x7FC00000u, 0xFF800000u, 0x7F800000u, 0};  // NaN, -inf, +inf
  EXPECT_EQ(detail::store_word(code_of(MemFormat::rg11b10f), specials, true), 0x7C1u | 0u << 11 | 0x3E0u << 22);
  uint32_t rgb[4] = {f32(1.0f), f32(0.5f), f32(0.25f), 0};
  EXPECT_EQ(detail::store_word(code_of(MemFormat::rgb9e5), rgb, true), 16u << 27 | 64u << 18 | 128u << 9 | 256u);
  uint32_t bump[4] = {f32(511.75f / 512), 0, 0, 0};  // rounds to 512: next exponent
  EXPECT_EQ(detail::store_word(code_of(MemFormat::rgb9e5), bump, true), 16u << 27 | 256u);
  EXPECT_EQ(detail::store_word(code_of(MemFormat::rgb9e5_rtz), bump, true), 15u << 27 | 511u);
  uint32_t rgba[4] = {f32(1.0f), f32(0.0f), f32(0.5f), f32(0.5f)};
  EXPECT_EQ(detail::store_word(code_of(MemFormat::rgb10a2), rgba, true), 1023u | 512u << 20 | 2u << 30);
}

// Every f16 register value and many f32 values through every converting
// store, against the brute-force references.
TEST(Formats, StoreConversionsMatchReferences) {
  Rng rng(7);
  for (bool r32 : {false, true}) {
    for (uint32_t i = 0; i < 65536; ++i) {
      uint32_t reg = r32 ? store_input(rng, true) : i;
      for (uint32_t f : {4u, 5u, 6u, 7u})
        ASSERT_EQ(detail::store_element(f, 0, reg, r32), ref_store_element(f, 0, reg, r32)) << f << " " << reg;
      for (unsigned pos : {0u, 3u})
        ASSERT_EQ(detail::store_element(10, pos, reg, r32), ref_store_element(10, pos, reg, r32)) << reg;
      uint32_t regs[4] = {reg, r32 ? store_input(rng, true) : rng() & 0xFFFF, r32 ? store_input(rng, true) : i ^ 0x8000,
                          r32 ? store_input(rng, true) : rng() & 0xFFFF};
      for (uint32_t f : {8u, 12u, 13u, 14u, 15u})
        ASSERT_EQ(detail::store_word(f, regs, r32), ref_store_word(f, regs, r32))
            << detail::memory_format_name(f) << " " << std::hex << regs[0] << " " << regs[1] << " " << regs[2];
    }
  }
}

// store(load(x)) gives x back for every encoding that is the unique one of
// its value; for the rest (snorm's -128, NaNs, rgb9e5's many encodings) the
// loaded value survives a second trip.
TEST(Formats, RoundTrips) {
  for (bool r32 : {false, true}) {
    for (uint32_t f : {4u, 5u, 6u, 7u, 10u}) {
      unsigned bits = detail::memory_element_B(f) * 8;
      if (bits == 16 && !r32) continue;  // 16-bit unorm/snorm do not fit in f16
      for (unsigned pos : {0u, 3u}) {
        for (uint32_t v = 0; v < (1u << bits); ++v) {
          uint32_t reg = detail::load_element(f, pos, v, r32);
          uint32_t back = detail::store_element(f, pos, reg, r32);
          bool snorm_min = (f == 5 || f == 7) && v == (1u << (bits - 1));
          ASSERT_EQ(back, snorm_min ? v + 1 : v) << detail::memory_format_name(f) << " " << r32 << " " << v;
        }
      }
    }
    Rng rng(11);
    for (uint32_t f : {8u, 12u, 13u, 14u, 15u}) {
      for (unsigned i = 0; i < 40000; ++i) {
        uint32_t word = i < 2048 ? i | i << 11 | (i & 0x3FF) << 22 : rng();  // every field value, then random
        uint32_t regs[4] = {}, again[4] = {};
        detail::load_word(f, word, r32, regs);
        uint32_t back = detail::store_word(f, regs, r32);
        detail::load_word(f, back, r32, again);
        ASSERT_EQ(std::vector<uint32_t>(again, again + 4), std::vector<uint32_t>(regs, regs + 4))
            << detail::memory_format_name(f) << " word " << std::hex << word;
        bool nan = false;
        for (unsigned n = 0; n < 3; ++n) nan = nan || (r32 ? (regs[n] & 0x7FFFFFFFu) > 0x7F800000u : half_is_nan(uint16_t(regs[n])));
        if (f == 8 || ((f == 12 || f == 14) && !nan)) {
          ASSERT_EQ(back, word) << detail::memory_format_name(f) << " " << word;
        }
      }
    }
  }
}

// ---- Through the instructions ----------------------------------------------

// device_load/store F, mask: data from r40 (32-bit) or r40l (16-bit), base
// r10_r11, element offset r12 (signed), shift s.
std::vector<uint8_t> dev(Opcode op, uint32_t f, uint32_t mask, bool r32, uint32_t s) {
  return enc(op, {{"F", f}, {"mask", mask}, {"Rt", r32}, {"R", 80}, {"At", 0}, {"A", 20},
                  {"Ot", 0}, {"O", 24}, {"Ou", 0}, {"s", s}});
}

uint32_t reg_value(const Core& c, bool r32, unsigned k, unsigned l) {
  return r32 ? c.r[40 + k][l] : c.r16(80 + k, l);
}

struct DeviceCase {
  RegionMemory mem;
  std::vector<uint8_t> bytes;
  Core c;
  DeviceCase(uint32_t seed, bool r32) : c(random_core(seed)) {
    Rng rng(seed);
    bytes.resize(4096);
    for (auto& b : bytes) b = uint8_t(rng());
    for (unsigned l = 0; l < kLanes; ++l) {
      c.r[10][l] = uint32_t(kBase + 1024 + rng() % 64);  // unaligned on purpose
      c.r[11][l] = 0;
      c.r[12][l] = uint32_t(int32_t(rng() % 64) - 32);
      for (unsigned k = 0; k < 4; ++k) {
        uint32_t v = store_input(rng, r32);
        if (r32) c.r[40 + k][l] = v;
        else c.r[40 + k / 2][l] = (k & 1) ? (c.r[40 + k / 2][l] & 0xFFFF) | v << 16 : (c.r[40 + k / 2][l] & 0xFFFF0000u) | v;
      }
    }
    EXPECT_TRUE(mem.map(kBase, bytes).ok());
  }
  // Byte address of element `pos` of lane l, as applegpu's exec computes it.
  uint64_t address(uint32_t f, uint32_t s, unsigned l, unsigned pos) const {
    unsigned size = detail::memory_element_B(f);
    int64_t off = int32_t(c.r[12][l]);
    if (detail::bit_packed(f)) return (uint64_t{c.r[10][l]} & ~uint64_t{3}) + uint64_t(off * 4);
    off *= int64_t{1} << (s == 3 ? 2 : s);
    return (uint64_t{c.r[10][l]} & ~uint64_t{size - 1}) + uint64_t((off + pos) * int64_t(size));
  }
};

TEST(Formats, DeviceStoreEveryFormatMaskAndSize) {
  uint32_t seed = 100;
  for (uint32_t f : kDefined)
    for (bool r32 : {false, true})
      for (uint32_t mask = 0; mask < 16; ++mask) {
        if (f == 2 && !r32) continue;  // illegal (see ErrorsNamePcAndFormat)
        uint32_t s = seed % 4;
        DeviceCase t(seed++, r32);
        std::vector<uint8_t> want = t.bytes;
        for (unsigned l = 0; l < kLanes; ++l) {
          if (!on(t.c, l)) continue;
          auto put = [&](uint64_t a, uint32_t v, unsigned size) {
            for (unsigned b = 0; b < size; ++b) want.at(a - kBase + b) = uint8_t(v >> (8 * b));
          };
          if (detail::bit_packed(f)) {
            uint32_t regs[4] = {};
            for (unsigned k = 0; k < detail::packed_registers(f); ++k) regs[k] = reg_value(t.c, r32, k, l);
            put(t.address(f, s, l, 0), ref_store_word(f, regs, r32), 4);
            continue;
          }
          unsigned k = 0;
          for (unsigned i = 0; i < 4; ++i)
            if (mask >> i & 1)
              put(t.address(f, s, l, i), ref_store_element(f, i, reg_value(t.c, r32, k++, l), r32),
                  detail::memory_element_B(f));
        }
        Core before = t.c;
        ASSERT_TRUE(run_code(dev(Opcode::device_store, f, mask, r32, s), t.c, {&t.mem}).ok());
        std::vector<uint8_t> got(4096);
        GpuFault gf;
        ASSERT_TRUE(t.mem.read(kBase, got.data(), got.size(), GpuUnit::host, &gf));
        ASSERT_EQ(got, want) << detail::memory_format_name(f) << " mask " << mask << " r32 " << r32;
        EXPECT_EQ(t.c.r, before.r);
      }
}

// Loads of every format with random bytes: per lane, the registers the
// references give (converting formats from the applegpu-checked
// conversions), the rest untouched; every mask, both sizes.
TEST(Formats, DeviceLoadEveryFormatMaskAndSize) {
  uint32_t seed = 900;
  for (uint32_t f : kDefined)
    for (bool r32 : {false, true})
      for (uint32_t mask = 0; mask < 16; ++mask) {
        if (f == 2 && !r32) continue;
        uint32_t s = seed % 4;
        DeviceCase t(seed++, r32);
        Core want = t.c;
        for (unsigned l = 0; l < kLanes; ++l) {
          if (!on(want, l)) continue;
          // The .rtz forms are per-element formats in applegpu's exec: an
          // empty mask reads nothing (applegpu_packed_test.cpp).
          if (mask == 0 && (f == 14 || f == 15)) continue;
          auto get = [&](uint64_t a, unsigned size) {
            uint32_t v = 0;
            for (unsigned b = 0; b < size; ++b) v |= uint32_t(t.bytes.at(a - kBase + b)) << (8 * b);
            return v;
          };
          uint32_t out[4] = {};
          unsigned n = detail::packed_registers(f), k = 0;
          if (n) {
            uint32_t word = get(t.address(f, s, l, 0), 4);
            for (unsigned c = 0; c < n; ++c) {
              // Component c of the word through the per-component oracle check.
              uint32_t field = f == 8 ? (c < 3 ? (word >> (10 * c)) & 0x3FF : word >> 30)
                               : (f == 12 || f == 14) ? (c < 2 ? (word >> (11 * c)) & 0x7FF : word >> 22)
                                                      : ((word >> (9 * c)) & 0x1FF) | (word >> 27) << 9;
              out[k++] = convert_input(f, c, field, r32);
            }
          } else {
            for (unsigned i = 0; i < 4; ++i)
              if (mask >> i & 1) {
                uint32_t v = get(t.address(f, s, l, i), detail::memory_element_B(f));
                out[k++] = f <= 3 ? (r32 ? v : v & 0xFFFF) : convert_input(f, i, v, r32);
              }
          }
          for (unsigned j = 0; j < k; ++j) {
            if (r32) want.r[40 + j][l] = out[j];
            else want.r[40 + j / 2][l] = (j & 1) ? (want.r[40 + j / 2][l] & 0xFFFF) | out[j] << 16
                                                 : (want.r[40 + j / 2][l] & 0xFFFF0000u) | out[j];
          }
        }
        ASSERT_TRUE(run_code(dev(Opcode::device_load, f, mask, r32, s), t.c, {&t.mem}).ok());
        for (unsigned r = 0; r < kRegisters; ++r)
          for (unsigned l = 0; l < kLanes; ++l)
            ASSERT_EQ(t.c.r[r][l], want.r[r][l])
                << detail::memory_format_name(f) << " mask " << mask << " r32 " << r32 << " r" << r << " lane " << l;
      }
}

// Store then load through device memory: the loaded registers equal what
// loading the stored value's own encoding gives (value round trip).
TEST(Formats, DeviceStoreThenLoadKeepsValues) {
  uint32_t seed = 3000;
  for (uint32_t f : kDefined)
    for (bool r32 : {false, true}) {
      if (f == 2 && !r32) continue;
      DeviceCase t(seed++, r32);
      for (unsigned l = 0; l < kLanes; ++l) {
        t.c.r[10][l] = uint32_t(kBase);
        t.c.r[12][l] = l * 4;  // disjoint per lane
      }
      // Registers hold loaded (representable) values: load, store, load.
      auto load = dev(Opcode::device_load, f, 0xF, r32, 0);
      auto code = cat({load, dev(Opcode::device_store, f, 0xF, r32, 0), load});
      Core first = t.c;
      ASSERT_TRUE(run_code(load, first, {&t.mem}).ok());
      ASSERT_TRUE(run_code(code, t.c, {&t.mem}).ok());
      EXPECT_EQ(t.c.r, first.r) << detail::memory_format_name(f) << " r32 " << r32;
    }
}

// Threadgroup and stack memory take the same F field (applegpu's
// ThreadgroupLoad/StackLoad descriptors use MEMORY_FORMATS): a bit-packed
// format moves one word at base + index * 4 (threadgroup) or at O (stack),
// per-element formats convert as device memory does.
TEST(Formats, ThreadgroupAndStackUseTheFormats) {
  for (uint32_t f : kDefined) {
    if (f == 2) continue;
    for (bool r32 : {false, true}) {
      Core c = random_core(500 + f);
      Rng rng(f);
      for (unsigned l = 0; l < kLanes; ++l)
        for (unsigned k = 0; k < 4; ++k)
          c.r[40 + k][l] = r32 ? store_input(rng, true) : store_input(rng, false) | store_input(rng, false) << 16;
      Core before = c;
      std::vector<uint8_t> tg(256);
      Memories m;
      m.threadgroup = &tg;
      auto tg_op = [&](Opcode op, unsigned r) {
        return enc(op, {{"F", f}, {"mask", 0b1011}, {"Rt", r32}, {"R", r}, {"At", 2}, {"A", 0}, {"Ot", 1}, {"O", 3}});
      };
      auto st_op = [&](Opcode op, unsigned r) {
        return enc(op, {{"F", f}, {"mask", 0b1011}, {"Rt", r32}, {"R", r}, {"Ot", 1}, {"O", 12}});
      };
      ASSERT_TRUE(run_code(cat({tg_op(Opcode::threadgroup_store, 80), st_op(Opcode::stack_store, 80)}), c, m).ok());
      ASSERT_TRUE(run_code(cat({tg_op(Opcode::threadgroup_load, 100), st_op(Opcode::stack_load, 120)}), c, m).ok());
      unsigned size = detail::memory_element_B(f);
      unsigned last = 31 - std::countl_zero(before.exec);  // threadgroup: the last active lane's store stays
      for (unsigned l = 0; l < kLanes; ++l) {
        if (!on(before, l)) continue;
        // What lane l stored (reference conversions) and what loading it gives.
        std::vector<uint8_t> want;
        uint32_t loaded[4] = {};
        if (detail::bit_packed(f)) {
          uint32_t regs[4] = {};
          for (unsigned k = 0; k < detail::packed_registers(f); ++k) regs[k] = reg_value(before, r32, k, l);
          uint32_t word = ref_store_word(f, regs, r32);
          want = {uint8_t(word), uint8_t(word >> 8), uint8_t(word >> 16), uint8_t(word >> 24)};
          detail::load_word(f, word, r32, loaded);
        } else {
          unsigned k = 0;
          for (unsigned i : {0u, 1u, 3u}) {
            uint32_t v = ref_store_element(f, i, reg_value(before, r32, k, l), r32);
            loaded[k++] = f <= 3 ? v : detail::load_element(f, i, v, r32);
            want.resize((i + 1) * size);
            for (unsigned b = 0; b < size; ++b) want[i * size + b] = uint8_t(v >> (8 * b));
          }
        }
        unsigned n = detail::bit_packed(f) ? detail::packed_registers(f) : 3;
        for (size_t b = 0; b < want.size(); ++b) {
          bool stored = detail::bit_packed(f) || (b / size) != 2;  // element 2 is masked off
          if (!stored) continue;
          EXPECT_EQ(c.stack.at(l * 1024 + 12 + b), want[b]) << detail::memory_format_name(f) << " lane " << l;
          if (l == last) {
            EXPECT_EQ(tg.at(3 * (detail::bit_packed(f) ? 4 : size) + b), want[b]) << detail::memory_format_name(f);
          }
        }
        for (unsigned k = 0; k < n; ++k) {
          EXPECT_EQ(r32 ? c.r[60 + k][l] : c.r16(120 + k, l), loaded[k]) << detail::memory_format_name(f) << " lane " << l;
          if (l == last) {
            EXPECT_EQ(r32 ? c.r[50 + k][l] : c.r16(100 + k, l), loaded[k]) << detail::memory_format_name(f);
          }
        }
      }
    }
  }
}

TEST(Formats, PackedLoadWithMaskZeroWritesItsRegisters) {
  // applegpu's exec ignores the mask of a bit-packed load: rgb9e5 with mask
  // 0 still writes three registers (the disassembly shows none).
  DeviceCase t(77, true);
  for (unsigned l = 0; l < kLanes; ++l) t.c.r[12][l] = 0;
  Core want = t.c;
  ASSERT_TRUE(run_code(dev(Opcode::device_load, 13, 0, true, 0), t.c, {&t.mem}).ok());
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!on(want, l)) continue;
    uint32_t out[4];
    detail::load_word(13, load_le<uint32_t>(t.bytes.data() + ((want.r[10][l] & ~3u) - kBase)), true, out);
    for (unsigned k = 0; k < 3; ++k) EXPECT_EQ(t.c.r[40 + k][l], out[k]);
    EXPECT_EQ(t.c.r[43][l], want.r[43][l]);
  }
}

TEST(Formats, ErrorsNamePcAndFormat) {
  auto nop = enc(Opcode::mov_imm32, {{"Dt", 2}, {"D", 60}, {"imm32", 1}});  // 6 bytes: the access is at pc 0x6
  auto expect_error = [&](const std::vector<uint8_t>& access, const std::string& text) {
    Core c = random_core(5);
    std::vector<uint8_t> tg(64);
    Memories m;
    m.threadgroup = &tg;
    Status st = run_code(cat({nop, access}), c, m);
    ASSERT_FALSE(st.ok()) << text;
    EXPECT_NE(st.error().message().find("pc 0x6: "), std::string::npos) << st.error().message();
    EXPECT_NE(st.error().message().find(text), std::string::npos) << st.error().message();
  };
  for (uint32_t f : {9u, 11u}) {
    std::string text = "undefined memory format " + std::to_string(f);
    expect_error(dev(Opcode::device_load, f, 1, true, 0), "device_load: " + text);
    expect_error(dev(Opcode::device_store, f, 1, true, 0), "device_store: " + text);
    expect_error(enc(Opcode::threadgroup_load, {{"F", f}, {"mask", 1}, {"Rt", 1}, {"R", 2}, {"At", 2}, {"Ot", 1}}),
                 "threadgroup_load: " + text);
    expect_error(enc(Opcode::stack_store, {{"F", f}, {"mask", 1}, {"Rt", 1}, {"R", 2}, {"Ot", 1}}), "stack_store: " + text);
  }
  // A bit-packed format's registers run past r127 even with a small mask.
  expect_error(enc(Opcode::device_load, {{"F", 8}, {"mask", 1}, {"Rt", 1}, {"R", 250}, {"A", 20}, {"O", 24}}),
               "rgb10a2 data registers from r125 run past r127");
  expect_error(enc(Opcode::device_store, {{"F", 13}, {"mask", 0}, {"Rt", 0}, {"R", 254}, {"A", 20}, {"O", 24}}),
               "rgb9e5 data registers from half 254 run past r127");
  expect_error(dev(Opcode::device_store, 2, 1, false, 0), "i32 data in 16-bit registers");
}

TEST(Formats, PackedAccessFaultsNamePcAndAddress) {
  RegionMemory mem;
  ASSERT_TRUE(mem.map(kBase, std::vector<uint8_t>(64)).ok());
  ASSERT_TRUE(mem.map(kBase + 0x1000, std::vector<uint8_t>(64, 0xAB), false).ok());
  Core c = make_core();
  for (unsigned l = 0; l < kLanes; ++l) {
    c.r[10][l] = uint32_t(kBase + 3);  // rounds down to kBase
    c.r[12][l] = l;                     // words: lane 16 is past the 64 bytes
  }
  Status st = run_code(dev(Opcode::device_load, 12, 0xF, true, 0), c, {&mem});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind(), ErrorKind::fault);
  EXPECT_NE(st.error().message().find("pc 0x0: read of 0x0000000000200040 by usc: unmapped"), std::string::npos)
      << st.error().message();
  for (unsigned l = 0; l < kLanes; ++l) {
    c.r[10][l] = uint32_t(kBase + 0x1000);
    c.r[12][l] = 0;
  }
  st = run_code(dev(Opcode::device_store, 13, 0xF, true, 0), c, {&mem});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind(), ErrorKind::fault);
  EXPECT_NE(st.error().message().find("pc 0x0: write of 0x0000000000201000"), std::string::npos) << st.error().message();
  uint8_t after[64];
  GpuFault gf;
  ASSERT_TRUE(mem.read(kBase + 0x1000, after, sizeof after, GpuUnit::host, &gf));
  EXPECT_EQ(std::vector<uint8_t>(after, after + 64), std::vector<uint8_t>(64, 0xAB));
}

}  // namespace
}  // namespace agx::usc::test
