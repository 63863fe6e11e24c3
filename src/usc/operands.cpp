// The emulator's operands, converted from the isa unit's decoded operands
// (the isa table is the single source of truth for their encodings), and
// lane-wide register access.
#include <bit>
#include <cmath>
#include <cstring>

#include "usc/internal.h"
#include "util/bits.h"
#include "util/half.h"

namespace agx::usc::detail {

unsigned Operand::bits() const {
  switch (kind) {
    case Kind::r32: case Kind::u32: return 32;
    case Kind::r64: case Kind::u64: return 64;
    default: return 16;
  }
}

Result<uint32_t> field(const isa::Instr& in, Name name) {
  if (auto v = in.field(name.text())) return *v;
  return Error::decode("{} has no field {}", isa::op_info(in.op).mnemonic, name.text());
}

namespace {

Status check_range(const Operand& o) {
  unsigned last = 0;
  unsigned n = o.count ? o.count : 1;
  switch (o.kind) {
    case Kind::r16: last = (o.index + n - 1u) / 2; break;
    case Kind::r32: last = o.index + n - 1u; break;
    case Kind::r64: last = o.index + 1u; break;
    case Kind::u16: last = o.index / 2; break;
    case Kind::u32: last = o.index; break;
    case Kind::u64: last = o.index + 1u; break;
    default: return {};
  }
  bool uniform = o.kind == Kind::u16 || o.kind == Kind::u32 || o.kind == Kind::u64;
  if (uniform && last >= kUniforms) return Error::decode("uniform u{} is beyond u{}", last, kUniforms - 1);
  if (!uniform && last >= kRegisters) return Error::decode("register r{} is beyond r{}", last, kRegisters - 1);
  return {};
}

bool is_source(isa::OperandDesc d) {
  using D = isa::OperandDesc;
  return d == D::kAluSrc || d == D::kAluSrc16 || d == D::kAluSrc64 || d == D::kMulSrc ||
         d == D::kAddSrc || d == D::kFloatSrc || d == D::kFloatSrc16;
}

}  // namespace

Result<Operand> from_isa(const isa::Operand& in) {
  using K = isa::OperandKind;
  Operand o;
  o.index = in.index;
  o.count = in.count;
  o.abs = in.flags & isa::kFlagAbs;
  o.neg = in.flags & isa::kFlagNeg;
  o.sx = in.flags & isa::kFlagSx;
  switch (in.kind) {
    case K::kNone:
      // The isa unit leaves undefined type encodings as kNone (applegpu
      // prints None); the emulator cannot read them.
      if (is_source(in.desc)) return Error::decode("undefined source type (operand {})", in.slot);
      if (in.desc == isa::OperandDesc::kCmpselSrc)
        return Error::decode("undefined select operand type (operand {})", in.slot);
      o.kind = Kind::none;
      return o;
    case K::kEmpty: o.kind = Kind::none; o.count = 0; return o;
    case K::kReg16: o.kind = Kind::r16; break;
    case K::kReg32: o.kind = Kind::r32; break;
    case K::kReg64: o.kind = Kind::r64; break;
    case K::kUReg16: o.kind = Kind::u16; break;
    case K::kUReg32: o.kind = Kind::u32; break;
    case K::kUReg64: o.kind = Kind::u64; break;
    case K::kImm:
    case K::kFloatImm:  // value = the 8-bit code; read_f64 gives its number
      o.kind = Kind::imm;
      o.imm = static_cast<uint64_t>(in.value);
      o.index = 0;
      return o;
    default:
      return Error::decode("operand {} is not a register or immediate", in.slot);
  }
  AGX_CHECK(check_range(o));
  return o;
}

const isa::Operand* find_operand(const isa::Instr& in, Name name) {
  int i = isa::operand_index(in.op, name.text());
  if (i < 0 || i >= in.operand_count) return nullptr;
  return &in.operands[static_cast<size_t>(i)];
}

Result<Operand> operand(const isa::Instr& in, Name name) {
  const isa::Operand* o = find_operand(in, name);
  if (!o) return Error::decode("{} has no operand {}", isa::op_info(in.op).mnemonic, name.text());
  auto r = from_isa(*o);
  if (!r) return Error::decode("operand {}: {}", name.text(), r.error().message());
  return r;
}

Result<int64_t> operand_value(const isa::Instr& in, Name name) {
  const isa::Operand* o = find_operand(in, name);
  if (!o) return Error::decode("{} has no operand {}", isa::op_info(in.op).mnemonic, name.text());
  return o->value;
}

void read_u32(const Operand& o, const Core& c, uint32_t out[kLanes]) {
  switch (o.kind) {
    case Kind::imm:
      for (unsigned l = 0; l < kLanes; ++l) out[l] = static_cast<uint32_t>(o.imm);
      return;
    case Kind::r16: {
      const uint32_t* src = c.r[o.index >> 1].data();
      unsigned sh = (o.index & 1) * 16;
      for (unsigned l = 0; l < kLanes; ++l) out[l] = (src[l] >> sh) & 0xFFFF;
      return;
    }
    case Kind::r32: case Kind::r64: {
      const uint32_t* src = c.r[o.index].data();
      for (unsigned l = 0; l < kLanes; ++l) out[l] = src[l];
      return;
    }
    case Kind::u16: {
      uint32_t v = (c.u[o.index >> 1] >> ((o.index & 1) * 16)) & 0xFFFF;
      for (unsigned l = 0; l < kLanes; ++l) out[l] = v;
      return;
    }
    case Kind::u32: case Kind::u64:
      for (unsigned l = 0; l < kLanes; ++l) out[l] = c.u[o.index];
      return;
    default:
      for (unsigned l = 0; l < kLanes; ++l) out[l] = 0;
  }
}

void read_u64(const Operand& o, const Core& c, uint64_t out[kLanes]) {
  alignas(64) uint32_t lo[kLanes];
  read_u32(o, c, lo);
  if (o.kind == Kind::r64) {
    const uint32_t* hi = c.r[o.index + 1].data();
    for (unsigned l = 0; l < kLanes; ++l) out[l] = lo[l] | uint64_t{hi[l]} << 32;
  } else if (o.kind == Kind::u64) {
    uint64_t v = lo[0] | uint64_t{c.u[o.index + 1]} << 32;
    for (unsigned l = 0; l < kLanes; ++l) out[l] = v;
  } else {
    for (unsigned l = 0; l < kLanes; ++l) out[l] = lo[l];
  }
  // Immediates are zero-extended to 16 bits first, so .sx never applies.
  if (o.sx && o.kind != Kind::imm) {
    unsigned n = o.bits();
    for (unsigned l = 0; l < kLanes; ++l) out[l] = static_cast<uint64_t>(sign_extend(out[l], n));
  }
}

static double f32_bits_to_f64_ftz(uint32_t b) {
  if ((b & 0x7F800000u) == 0) b &= 0x80000000u;  // subnormal -> signed zero
  return static_cast<double>(std::bit_cast<float>(b));
}

void read_f64(const Operand& o, const Core& c, double out[kLanes]) {
  if (o.kind == Kind::imm) {
    double v = isa::float_immediate(static_cast<uint8_t>(o.imm));
    for (unsigned l = 0; l < kLanes; ++l) out[l] = v;
  } else {
    alignas(64) uint32_t raw[kLanes];
    read_u32(o, c, raw);
    if (o.bits() == 16)
      for (unsigned l = 0; l < kLanes; ++l) out[l] = half_to_double(static_cast<uint16_t>(raw[l]));
    else
      for (unsigned l = 0; l < kLanes; ++l) out[l] = f32_bits_to_f64_ftz(raw[l]);
  }
  if (o.abs)
    for (unsigned l = 0; l < kLanes; ++l) out[l] = std::fabs(out[l]);
  if (o.neg)
    for (unsigned l = 0; l < kLanes; ++l) out[l] = -out[l];
}

void write_u64(const Operand& d, Core& c, const uint64_t v[kLanes]) {
  alignas(64) uint32_t lo[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) lo[l] = static_cast<uint32_t>(v[l]);
  write_u32(d, c, lo);
  if (d.kind == Kind::r64) {
    uint32_t* hi = c.r[d.index + 1].data();
    for (unsigned l = 0; l < kLanes; ++l)
      hi[l] = lane_on(c.exec, l) ? static_cast<uint32_t>(v[l] >> 32) : hi[l];
  }
}

// Lane l's bit of the exec mask, as a table so the blend loops vectorize
// without per-lane variable shifts.
static constexpr std::array<uint32_t, kLanes> kLaneBit = [] {
  std::array<uint32_t, kLanes> b{};
  for (unsigned l = 0; l < kLanes; ++l) b[l] = 1u << l;
  return b;
}();

void write_u32(const Operand& d, Core& c, const uint32_t v[kLanes]) {
  mark_written(d, c);
  uint32_t e = c.exec;
  if (d.kind == Kind::r16) {
    uint32_t* dst = c.r[d.index >> 1].data();
    unsigned sh = (d.index & 1) * 16;
    uint32_t keep = ~(0xFFFFu << sh);
    for (unsigned l = 0; l < kLanes; ++l) {
      uint32_t nv = (dst[l] & keep) | ((v[l] & 0xFFFF) << sh);
      dst[l] = (e & kLaneBit[l]) ? nv : dst[l];
    }
  } else if (d.kind == Kind::r32 || d.kind == Kind::r64) {
    uint32_t* dst = c.r[d.index].data();
    if (e == 0xFFFFFFFFu) {
      std::memcpy(dst, v, sizeof(uint32_t) * kLanes);
      return;
    }
    for (unsigned l = 0; l < kLanes; ++l) dst[l] = (e & kLaneBit[l]) ? v[l] : dst[l];
  }
}

void write_f64(const Operand& d, Core& c, const double v[kLanes], bool sat) {
  alignas(64) uint32_t out[kLanes];
  alignas(64) double s[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) s[l] = sat ? saturate(v[l]) : v[l];
  if (d.bits() == 16)
    for (unsigned l = 0; l < kLanes; ++l) out[l] = f64_to_f16(s[l]);
  else
    for (unsigned l = 0; l < kLanes; ++l) out[l] = f64_to_f32_ftz(s[l]);
  write_u32(d, c, out);
}

Result<bool> check_icond(uint32_t cc) {
  if ((cc & 3) == 3) return Error::unsupported("integer condition {} is undefined", cc);
  return true;
}
Result<bool> check_fcond(uint32_t cc) {
  if ((cc & 7) == 4) return Error::unsupported("float condition {} is undefined", cc);
  return true;
}

// The condition is chosen once per instruction so each lane loop is a
// plain compare the compiler can vectorize.
template <typename T, typename F>
static void compare_lanes(const T* x, const T* y, bool inv, uint32_t out[kLanes], F f) {
  for (unsigned l = 0; l < kLanes; ++l) out[l] = 0u - static_cast<uint32_t>(f(x[l], y[l]) != inv);
}

Status compare_fields(const isa::Instr& in, Step& s, bool is_float) {
  // kCondition: value = cc | ccn << 3. Float source modifiers (.abs, .neg)
  // arrive with the operands.
  AGX_TRY(s.a, lazy_operand(in, "A", s, kUndefinedCompare));
  AGX_TRY(s.b, lazy_operand(in, "B", s, kUndefinedCompare));
  AGX_TRY(int64_t cc, operand_value(in, "cc"));
  s.cc = static_cast<uint32_t>(cc);
  s.float_compare = is_float;
  if (!(is_float ? check_fcond(s.cc) : check_icond(s.cc))) s.undefined |= kUndefinedCompare;
  return {};
}

Result<Operand> lazy_operand(const isa::Instr& in, Name name, Step& s, uint8_t part) {
  const isa::Operand* o = find_operand(in, name);
  if (!o || o->kind != isa::OperandKind::kNone) return operand(in, name);
  auto r = operand(in, name);
  if (r) return r;  // kNone that the emulator can read (not a source)
  s.undefined |= part;
  Operand zero;
  zero.kind = Kind::imm;
  return zero;
}

Status undefined_used(const Step& s, const Ctx& ctx, uint8_t parts) {
  const isa::Instr& in = ctx.program->instr(static_cast<size_t>(ctx.program->index_of(s.pc)));
  std::string why;
  auto operand_error = [&](Name name) {
    const isa::Operand* o = find_operand(in, name);
    if (!why.empty() || !o || o->kind != isa::OperandKind::kNone) return;
    if (auto r = operand(in, name); !r) why = r.error().message();
  };
  if (parts & kUndefinedCompare) {
    operand_error("A");
    operand_error("B");
    if (why.empty()) {
      auto ok = s.float_compare ? check_fcond(s.cc) : check_icond(s.cc);
      if (!ok) why = ok.error().message();
    }
  } else {
    if (parts & kUndefinedX) operand_error("X");
    else operand_error("Y");
  }
  return Error::decode("pc 0x{:x}: {}: {}", s.pc, isa::op_info(s.op).mnemonic, why);
}

// Unsigned or signed (each operand sign-extended at its own width) compare
// of lane values of type U (unsigned) / S (signed) wide enough for both.
template <typename U, typename S>
static void icompare_lanes(uint32_t cc, const U* va, unsigned na, const U* vb, unsigned nb, uint32_t out[kLanes]) {
  bool inv = cc & 8;
  if (cc & 4) {
    S sa[kLanes], sb[kLanes];
    for (unsigned l = 0; l < kLanes; ++l) {
      sa[l] = static_cast<S>(sign_extend(va[l], na));
      sb[l] = static_cast<S>(sign_extend(vb[l], nb));
    }
    switch (cc & 3) {
      case 0: compare_lanes(sa, sb, inv, out, [](S x, S y) { return x == y; }); break;
      case 1: compare_lanes(sa, sb, inv, out, [](S x, S y) { return x < y; }); break;
      default: compare_lanes(sa, sb, inv, out, [](S x, S y) { return x > y; }); break;
    }
    return;
  }
  switch (cc & 3) {
    case 0: compare_lanes(va, vb, inv, out, [](U x, U y) { return x == y; }); break;
    case 1: compare_lanes(va, vb, inv, out, [](U x, U y) { return x < y; }); break;
    default: compare_lanes(va, vb, inv, out, [](U x, U y) { return x > y; }); break;
  }
}

void icompare(uint32_t cc, const Operand& a, const Operand& b, const Core& c, uint32_t out[kLanes]) {
  Operand ua = a, ub = b;
  ua.sx = ub.sx = false;
  unsigned na = a.bits(), nb = b.bits();
  if (na <= 32 && nb <= 32) {  // the common case, in 32-bit lanes
    alignas(64) uint32_t ta[kLanes], tb[kLanes];
    const uint32_t* va = read_u32_ref(ua, c, ta);
    const uint32_t* vb = read_u32_ref(ub, c, tb);
    icompare_lanes<uint32_t, int32_t>(cc, va, na, vb, nb, out);
    return;
  }
  alignas(64) uint64_t va[kLanes], vb[kLanes];
  read_u64(ua, c, va);
  read_u64(ub, c, vb);
  icompare_lanes<uint64_t, int64_t>(cc, va, na, vb, nb, out);
}

template <typename T>
static void fcompare_lanes(uint32_t cc, const T* va, const T* vb, uint32_t out[kLanes]) {
  bool inv = cc & 8;
  switch (cc & 7) {
    case 0: compare_lanes(va, vb, inv, out, [](T x, T y) { return x == y; }); break;
    case 1: compare_lanes(va, vb, inv, out, [](T x, T y) { return x < y; }); break;
    case 2: compare_lanes(va, vb, inv, out, [](T x, T y) { return x > y; }); break;
    // ltn/gtn ("NaN loses", applegpu docs pseudocode): a NaN B loses to a
    // number A. Not hardware-tested in applegpu; derived, see docs/usc.md.
    case 3: compare_lanes(va, vb, inv, out, [](T x, T y) { return x < y || (y != y && x == x); }); break;
    case 5: compare_lanes(va, vb, inv, out, [](T x, T y) { return x >= y; }); break;
    case 6: compare_lanes(va, vb, inv, out, [](T x, T y) { return x <= y; }); break;
    case 7: compare_lanes(va, vb, inv, out, [](T x, T y) { return x > y || (y != y && x == x); }); break;
    default: for (unsigned l = 0; l < kLanes; ++l) out[l] = inv; break;
  }
}

// 32-bit register sources compare as f32 (after flushing subnormals and the
// modifiers): the same order as their exact f64 values.
static bool is_f32_reg(const Operand& o) { return o.kind == Kind::r32 || o.kind == Kind::u32; }
static void read_f32_ftz(const Operand& o, const Core& c, float out[kLanes]) {
  alignas(64) uint32_t tmp[kLanes];
  const uint32_t* v = read_u32_ref(o, c, tmp);
  uint32_t and_mask = o.abs ? 0x7FFFFFFFu : 0xFFFFFFFFu, xor_mask = o.neg ? 0x80000000u : 0u;
  for (unsigned l = 0; l < kLanes; ++l) {
    uint32_t b = (v[l] & 0x7F800000u) ? v[l] : v[l] & 0x80000000u;
    out[l] = std::bit_cast<float>((b & and_mask) ^ xor_mask);
  }
}

void fcompare(uint32_t cc, const Operand& a, const Operand& b, const Core& c, uint32_t out[kLanes]) {
  if (is_f32_reg(a) && is_f32_reg(b)) {
    alignas(64) float fa[kLanes], fb[kLanes];
    read_f32_ftz(a, c, fa);
    read_f32_ftz(b, c, fb);
    return fcompare_lanes(cc, fa, fb, out);
  }
  alignas(64) double va[kLanes], vb[kLanes];
  read_f64(a, c, va);
  read_f64(b, c, vb);
  fcompare_lanes(cc, va, vb, out);
}

}  // namespace agx::usc::detail
