// Memory formats: applegpu.py's load conversions (DeviceLoadInstructionDesc
// .exec, dougallj/applegpu) and the derived store conversions.
#include "usc/formats.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "util/bits.h"
#include "util/half.h"

namespace agx::usc::detail {

namespace {

// srgb.py of dougallj/applegpu (commit 4c5bae61): SRGB_TABLE, the value an
// srgba8 load gives for colour byte v, here as the f32 bits of each entry
// (every entry is exactly an f32). Observed fact, checked by the tests:
// entry v = k/4095 rounded to f32, with k = the sRGB decode of v/255 scaled
// to 12 bits and rounded: the hardware decodes to 12-bit unorm.
constexpr uint32_t kSrgbToLinear[256] = {
    0x00000000u, 0x39800801u, 0x3A000801u, 0x3A800801u, 0x3AA00A01u, 0x3AC00C01u, 0x3AE00E01u, 0x3B100901u,
    0x3B200A01u, 0x3B300B01u, 0x3B400C01u, 0x3B600E01u, 0x3B700F01u, 0x3B800801u, 0x3B900901u, 0x3BA00A01u,
    0x3BA80A81u, 0x3BB80B81u, 0x3BC80C81u, 0x3BD80D81u, 0x3BE80E81u, 0x3BF80F81u, 0x3C040841u, 0x3C0C08C1u,
    0x3C140941u, 0x3C200A01u, 0x3C280A81u, 0x3C340B41u, 0x3C400C01u, 0x3C480C81u, 0x3C540D41u, 0x3C600E01u,
    0x3C6C0EC1u, 0x3C780F81u, 0x3C840841u, 0x3C8A08A1u, 0x3C900901u, 0x3C980981u, 0x3C9E09E1u, 0x3CA60A61u,
    0x3CAE0AE1u, 0x3CB60B61u, 0x3CBE0BE1u, 0x3CC60C61u, 0x3CCE0CE1u, 0x3CD60D61u, 0x3CE00E01u, 0x3CE80E81u,
    0x3CF20F21u, 0x3CFC0FC1u, 0x3D030831u, 0x3D080881u, 0x3D0D08D1u, 0x3D120921u, 0x3D170971u, 0x3D1C09C1u,
    0x3D220A21u, 0x3D280A81u, 0x3D2D0AD1u, 0x3D330B31u, 0x3D390B91u, 0x3D3F0BF1u, 0x3D450C51u, 0x3D4C0CC1u,
    0x3D520D21u, 0x3D580D81u, 0x3D5F0DF1u, 0x3D660E61u, 0x3D6D0ED1u, 0x3D740F41u, 0x3D7B0FB1u, 0x3D810811u,
    0x3D848849u, 0x3D888889u, 0x3D8C08C1u, 0x3D900901u, 0x3D940941u, 0x3D980981u, 0x3D9C09C1u, 0x3DA00A01u,
    0x3DA48A49u, 0x3DA88A89u, 0x3DAD0AD1u, 0x3DB10B11u, 0x3DB58B59u, 0x3DBA0BA1u, 0x3DBE8BE9u, 0x3DC30C31u,
    0x3DC80C81u, 0x3DCC8CC9u, 0x3DD18D19u, 0x3DD60D61u, 0x3DDB0DB1u, 0x3DE00E01u, 0x3DE50E51u, 0x3DEA8EA9u,
    0x3DEF8EF9u, 0x3DF50F51u, 0x3DFA0FA1u, 0x3DFF8FF9u, 0x3E028829u, 0x3E054855u, 0x3E080881u, 0x3E0AC8ADu,
    0x3E0DC8DDu, 0x3E108909u, 0x3E138939u, 0x3E168969u, 0x3E198999u, 0x3E1C89C9u, 0x3E1FC9FDu, 0x3E22CA2Du,
    0x3E260A61u, 0x3E290A91u, 0x3E2C4AC5u, 0x3E2F8AF9u, 0x3E32CB2Du, 0x3E360B61u, 0x3E398B99u, 0x3E3CCBCDu,
    0x3E404C05u, 0x3E43CC3Du, 0x3E474C75u, 0x3E4ACCADu, 0x3E4E4CE5u, 0x3E520D21u, 0x3E558D59u, 0x3E594D95u,
    0x3E5D0DD1u, 0x3E60CE0Du, 0x3E648E49u, 0x3E684E85u, 0x3E6C4EC5u, 0x3E700F01u, 0x3E740F41u, 0x3E780F81u,
    0x3E7C0FC1u, 0x3E800801u, 0x3E822823u, 0x3E842843u, 0x3E864865u, 0x3E886887u, 0x3E8A88A9u, 0x3E8CA8CBu,
    0x3E8EC8EDu, 0x3E90E90Fu, 0x3E932933u, 0x3E956957u, 0x3E97A97Bu, 0x3E99E99Fu, 0x3E9C29C3u, 0x3E9E69E7u,
    0x3EA0CA0Du, 0x3EA30A31u, 0x3EA56A57u, 0x3EA7CA7Du, 0x3EAA2AA3u, 0x3EACAACBu, 0x3EAF0AF1u, 0x3EB18B19u,
    0x3EB40B41u, 0x3EB66B67u, 0x3EB90B91u, 0x3EBB8BB9u, 0x3EBE0BE1u, 0x3EC0AC0Bu, 0x3EC34C35u, 0x3EC5CC5Du,
    0x3EC86C87u, 0x3ECB2CB3u, 0x3ECDCCDDu, 0x3ED08D09u, 0x3ED32D33u, 0x3ED5ED5Fu, 0x3ED8AD8Bu, 0x3EDB6DB7u,
    0x3EDE4DE5u, 0x3EE10E11u, 0x3EE3EE3Fu, 0x3EE6CE6Du, 0x3EE9AE9Bu, 0x3EEC8EC9u, 0x3EEF8EF9u, 0x3EF26F27u,
    0x3EF56F57u, 0x3EF86F87u, 0x3EFB6FB7u, 0x3EFE6FE7u, 0x3F00B80Cu, 0x3F024825u, 0x3F03D83Eu, 0x3F055856u,
    0x3F06F870u, 0x3F088889u, 0x3F0A18A2u, 0x3F0BB8BCu, 0x3F0D48D5u, 0x3F0EE8EFu, 0x3F108909u, 0x3F123924u,
    0x3F13D93Eu, 0x3F158959u, 0x3F173974u, 0x3F18E98Fu, 0x3F1A99AAu, 0x3F1C49C5u, 0x3F1DF9E0u, 0x3F1FB9FCu,
    0x3F217A18u, 0x3F233A34u, 0x3F24FA50u, 0x3F26CA6Du, 0x3F288A89u, 0x3F2A5AA6u, 0x3F2C2AC3u, 0x3F2DFAE0u,
    0x3F2FCAFDu, 0x3F319B1Au, 0x3F337B38u, 0x3F355B56u, 0x3F373B74u, 0x3F391B92u, 0x3F3AFBB0u, 0x3F3CEBCFu,
    0x3F3ECBEDu, 0x3F40BC0Cu, 0x3F42AC2Bu, 0x3F44AC4Bu, 0x3F469C6Au, 0x3F489C8Au, 0x3F4A8CA9u, 0x3F4C8CC9u,
    0x3F4E8CE9u, 0x3F509D0Au, 0x3F529D2Au, 0x3F54AD4Bu, 0x3F56BD6Cu, 0x3F58CD8Du, 0x3F5ADDAEu, 0x3F5CFDD0u,
    0x3F5F0DF1u, 0x3F612E13u, 0x3F634E35u, 0x3F656E57u, 0x3F679E7Au, 0x3F69BE9Cu, 0x3F6BEEBFu, 0x3F6E1EE2u,
    0x3F704F05u, 0x3F727F28u, 0x3F74BF4Cu, 0x3F76EF6Fu, 0x3F792F93u, 0x3F7B6FB7u, 0x3F7DBFDCu, 0x3F800000u,
};

double unorm(uint32_t v, unsigned bits) { return v / double((1u << bits) - 1); }
double snorm(uint32_t v, unsigned bits) {
  double max = double((1u << (bits - 1)) - 1);
  return std::max(double(sign_extend(v, bits)), -max) / max;  // -2^(b-1) reads as -1
}

// Unsigned small floats of rg11b10f: 5-bit exponent (bias 15) and a 6- or
// 5-bit mantissa; exponent 31 is infinity (mantissa 0) or NaN.
double small_float(uint32_t v, unsigned mant_bits) {
  uint32_t e = (v >> mant_bits) & 0x1F, m = v & ((1u << mant_bits) - 1);
  if (e == 0x1F) return m ? std::nan("") : HUGE_VAL;
  uint32_t significand = e ? (m | (1u << mant_bits)) : m;
  return std::ldexp(double(significand), int(e ? e : 1) - 15 - int(mant_bits));
}

// applegpu stores its Python float with struct.pack: '<f' (round to nearest
// even; a NaN becomes 0x7FC00000) or '<e' (the same to f16; NaN 0x7E00).
uint32_t to_register(double real, bool r32) {
  if (std::isnan(real)) return r32 ? 0x7FC00000u : 0x7E00u;
  return r32 ? std::bit_cast<uint32_t>(static_cast<float>(real)) : double_to_half(real);
}

double from_register(uint32_t reg, bool r32) {
  return r32 ? double(std::bit_cast<float>(reg)) : half_to_double(static_cast<uint16_t>(reg));
}

// Derived store conversions (applegpu has no store exec): float -> unorm /
// snorm as Vulkan and Metal define them: NaN gives 0, clamp, scale, round
// to nearest even. The products are exact in double.
uint32_t to_unorm(double x, unsigned bits) {
  if (std::isnan(x)) return 0;
  return static_cast<uint32_t>(std::nearbyint(std::clamp(x, 0.0, 1.0) * double((1u << bits) - 1)));
}
uint32_t to_snorm(double x, unsigned bits) {
  if (std::isnan(x)) return 0;
  double max = double((1u << (bits - 1)) - 1);
  auto v = static_cast<int32_t>(std::nearbyint(std::clamp(x, -1.0, 1.0) * max));
  return static_cast<uint32_t>(v) & static_cast<uint32_t>(low_mask(bits));
}

// Derived: linear -> sRGB (the sRGB transfer function of Vulkan's and
// Metal's format conversion rules), then 8-bit unorm.
uint32_t to_srgb8(double x) {
  if (std::isnan(x)) return 0;
  x = std::clamp(x, 0.0, 1.0);
  double s = x <= 0.0031308 ? x * 12.92 : 1.055 * std::pow(x, 1.0 / 2.4) - 0.055;
  return to_unorm(s, 8);
}

// Derived: a float -> unsigned small float (GL_EXT_packed_float rules, as
// Mesa's src/util/format_r11g11b10f.h applies them): negative and -inf give
// 0, +inf gives infinity, NaN a positive NaN (mantissa 1), finite values
// round to the nearest representable finite value (ties to even; toward
// zero for the .rtz forms), saturating at the largest finite value.
uint32_t to_small_float(double x, unsigned mant_bits, bool rtz) {
  uint32_t inf = 0x1Fu << mant_bits;
  if (std::isnan(x)) return inf | 1;
  if (!(x > 0)) return 0;
  if (std::isinf(x)) return inf;
  int e = std::max(std::ilogb(x), -14);  // subnormals share exponent -14
  double q = std::ldexp(x, int(mant_bits) - e);  // significand in units of the last place
  double r = rtz ? std::trunc(q) : std::nearbyint(q);
  if (r >= double(2u << mant_bits)) {  // rounded up to the next binade
    ++e;
    r /= 2;
  }
  if (e > 15) return inf - 1;  // largest finite: exponent 30, mantissa all ones
  auto m = static_cast<uint32_t>(r);
  uint32_t field = m >> mant_bits ? uint32_t(e + 15) : 0;  // below 2^mant: subnormal
  return field << mant_bits | (m & ((1u << mant_bits) - 1));
}

// rgb9e5: three 9-bit mantissas sharing a 5-bit exponent (bias 15):
// component = m / 512 * 2^(e - 15).
double rgb9e5_component(uint32_t word, unsigned n) {
  return std::ldexp(double((word >> (9 * n)) & 0x1FF), int(word >> 27) - 15 - 9);
}

// Derived: the shared-exponent encoding of EXT_texture_shared_exponent
// (components clamped to [0, 65408], NaN to 0; the exponent from the
// largest component, raised by one if its mantissa rounds up to 512),
// rounding to nearest even (toward zero for .rtz) where the extension
// writes floor(x + 0.5).
uint32_t to_rgb9e5(const double c[3], bool rtz) {
  constexpr double kMax = 511.0 / 512.0 * 65536.0;
  double v[3];
  for (unsigned n = 0; n < 3; ++n) v[n] = std::isnan(c[n]) ? 0.0 : std::clamp(c[n], 0.0, kMax);
  double max = std::max({v[0], v[1], v[2]});
  int e = max > 0 ? std::max(std::ilogb(max), -16) + 16 : 0;  // biased shared exponent
  auto round = [rtz](double q) { return rtz ? std::trunc(q) : std::nearbyint(q); };
  if (round(std::ldexp(max, 24 - e)) >= 512) ++e;
  uint32_t word = uint32_t(e) << 27;
  for (unsigned n = 0; n < 3; ++n) word |= static_cast<uint32_t>(round(std::ldexp(v[n], 24 - e))) << (9 * n);
  return word;
}

}  // namespace

std::string_view memory_format_name(uint32_t f) {
  // MEMORY_FORMATS of applegpu.py.
  static constexpr std::string_view kNames[16] = {
      "i8", "i16", "i32", "f16", "u8norm", "s8norm", "u16norm", "s16norm", "rgb10a2", "",
      "srgba8", "", "rg11b10f", "rgb9e5", "rg11b10f.rtz", "rgb9e5.rtz"};
  return f < 16 ? kNames[f] : std::string_view{};
}

unsigned packed_registers(uint32_t f) {
  switch (static_cast<MemFormat>(f)) {
    case MemFormat::rgb10a2: return 4;
    case MemFormat::rg11b10f: case MemFormat::rgb9e5:
    case MemFormat::rg11b10f_rtz: case MemFormat::rgb9e5_rtz: return 3;
    default: return 0;
  }
}

unsigned memory_element_B(uint32_t f) {
  if (bit_packed(f)) return 4;
  switch (static_cast<MemFormat>(f)) {
    case MemFormat::i16: case MemFormat::f16: case MemFormat::u16norm: case MemFormat::s16norm: return 2;
    case MemFormat::i32: return 4;
    default: return 1;
  }
}

uint32_t load_element(uint32_t f, unsigned pos, uint32_t element, bool r32) {
  switch (static_cast<MemFormat>(f)) {
    case MemFormat::u8norm: return to_register(unorm(element, 8), r32);
    case MemFormat::s8norm: return to_register(snorm(element, 8), r32);
    case MemFormat::u16norm: return to_register(unorm(element, 16), r32);
    case MemFormat::s16norm: return to_register(snorm(element, 16), r32);
    case MemFormat::srgba8:
      if (pos == 3) return to_register(unorm(element, 8), r32);  // alpha is linear
      return to_register(std::bit_cast<float>(kSrgbToLinear[element & 0xFF]), r32);
    default: return r32 ? element : element & 0xFFFF;  // i8, i16, i32, f16: raw, zero-extended
  }
}

uint32_t store_element(uint32_t f, unsigned pos, uint32_t reg, bool r32) {
  switch (static_cast<MemFormat>(f)) {
    case MemFormat::i8: case MemFormat::i16: case MemFormat::i32: case MemFormat::f16:
      return reg & static_cast<uint32_t>(low_mask(memory_element_B(f) * 8));
    case MemFormat::u8norm: return to_unorm(from_register(reg, r32), 8);
    case MemFormat::s8norm: return to_snorm(from_register(reg, r32), 8);
    case MemFormat::u16norm: return to_unorm(from_register(reg, r32), 16);
    case MemFormat::s16norm: return to_snorm(from_register(reg, r32), 16);
    case MemFormat::srgba8:
      return pos == 3 ? to_unorm(from_register(reg, r32), 8) : to_srgb8(from_register(reg, r32));
    default: return 0;  // bit-packed formats go through store_word
  }
}

void load_word(uint32_t f, uint32_t word, bool r32, uint32_t out[4]) {
  switch (static_cast<MemFormat>(f)) {
    case MemFormat::rgb10a2:
      for (unsigned n = 0; n < 3; ++n) out[n] = to_register(unorm((word >> (10 * n)) & 0x3FF, 10), r32);
      out[3] = to_register(unorm(word >> 30, 2), r32);
      return;
    // The .rtz forms load like the plain ones (derived: applegpu asserts
    // TODO there; decoding a small float or rgb9e5 to f16/f32 is exact, so
    // a rounding mode cannot change a load).
    case MemFormat::rg11b10f: case MemFormat::rg11b10f_rtz:
      out[0] = to_register(small_float(word & 0x7FF, 6), r32);
      out[1] = to_register(small_float((word >> 11) & 0x7FF, 6), r32);
      out[2] = to_register(small_float(word >> 22, 5), r32);
      return;
    case MemFormat::rgb9e5: case MemFormat::rgb9e5_rtz:
      for (unsigned n = 0; n < 3; ++n) out[n] = to_register(rgb9e5_component(word, n), r32);
      return;
    default: return;
  }
}

uint32_t store_word(uint32_t f, const uint32_t regs[4], bool r32) {
  double c[4];
  for (unsigned n = 0; n < packed_registers(f); ++n) c[n] = from_register(regs[n], r32);
  switch (static_cast<MemFormat>(f)) {
    case MemFormat::rgb10a2:
      return to_unorm(c[0], 10) | to_unorm(c[1], 10) << 10 | to_unorm(c[2], 10) << 20 | to_unorm(c[3], 2) << 30;
    case MemFormat::rg11b10f: case MemFormat::rg11b10f_rtz: {
      bool rtz = f == uint32_t(MemFormat::rg11b10f_rtz);
      return to_small_float(c[0], 6, rtz) | to_small_float(c[1], 6, rtz) << 11 | to_small_float(c[2], 5, rtz) << 22;
    }
    case MemFormat::rgb9e5: case MemFormat::rgb9e5_rtz:
      return to_rgb9e5(c, f == uint32_t(MemFormat::rgb9e5_rtz));
    default: return 0;
  }
}

uint32_t srgb8_to_linear_f32_bits(uint8_t v) { return kSrgbToLinear[v]; }

}  // namespace agx::usc::detail
