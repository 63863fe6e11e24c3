// The backend's machine instructions: an isa table row, its field values
// (isa::field_id order) and, in operand-slot order, the typed operands
// those fields stand for -- what isa::decode gives back from the encoding.
// Instruction selection (select_*.cpp) builds them from the IR; pack.cpp
// lays them out, resolves branch offsets and encodes them with
// isa::encode. No assembly text is involved.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir.h"
#include "isa/fields.h"
#include "isa/isa.h"

namespace agx::compiler {

struct MachineInstr {
  isa::Instr instr;      // op, fields, operands (slot order)
  isa::Encoded encoded;  // the encoding (a branch's with its final offset after encode_all)
  int target = -1;       // a branch: the machine instruction it jumps to
  int target_ir = -1;    // or the first machine instruction of this IR instruction
};

// Field indices of one operand: its value field, its type field (`t`) and
// a third one some kinds have: the float modifier (`m`), the sign
// extension (`s`) or the presence bit (`a`). kNoField when absent.
inline constexpr size_t kNoField = isa::kMaxFields;
struct OperandFields {
  size_t v = kNoField, t = kNoField, x = kNoField;
};
// Not constexpr: reaching it while a constexpr row table is built (a field
// name the row lacks) fails to compile.
void no_such_field();
// isa::field_id for constexpr functions: the index of row `op`'s field
// `name`. Row tables are constexpr variables, so a missing name does not
// compile.
constexpr size_t required_field(isa::Opcode op, std::string_view name) {
  const size_t i = isa::find_field_id(op, name);
  if (i == kNoField) no_such_field();
  return i;
}
// The fields named `v`, `t` and `x` (empty: none) of row `op`.
constexpr OperandFields operand_fields(isa::Opcode op, std::string_view v, std::string_view t = {},
                                       std::string_view x = {}) {
  return {required_field(op, v), t.empty() ? kNoField : required_field(op, t),
          x.empty() ? kNoField : required_field(op, x)};
}

// Typed operands (isa::Operand as isa::decode fills it).
isa::Operand reg16(unsigned half, unsigned count = 1);
isa::Operand reg32(unsigned reg, unsigned count = 1);
isa::Operand reg64(unsigned reg);
isa::Operand uniform16(unsigned half);
isa::Operand uniform32(unsigned reg);
isa::Operand uniform64(unsigned reg);
isa::Operand imm_operand(int64_t value);

// One machine instruction being built: each call sets an operand's fields
// and records the operand in the next slot. Operands that do not fit
// their row's encoding fail with a message naming the operand.
class Emit {
 public:
  explicit Emit(isa::Opcode op);
  MachineInstr done() const { return m_; }

  void field(size_t index, uint32_t value);  // a field that is no operand
  // kImmediate / kBinary / kEnum / kShift / kMask operands: one field.
  void imm(size_t f, uint32_t value, isa::OperandDesc desc = isa::OperandDesc::kImmediate);
  void binary(size_t f, uint32_t value);
  void enumeration(size_t f, uint32_t value);
  void shift(size_t f, uint32_t amount, isa::OperandDesc desc = isa::OperandDesc::kShift);
  void mask(size_t f, uint32_t width);
  void truth_table(const size_t (&tt)[4], unsigned table);
  // A condition (applegpu's ICondition/FCondition code: cc | ccn << 3);
  // rows without a ccn field take codes 0-7 only.
  Status condition(size_t cc, size_t ccn, unsigned code, bool is_float);
  void implicit_r0l(size_t dt);
  void special(size_t f, unsigned sr);
  void branch(size_t f, int64_t offset);
  // ALU destinations and sources (register kinds per `desc`).
  Status dst(OperandFields f, const isa::Operand& o, isa::OperandDesc desc);
  Status src(OperandFields f, const isa::Operand& o, isa::OperandDesc desc);
  Status cmpsel_src(OperandFields f, const isa::Operand& o);
  // Memory operands.
  Status data(OperandFields f, const isa::Operand& o, isa::OperandDesc desc);  // register tuples
  Status memory_base(OperandFields f, const isa::Operand& o);
  Status memory_index(OperandFields f, const isa::Operand& o, isa::OperandDesc desc);
  Status local_base(OperandFields f, const isa::Operand& o);
  Status atomic_source(size_t f, const isa::Operand& o);
  Status atomic_dest(OperandFields f, const isa::Operand& o);
  // Texture operands.
  Status texture(OperandFields f, const isa::Operand& o);
  Status sampler(OperandFields f, const isa::Operand& o);
  Status coords(OperandFields f, const isa::Operand& o, uint32_t dim);
  Status lod(size_t f, const isa::Operand& o);
  Status compare_offset(OperandFields f, const isa::Operand& o);
  Status pbe_lod(OperandFields f, const isa::Operand& o);
  void no_uniform_pair(size_t f);  // a kSampleUReg that is None
  // Tile operands (st_tile / ld_tile / image_write_block): an immediate
  // sample mask, the lane's own pixel as the tile coordinates (immediate
  // 0), and the r16 holding a byte offset in tile memory.
  void sample_mask(OperandFields f, uint32_t mask);
  void own_pixel(OperandFields f);
  void tile_offset(size_t f, unsigned half);

 private:
  Status fail(const isa::Operand& o, std::string_view expected) const;
  void add(isa::Operand o, isa::OperandDesc desc);
  MachineInstr m_;
};

// The operand an IR source reads: a register (by its allocated half), a
// uniform, an 8-bit immediate (float ones as their 8-bit code, with the
// source's neg/abs folded in) or a special register. Float register and
// uniform sources carry neg/abs as flags.
Result<isa::Operand> operand_of(const Function& f, const Src& s, bool is_float);
// The destination register of `d` (a 64-bit pair for a 2 x 32-bit pair value).
isa::Operand dest_of(const Function& f, ValueId d);
unsigned half_of(const Function& f, const Src& s);

// Instruction selection by family: the machine instructions of one IR
// instruction, appended to `out`. Loop starts (machine indices) are kept
// on `loops` for the end_loop branch.
struct Selection {
  std::vector<MachineInstr> out;
  std::vector<size_t> loops;
};
Status select_alu(const Function& f, const Instr& in, Selection& s);
Status select_memory(const Function& f, const Instr& in, Selection& s);
Status select_texture(const Function& f, const Instr& in, Selection& s);
Status select_control(const Function& f, const Instr& in, Selection& s);
Status select_fragment(const Function& f, const Instr& in, Selection& s);  // iter, sample_mask
Status select_stack(const Function& f, const Instr& in, Selection& s);
Status select_uniform_store(const Function& f, const Instr& in, Selection& s);
Status select_store_output(const Function& f, const Instr& in, Selection& s);
// A jmp_exec_none to the first machine instruction of IR instruction end_ir.
void skip_region(Selection& s, int end_ir);
// Every IR instruction, with jmp_exec_none over long if/else regions, each
// machine instruction encoded (branches with offset 0). Errors name the IR
// instruction and its source line.
Result<std::vector<MachineInstr>> select(const Function& f);
// Lays out the encodings (a branch's length does not depend on its
// offset), then sets each branch's offset and encodes it again; returns
// the bytes.
Result<std::vector<uint8_t>> encode_all(std::vector<MachineInstr>& code);

}  // namespace agx::compiler
