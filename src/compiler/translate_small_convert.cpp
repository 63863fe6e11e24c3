// Conversions and bitcasts with an 8/16-bit side (translate_small.cpp has
// the widened forms: integers zero-extended, halves as their f32): between
// 8/16/32/64-bit integers and 16/32/64-bit floats, and bit streams of
// 32-bit words cut into components of another width.
#include <bit>

#include <fmt/format.h>

#include "compiler/fp64_lowering.h"
#include "compiler/translate.h"
#include "util/half.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;
using Kind = spirv::Type::Kind;

// A double -> the nearest half: rounded to odd at float precision (24 >=
// 11 + 2 bits), then to the nearest half, which is one correct rounding (no
// double-rounding error). The float nearest a is odd already, or a lies
// between it and its odd neighbour, which round to odd picks.
Src Translator::double_to_half(Pair a) {
  Int64 x(b_);
  Fp64 fp(x);
  Src r = fp.to_f32(a);
  Pair back = fp.from_f32(r);
  Src inexact = fp.lnot(fp.equal(back, a));
  Src even = x.flag(Cond::ueq, x.op(IrOp::iand, r, Src::immediate(1)), Src::immediate(0));
  Src inexact_even = x.op(IrOp::iand, inexact, even);
  Pair abs_a = fp.abs(a);
  Src too_big = fp.less(abs_a, fp.abs(back));
  Src odd = x.op(IrOp::iadd, r, x.sel(Cond::ueq, too_big, Src::immediate(0), Src::immediate(1), Src::immediate(0xFFFFFFFFu)));
  Src fix = x.op(IrOp::iand, inexact_even, fp.lnot(fp.is_nan(a)));
  return round_half(x.sel(Cond::ueq, fix, Src::immediate(0), r, odd));
}

// Conversions with an 8/16-bit side.
Status Translator::small_convert(const spirv::Inst& in) {
  const auto& w = in.w;
  uint32_t rt = w[0], st = operand_type(w[2]);
  const spirv::Type& rs = type(scalar_type(rt));
  const spirv::Type& ss = type(scalar_type(st));
  unsigned rw = rs.width, sw = ss.width, n = components(rt);
  bool src_signed = in.op == SpvOp::OpSConvert || in.op == SpvOp::OpConvertSToF;
  TVal out = TVal::data(rt);
  auto finish = [&]() -> Status { vals_[w[1]] = std::move(out); return {}; };
  // The 32-bit or 64-bit code converts; results narrower than 32 bits are
  // brought back to the widened form.
  auto delegate = [&](bool sign_view) -> Status {
    std::optional<TVal> saved;
    if (sign_view && sw < 32 && ss.kind == Kind::int_) {
      AGX_TRY(auto v, get(w[2], in));
      saved = *v;
      TVal view = *v;
      for (Src& s : view.c) s = sext(s, sw);
      vals_[w[2]] = std::move(view);
    }
    small_active_ = true;
    Status s = instruction(in);
    small_active_ = false;
    if (saved) vals_[w[2]] = std::move(*saved);
    AGX_CHECK(s);
    if (rw < 32) {
      TVal& r = vals_[w[1]];
      for (Src& c : r.c) c = rs.kind == Kind::float_ ? round_half(c) : truncate(c, rw);
    }
    return {};
  };
  switch (in.op) {
    case SpvOp::OpSConvert: case SpvOp::OpUConvert: {
      if (rw == 64) return delegate(src_signed);  // the int64 code extends a 32-bit value
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto s, scalar(w[2], in, i));
        if (sw == 64) s = lo32(s);
        else if (src_signed && rw > sw) s = sext(s, sw);  // narrowing keeps low bits either way
        out.c.push_back(truncate(s, rw));
      }
      return finish();
    }
    case SpvOp::OpFConvert: {
      Int64 x(b_);
      Fp64 fp(x);
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto s, scalar(w[2], in, i));
        if (sw == 16 && rw == 32) out.c.push_back(s);
        else if (sw == 32 && rw == 16) out.c.push_back(round_half(s));
        else if (sw == 16 && rw == 64) {
          Pair p = fp.from_f32(s);
          out.c.push_back(pack64(p.lo, p.hi));
        } else if (sw == 64 && rw == 16) {
          out.c.push_back(double_to_half(Pair{lo32(s), hi32(s)}));
        } else {
          return unsupported(in, fmt::format("OpFConvert from {}-bit to {}-bit floats", sw, rw));
        }
      }
      return finish();
    }
    case SpvOp::OpConvertSToF: case SpvOp::OpConvertUToF: {
      Int64 x(b_);
      Fp64 fp(x);
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto s, scalar(w[2], in, i));
        if (sw == 64) {  // int64 -> half: exactly to double, then one rounding
          Pair d = src_signed ? fp.from_i64(Pair{lo32(s), hi32(s)}) : fp.from_u64(Pair{lo32(s), hi32(s)});
          out.c.push_back(double_to_half(d));
          continue;
        }
        if (src_signed) s = sext(s, sw);
        if (rw == 64) {
          Pair p = src_signed ? fp.from_i32(s) : fp.from_u32(s);
          out.c.push_back(pack64(p.lo, p.hi));
          continue;
        }
        if (s.is_imm()) {
          double v = src_signed ? double(static_cast<int32_t>(s.imm)) : double(static_cast<uint32_t>(s.imm));
          float f = rw == 16 ? half_to_float(agx::double_to_half(v)) : double_to_float(v);
          out.c.push_back(Src::float_immediate(f));
          continue;
        }
        // The convert unit rounds once to the destination's size (to
        // nearest even): an integer to a 16-bit register is one correct
        // rounding to half.
        Conv mode = src_signed ? Conv::s32_to_f : Conv::u32_to_f;
        ValueId d = b_.def(IrOp::convert, {s}, rw == 16 ? 16 : 32, 1, static_cast<uint64_t>(mode));
        out.c.push_back(rw == 16 ? Src::val(b_.def(IrOp::fadd, {Src::val(d, 16), Src::float_immediate(-0.0f)})) : Src::val(d));
      }
      return finish();
    }
    case SpvOp::OpConvertFToS: case SpvOp::OpConvertFToU:
      // From a half (its f32) or to a small integer: the 32/64-bit
      // conversion (truncating; out of range is undefined in SPIR-V: the
      // low bits of the saturated 32-bit result).
      return delegate(false);
    default: return unsupported(in, "conversion");
  }
}

