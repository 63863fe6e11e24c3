// The vertex prolog's instruction forms (vertex_prolog_code.h) as machine
// instructions: operands through machine.h's Emit in each row's operand
// order (dougallj/applegpu applegpu.py's instruction descriptors, as the
// isa table spells them), then isa::encode.
#include "compiler/vertex_prolog_code.h"

namespace agx::compiler::prolog {

namespace {

using O = isa::Opcode;
using D = isa::OperandDesc;

// device_load's fields (applegpu DeviceLoadInstructionDesc).
struct DeviceLoadRow {
  size_t g, F, mask;
  OperandFields R, A, O;
  size_t Ou, s;
};
constexpr DeviceLoadRow kDeviceLoad = {
    required_field(O::device_load, "g"),  required_field(O::device_load, "F"),
    required_field(O::device_load, "mask"), operand_fields(O::device_load, "R", "Rt"),
    operand_fields(O::device_load, "A", "At"), operand_fields(O::device_load, "O", "Ot"),
    required_field(O::device_load, "Ou"), required_field(O::device_load, "s")};
constexpr uint32_t kUnsignedIndex = 1;  // the Ou enum: 0 signed, 1 unsigned

}  // namespace

Status Code::push(const Emit& e) {
  MachineInstr m = e.done();
  auto enc = isa::encode(m.instr);
  if (!enc.ok())
    return Error::invalid_argument("vertex prolog: encoding instruction {} ({}): {}", code_.size(),
                                   isa::op_info(m.instr.op).mnemonic, enc.error().message());
  m.encoded = *enc;
  code_.push_back(m);
  return {};
}

Status Code::mov_imm(unsigned reg, uint32_t value) {
  Emit e(O::mov_imm32);
  AGX_CHECK(e.dst(kMovImm32.d, reg32(reg), D::kAluDst));
  e.imm(kMovImm32.imm, value);
  e.binary(kMovImm32.kill, 0);
  return push(e);
}

Status Code::mov(unsigned dst, unsigned src) {
  Emit e(O::bitop);
  e.truth_table(kBitop.tt, tt("0101"));
  AGX_CHECK(e.dst(kBitop.d, reg32(dst), D::kAluDst));
  AGX_CHECK(e.src(kBitop.a, reg32(src), D::kAluSrc));
  AGX_CHECK(e.src(kBitop.b, imm_operand(0), D::kAluSrc));
  return push(e);
}

Status Code::alu(const AluRow& row, const isa::Operand& d, std::initializer_list<isa::Operand> sources, uint32_t mask,
                 bool negate) {
  Emit e(row.op);
  if (negate) e.field(row.n, 1);
  AGX_CHECK(e.dst(row.d, d, row.dst_desc));
  size_t i = 0;
  for (const isa::Operand& s : sources) {
    AGX_CHECK(e.src(row.srcs[i], s, row.src_desc[i]));
    ++i;
  }
  if (row.shift != kNoField) e.shift(row.shift, 0);
  if (row.mask != kNoField) e.mask(row.mask, mask);
  return push(e);
}

Status Code::cmpsel(const CmpselRow& row, Cond cond, unsigned d, const isa::Operand& a, const isa::Operand& b,
                    const isa::Operand& x, const isa::Operand& y) {
  const bool is_float = row.op == O::fcmpsel;
  AGX_TRY(const unsigned code, condition_code(cond, false));
  Emit e(row.op);
  AGX_CHECK(e.condition(row.cc, kNoField, code, is_float));
  AGX_CHECK(e.dst(row.d, reg32(d), D::kAluDst));
  AGX_CHECK(e.src(row.a, a, is_float ? D::kFloatSrc : D::kAluSrc));
  AGX_CHECK(e.src(row.b, b, is_float ? D::kFloatSrc : D::kAluSrc));
  AGX_CHECK(e.cmpsel_src(row.x, x));
  AGX_CHECK(e.cmpsel_src(row.y, y));
  return push(e);
}

Status Code::convert(unsigned reg, ConvertMode mode) {
  Emit e(O::convert);
  e.enumeration(kConvert.mode, static_cast<uint32_t>(mode));
  AGX_CHECK(e.dst(kConvert.d, reg32(reg), D::kAluDst));
  AGX_CHECK(e.src(kConvert.src, reg32(reg), D::kAluSrc));
  e.enumeration(kConvert.round, kRoundNearestEven);
  return push(e);
}

Status Code::device_load(MemFormat format, unsigned count, unsigned first, unsigned base, const isa::Operand& index,
                         uint32_t shift) {
  const DeviceLoadRow& r = kDeviceLoad;
  Emit e(O::device_load);
  e.imm(r.g, 0);
  e.enumeration(r.F, static_cast<uint32_t>(format));
  e.enumeration(r.mask, (1u << count) - 1);
  AGX_CHECK(e.data(r.R, reg32(first, count), D::kMemoryReg));
  AGX_CHECK(e.memory_base(r.A, uniform64(base)));
  AGX_CHECK(e.memory_index(r.O, index, D::kMemoryIndex));
  e.enumeration(r.Ou, kUnsignedIndex);
  e.shift(r.s, shift, D::kMemoryShift);
  return push(e);
}

Status Code::wait() {
  Emit e(O::wait);
  e.imm(isa::field_id(O::wait, "i"), 0);
  return push(e);
}

Result<unsigned> Constants::get(uint32_t bits) {
  for (size_t i = 0; i < kRegisters.size(); ++i)
    if (loaded_[i] && value_[i] == bits) return kRegisters[i];
  const size_t i = next_;
  next_ = (next_ + 1) % kRegisters.size();
  AGX_CHECK(code_.mov_imm(kRegisters[i], bits));
  value_[i] = bits;
  loaded_[i] = true;
  return kRegisters[i];
}

}  // namespace agx::compiler::prolog
