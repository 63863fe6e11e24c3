// Per-row and per-operand field indices, resolved once from the table so
// decoding never searches by name.
#include <vector>

#include "isa/operands.h"

namespace agx::isa::detail {

namespace {

bool is_name(std::string_view field, std::string_view base, std::string_view suffix) {
  return field.size() == base.size() + suffix.size() && field.substr(0, base.size()) == base &&
         field.substr(base.size()) == suffix;
}

int8_t index_of(Opcode op, std::string_view base, std::string_view suffix) {
  auto f = fields_of(op);
  for (size_t i = 0; i < f.size(); ++i)
    if (is_name(f[i].name, base, suffix)) return static_cast<int8_t>(i);
  return -1;
}

std::vector<OperandFields> make_operand_fields() {
  std::vector<OperandFields> v(std::size(kOperands));
  for (size_t i = 0; i < v.size(); ++i) {
    const OperandRow& o = kOperands[i];
    // applegpu's ShiftDesc keeps its amount in a field named 's'.
    v[i].main = index_of(o.op, o.kind == OperandDesc::kShift ? "s" : o.name, "");
    v[i].t = index_of(o.op, o.name, "t");
    v[i].m = index_of(o.op, o.name, "m");
    v[i].s = index_of(o.op, o.name, "s");
    v[i].a = index_of(o.op, o.name, "a");
  }
  return v;
}

std::vector<RowContext> make_contexts() {
  std::vector<RowContext> v(kOpcodeCount);
  for (size_t i = 0; i < kOpcodeCount; ++i) {
    auto op = static_cast<Opcode>(i);
    RowContext& c = v[i];
    auto f = [&](std::string_view n) { return index_of(op, n, ""); };
    c.Dt = f("Dt"), c.mask = f("mask"), c.count = f("count"), c.n = f("n");
    c.lod = f("lod"), c.compare = f("compare"), c.interpolation = f("interpolation");
    c.op = f("op"), c.F = f("F"), c.Tt = f("Tt"), c.z = f("z"), c.s = f("s");
    c.cc = f("cc"), c.ccn = f("ccn"), c.S = f("S"), c.N = f("N");
    for (int k = 0; k < 4; ++k) c.tt[k] = f(std::string("tt") + char('0' + k));
    // applegpu's Saturatable descriptors: integer add/multiply-add and
    // every instruction with a float destination.
    c.saturatable = op == Opcode::iadd || op == Opcode::imadd;
    for (const auto& o : operands_of(op))
      if (o.kind == OperandDesc::kFloatDst || o.kind == OperandDesc::kFloatDst16)
        c.saturatable = true;
  }
  return v;
}

}  // namespace

const OperandFields& operand_fields(size_t operand_row) {
  static const std::vector<OperandFields> table = make_operand_fields();
  return table[operand_row];
}

const RowContext& row_context(Opcode op) {
  static const std::vector<RowContext> table = make_contexts();
  return table[static_cast<size_t>(op)];
}

}  // namespace agx::isa::detail