// Bitcasts with an 8/16-bit side: the operand's bits as a stream of 32-bit
// words (components low first), cut into the result's components.
Status Translator::small_bitcast(const spirv::Inst& in) {
  const auto& w = in.w;
  uint32_t rt = w[0];
  AGX_TRY(auto v, get(w[2], in));
  if (v->kind != TVal::Kind::data) return unsupported(in, "bitcast of a non-data value");
  const spirv::Type& ss = type(scalar_type(v->type));
  const spirv::Type& rs = type(scalar_type(rt));
  std::vector<Src> comps = v->c;
  if (ss.width == rs.width && comps.size() == components(rt)) {
    // Component for component: int8 <-> uint8, int16 <-> uint16 keep the
    // widened bits; half <-> 16-bit integer converts between the forms.
    TVal out = TVal::data(rt);
    bool from_half = ss.kind == Kind::float_, to_half = rs.kind == Kind::float_;
    for (const Src& s : comps) out.c.push_back(from_half == to_half ? s : from_half ? half_bits(s) : from_half_bits(s, true));
    vals_[w[1]] = std::move(out);
    return {};
  }
  std::vector<Src> words;
  Src cur = Src::immediate(0);
  unsigned cur_bits = 0;
  for (Src s : comps) {
    std::vector<std::pair<Src, unsigned>> chunks;
    if (ss.width == 64) chunks = {{lo32(s), 32}, {hi32(s), 32}};
    else if (ss.kind == Kind::float_ && ss.width == 16) chunks = {{half_bits(s), 16}};
    else chunks = {{s, ss.width}};
    for (auto [c, bits] : chunks) {
      if (cur_bits == 0 && bits == 32) { words.push_back(c); continue; }
      cur = cur_bits == 0 ? c : b_.binary(IrOp::ior, cur, b_.binary(IrOp::ishl, c, Src::immediate(cur_bits)));
      cur_bits += bits;
      if (cur_bits == 32) { words.push_back(cur); cur = Src::immediate(0); cur_bits = 0; }
    }
  }
  const size_t total_bits = words.size() * 32 + cur_bits;
  if (cur_bits) words.push_back(cur);  // 16 bits (pack16, unpack8 of a 16-bit value)
  TVal out = TVal::data(rt);
  unsigned n = components(rt), rw = rs.width;
  if (n * rw != total_bits) return unsupported(in, "bitcast between different sizes");
  for (unsigned i = 0; i < n; ++i) {
    unsigned bit = i * rw, k = bit / 32, sh = bit % 32;
    if (rw == 64) { out.c.push_back(pack64(words[k], words[k + 1])); continue; }
    if (rw == 32) { out.c.push_back(words[k]); continue; }
    Src part = sh ? b_.binary(IrOp::ushr, words[k], Src::immediate(sh)) : words[k];
    if (rs.kind == Kind::float_) out.c.push_back(from_half_bits(part, sh + rw == 32));
    else out.c.push_back(sh + rw == 32 ? part : truncate(part, rw));
  }
  vals_[w[1]] = std::move(out);
  return {};
}

}  // namespace agx::compiler::detail
