// Lexing operand text: register names, tuples, flags, integers, float
// immediates and branch targets, in applegpu's spelling.
#include <charconv>

#include "isa/asm_internal.h"
#include "isa/disasm.h"

namespace agx::isa::detail {

namespace {

std::optional<unsigned> parse_uint(std::string_view s) {
  unsigned v = 0;
  if (s.empty() || s.size() > 4) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

uint8_t flag_bit(std::string_view f) {
  if (f == "cache") return kFlagCache;
  if (f == "discard") return kFlagDiscard;
  if (f == "abs") return kFlagAbs;
  if (f == "neg") return kFlagNeg;
  if (f == "sx") return kFlagSx;
  return 0;
}

}  // namespace

std::optional<RegName> parse_reg_name(std::string_view s) {
  if (s.size() < 2) return std::nullopt;
  auto prefix2 = s.substr(0, 2);
  if (prefix2 == "ts" || prefix2 == "ss" || prefix2 == "cf") {
    auto n = parse_uint(s.substr(2));
    if (!n || *n > 255) return std::nullopt;
    OperandKind k = prefix2 == "ts"   ? OperandKind::kTextureState
                    : prefix2 == "ss" ? OperandKind::kSamplerState
                                      : OperandKind::kCoefficient;
    return RegName{k, *n};
  }
  if (s[0] != 'r' && s[0] != 'u') return std::nullopt;
  bool uniform = s[0] == 'u';
  std::string_view digits = s.substr(1);
  int half = -1;
  if (!digits.empty() && (digits.back() == 'l' || digits.back() == 'h')) {
    half = digits.back() == 'h';
    digits.remove_suffix(1);
  }
  auto n = parse_uint(digits);
  // The second name of a pair may be one past the file (r127_r128).
  unsigned limit = (uniform ? 255 : 127) + (half >= 0 ? 0 : 1);
  if (!n || *n > limit) return std::nullopt;
  if (half >= 0)
    return RegName{uniform ? OperandKind::kUReg16 : OperandKind::kReg16, *n * 2 + half};
  return RegName{uniform ? OperandKind::kUReg32 : OperandKind::kReg32, *n};
}

std::optional<RegText> parse_regs(std::string_view s) {
  RegText r;
  size_t dot = s.find('.');
  std::string_view base = s.substr(0, dot);
  while (dot != std::string_view::npos) {
    size_t next = s.find('.', dot + 1);
    uint8_t bit = flag_bit(s.substr(dot + 1, next == std::string_view::npos ? next : next - dot - 1));
    if (!bit) return std::nullopt;
    r.flags |= bit;
    dot = next;
  }
  while (!base.empty()) {
    size_t us = base.find('_');
    auto name = parse_reg_name(base.substr(0, us));
    if (!name) return std::nullopt;
    r.regs.push_back(*name);
    base = us == std::string_view::npos ? std::string_view{} : base.substr(us + 1);
    if (us != std::string_view::npos && base.empty()) return std::nullopt;
  }
  if (r.regs.empty()) return std::nullopt;
  return r;
}

std::optional<int64_t> parse_int(std::string_view s) {
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.remove_prefix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) base = 2;
  if (base != 10) s.remove_prefix(2);
  uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || v > (uint64_t{1} << 62)) return std::nullopt;
  return neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

std::optional<unsigned> float_code(std::string_view s) {
  for (unsigned code = 0; code < 256; ++code) {
    unsigned e = (code >> 4) & 7, m = code & 15;
    double x = e == 0 ? m / 64.0 : (16 + m) * std::ldexp(1.0, static_cast<int>(e) - 7);
    if (float_repr((code & 0x80) ? -x : x) == s) return code;
  }
  return std::nullopt;
}

std::optional<int64_t> branch_offset(std::string_view s, uint64_t pc) {
  if (s.size() > 3 && s.substr(0, 2) == "pc" && (s[2] == '+' || s[2] == '-')) {
    auto v = parse_int(s.substr(3));
    if (!v || *v < 0) return std::nullopt;
    return s[2] == '+' ? *v : -*v;
  }
  if (s.size() > 3 && s.substr(0, 3) == "0x-") {
    auto v = parse_int(std::string("0x") + std::string(s.substr(3)));
    if (!v) return std::nullopt;
    return -*v - static_cast<int64_t>(pc);
  }
  if (s.size() > 2 && s.substr(0, 2) == "0x") {
    auto v = parse_int(s);
    if (!v) return std::nullopt;
    return *v - static_cast<int64_t>(pc);
  }
  return std::nullopt;
}

bool Draft::set(int8_t i, int64_t value) {
  if (i < 0) return true;
  unsigned w = fields_of(op)[static_cast<size_t>(i)].width();
  if (value < 0 || (w < 32 && (static_cast<uint64_t>(value) >> w) != 0)) return false;
  fields[static_cast<size_t>(i)] = static_cast<uint32_t>(value);
  return true;
}

}  // namespace agx::isa::detail
