// The scalar integer and bool OpSpecConstantOp that SPIRV-Tools'
// fold-spec-constant-op pass leaves (64-bit arithmetic, conversions):
// every operand is a constant by then (the spec constants are frozen), so
// the value follows from the instruction's SPIR-V semantics (wrapping
// arithmetic at the result width; signed forms on sign-extended operands).
#include "compiler/spirv_module.h"

namespace agx::compiler::spirv {

namespace {

uint64_t mask_of(uint32_t width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }
int64_t sext(uint64_t v, uint32_t width) {
  if (width >= 64) return static_cast<int64_t>(v);
  uint64_t sign = uint64_t{1} << (width - 1);
  v &= mask_of(width);
  return static_cast<int64_t>((v ^ sign) - sign);
}

}  // namespace

std::optional<uint64_t> fold_spec_constant_op(const Module& m, std::span<const uint32_t> w) {
  // w: result type, result id, opcode, operands.
  if (w.size() < 4 || w[0] >= m.bound) return std::nullopt;
  const Type& rt = m.types[w[0]];
  if (rt.kind != Type::Kind::int_ && rt.kind != Type::Kind::bool_) return std::nullopt;
  if (rt.kind == Type::Kind::int_ && rt.width != 32 && rt.width != 64) return std::nullopt;
  std::vector<uint64_t> v;
  std::vector<uint32_t> width;
  for (size_t i = 3; i < w.size(); ++i) {
    uint32_t id = w[i];
    if (id >= m.bound || !m.is_constant[id]) return std::nullopt;
    const Constant& c = m.constants[id];
    if (c.composite || c.type >= m.bound) return std::nullopt;
    const Type& t = m.types[c.type];
    if (t.kind != Type::Kind::int_ && t.kind != Type::Kind::bool_) return std::nullopt;
    if (t.kind == Type::Kind::int_ && (t.width == 0 || t.width > 64)) return std::nullopt;  // malformed
    width.push_back(t.kind == Type::Kind::bool_ ? 1 : t.width);
    v.push_back(c.null ? 0 : c.bits & mask_of(width.back()));
  }
  const uint32_t rw = rt.kind == Type::Kind::bool_ ? 1 : rt.width;
  auto a = [&](size_t i) { return v[i]; };
  auto s = [&](size_t i) { return sext(v[i], width[i]); };
  auto n = [&](size_t count) { return v.size() == count; };
  std::optional<uint64_t> r;
  using spv::Op;
  switch (static_cast<Op>(w[2])) {
    case Op::OpIAdd: if (n(2)) r = a(0) + a(1); break;
    case Op::OpISub: if (n(2)) r = a(0) - a(1); break;
    case Op::OpIMul: if (n(2)) r = a(0) * a(1); break;
    case Op::OpUDiv: if (n(2) && a(1)) r = a(0) / a(1); break;
    case Op::OpUMod: if (n(2) && a(1)) r = a(0) % a(1); break;
    case Op::OpSDiv:
      if (n(2) && s(1) && !(s(1) == -1 && s(0) == sext(uint64_t{1} << (width[0] - 1), width[0])))
        r = static_cast<uint64_t>(s(0) / s(1));
      break;
    case Op::OpSRem: case Op::OpSMod:
      if (n(2) && s(1) && s(1) != -1) {
        int64_t q = s(0) % s(1);
        if (static_cast<Op>(w[2]) == Op::OpSMod && q != 0 && ((q < 0) != (s(1) < 0))) q += s(1);
        r = static_cast<uint64_t>(q);
      } else if (n(2) && s(1) == -1) {
        r = 0;
      }
      break;
    case Op::OpSNegate: if (n(1)) r = uint64_t{0} - a(0); break;
    case Op::OpNot: if (n(1)) r = ~a(0); break;
    case Op::OpBitwiseAnd: if (n(2)) r = a(0) & a(1); break;
    case Op::OpBitwiseOr: if (n(2)) r = a(0) | a(1); break;
    case Op::OpBitwiseXor: if (n(2)) r = a(0) ^ a(1); break;
    case Op::OpShiftLeftLogical: if (n(2) && a(1) < rw) r = a(0) << a(1); break;
    case Op::OpShiftRightLogical: if (n(2) && a(1) < rw) r = a(0) >> a(1); break;
    case Op::OpShiftRightArithmetic: if (n(2) && a(1) < rw) r = static_cast<uint64_t>(s(0) >> a(1)); break;
    case Op::OpSConvert: if (n(1)) r = static_cast<uint64_t>(s(0)); break;
    case Op::OpUConvert: if (n(1)) r = a(0); break;
    case Op::OpIEqual: case Op::OpLogicalEqual: if (n(2)) r = a(0) == a(1); break;
    case Op::OpINotEqual: case Op::OpLogicalNotEqual: if (n(2)) r = a(0) != a(1); break;
    case Op::OpULessThan: if (n(2)) r = a(0) < a(1); break;
    case Op::OpULessThanEqual: if (n(2)) r = a(0) <= a(1); break;
    case Op::OpUGreaterThan: if (n(2)) r = a(0) > a(1); break;
    case Op::OpUGreaterThanEqual: if (n(2)) r = a(0) >= a(1); break;
    case Op::OpSLessThan: if (n(2)) r = s(0) < s(1); break;
    case Op::OpSLessThanEqual: if (n(2)) r = s(0) <= s(1); break;
    case Op::OpSGreaterThan: if (n(2)) r = s(0) > s(1); break;
    case Op::OpSGreaterThanEqual: if (n(2)) r = s(0) >= s(1); break;
    case Op::OpLogicalAnd: if (n(2)) r = a(0) && a(1); break;
    case Op::OpLogicalOr: if (n(2)) r = a(0) || a(1); break;
    case Op::OpLogicalNot: if (n(1)) r = !a(0); break;
    case Op::OpSelect: if (n(3)) r = a(0) ? a(1) : a(2); break;
    default: break;
  }
  if (!r) return std::nullopt;
  return *r & mask_of(rw);
}

}  // namespace agx::compiler::spirv
