// Fields -> Operand structs, one rule per applegpu operand kind, and the
// field indices each operand row uses. Private to the isa unit.
#pragma once

#include "isa/fields.h"
#include "isa/internal.h"

namespace agx::isa::detail {

// Field indices (into the row's field list, -1 = absent) an operand uses:
// its value field and the name+'t' / 'm' / 's' / 'a' companions.
struct OperandFields {
  int8_t main = -1, t = -1, m = -1, s = -1, a = -1;
};
const OperandFields& operand_fields(size_t operand_row);

// Row-level fields some operands and mnemonics depend on.
struct RowContext {
  int8_t Dt = -1, mask = -1, count = -1, n = -1, lod = -1, compare = -1,
         interpolation = -1, op = -1, F = -1, Tt = -1, z = -1, s = -1, cc = -1,
         ccn = -1, S = -1, N = -1;
  int8_t tt[4] = {-1, -1, -1, -1};
  bool saturatable = false;
};
const RowContext& row_context(Opcode op);

// Fills instr.operands from instr.fields. Fails where applegpu's decoder
// asserts (an odd register where a pair is required, an unknown texture
// dimension, ...), naming the operand.
Status decode_operands(Instr& instr);


}  // namespace agx::isa::detail
