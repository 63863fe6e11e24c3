// The IR builder (builder.h).
#include "compiler/builder.h"

#include <utility>

namespace agx::compiler {

ValueId Builder::def(Op op, std::vector<Src> srcs, uint8_t bits, uint8_t comps, uint64_t imm, Cond cond, bool invert) {
  ValueId d = f_.new_value(bits, comps);
  f_.instrs.push_back(Instr{op, cond, invert, d, std::move(srcs), imm, line});
  return d;
}

void Builder::def_into(ValueId dest, Op op, std::vector<Src> srcs) {
  f_.instrs.push_back(Instr{op, Cond::none, false, dest, std::move(srcs), 0, line});
}

void Builder::emit(Op op, std::vector<Src> srcs, uint64_t imm, Cond cond, bool invert) {
  f_.instrs.push_back(Instr{op, cond, invert, kNoValue, std::move(srcs), imm, line});
}

bool fold_binary(Op op, uint32_t a, uint32_t b, uint32_t& out) {
  switch (op) {
    case Op::iadd: out = a + b; return true;
    case Op::isub: out = a - b; return true;
    case Op::imul: out = a * b; return true;
    case Op::ishl: out = a << (b & 31); return true;
    case Op::ushr: out = a >> (b & 31); return true;
    case Op::ishr: out = static_cast<uint32_t>(static_cast<int32_t>(a) >> (b & 31)); return true;
    case Op::iand: out = a & b; return true;
    case Op::ior: out = a | b; return true;
    case Op::ixor: out = a ^ b; return true;
    case Op::udiv: if (!b) return false; out = a / b; return true;
    case Op::umod: if (!b) return false; out = a % b; return true;
    default: return false;
  }
}

Src Builder::binary(Op op, Src a, Src b) {
  uint32_t v;
  if (a.is_imm() && b.is_imm() && a.bits == 32 && fold_binary(op, static_cast<uint32_t>(a.imm), static_cast<uint32_t>(b.imm), v))
    return Src::immediate(v);
  return Src::val(def(op, {a, b}));
}

Src Builder::iadd(Src a, Src b) {
  if (a.is_imm() && a.imm == 0) return b;
  if (b.is_imm() && b.imm == 0) return a;
  return binary(Op::iadd, a, b);
}

Src Builder::imul(Src a, Src b) {
  if (a.is_imm() && a.imm == 1) return b;
  if (b.is_imm() && b.imm == 1) return a;
  if ((a.is_imm() && a.imm == 0) || (b.is_imm() && b.imm == 0)) return Src::immediate(0);
  return binary(Op::imul, a, b);
}

Src Builder::imad(Src a, Src b, Src c) {
  if (a.is_imm() && b.is_imm()) return iadd(imul(a, b), c);
  if (c.is_imm() && c.imm == 0) return imul(a, b);
  if ((a.is_imm() && a.imm == 1) || (b.is_imm() && b.imm == 1)) return iadd(imul(a, b), c);
  return Src::val(def(Op::imad, {a, b, c}));
}

Src Builder::select(Cond cond, bool invert, Src a, Src b, Src x, Src y) {
  Op op = cond_is_float(cond) ? Op::fcmpsel : Op::icmpsel;
  // The select instructions have no inverted conditions: swap the choices.
  if (invert) std::swap(x, y);
  invert = false;
  return Src::val(def(op, {a, b, x, y}, 32, 1, 0, cond, invert));
}

}  // namespace agx::compiler
