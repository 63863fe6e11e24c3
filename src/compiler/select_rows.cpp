// Row lookups of instruction selection (select_rows.h).
#include "compiler/select_rows.h"

namespace agx::compiler {

namespace {
using O = isa::Opcode;
constexpr AluRow kFloatUnary[] = {
    float_row(O::floor, 1, false), float_row(O::ceil, 1, false),  float_row(O::trunc, 1, false),
    float_row(O::rint, 1, false),  float_row(O::rcp, 1, false),   float_row(O::rsqrt, 1, false),
    float_row(O::rsqrt_special, 1, false), float_row(O::log2, 1, false), float_row(O::exp2, 1, false),
    float_row(O::sin_pt_1, 1, false), float_row(O::sin_pt_2, 1, false), float_row(O::dfdx, 1, false),
    float_row(O::dfdy, 1, false)};
constexpr Op kFloatUnaryOps[] = {Op::floor, Op::ceil, Op::trunc, Op::rint, Op::rcp, Op::rsqrt,
                                 Op::rsqrt_special, Op::log2, Op::exp2, Op::sin_pt_1, Op::sin_pt_2, Op::dfdx, Op::dfdy};
static_assert(std::size(kFloatUnary) == std::size(kFloatUnaryOps));

constexpr AluRow kShuffles[] = {
    int_row(O::simd_shuffle, 2, isa::OperandDesc::kAluSrc16), int_row(O::simd_shuffle_down, 2, isa::OperandDesc::kAluSrc16),
    int_row(O::simd_shuffle_up, 2, isa::OperandDesc::kAluSrc16), int_row(O::simd_shuffle_xor, 2, isa::OperandDesc::kAluSrc16)};
}  // namespace

const AluRow* float_unary_row(Op op) {
  for (size_t i = 0; i < std::size(kFloatUnaryOps); ++i)
    if (kFloatUnaryOps[i] == op) return &kFloatUnary[i];
  return nullptr;
}

const AluRow* shuffle_row(uint64_t variant) { return variant < std::size(kShuffles) ? &kShuffles[variant] : nullptr; }

Result<unsigned> condition_code(Cond c, bool invert) {
  // dougallj/applegpu applegpu.py ICondition (ueq 0, ult 1, ugt 2, seq 4,
  // slt 5, sgt 6) and FCondition (eq 0, lt 1, gt 2, ltn 3, gte 5, lte 6,
  // gtn 7), in Cond order; the n (inverted) forms add 8.
  static constexpr unsigned kCodes[] = {0, 1, 2, 4, 5, 6, 0, 1, 2, 3, 5, 6, 7};
  if (static_cast<size_t>(c) >= std::size(kCodes)) return Error::invalid_argument("an instruction without a condition");
  return kCodes[static_cast<size_t>(c)] | (invert ? 8u : 0u);
}

}  // namespace agx::compiler
