// Instruction selection, vertex outputs: store_output -> st_var (or
// st_var_final for the last store), a 32-bit register to the vertex
// output word named by an immediate (applegpu's st_var: `r` the register,
// `I` the UVS index with `It` = 1 for an immediate; `u` is set as Mesa's
// agx_pack.c sets it, bminor/mesa-mesa src/asahi/compiler/agx_pack.c).
#include "compiler/machine.h"

namespace agx::compiler {

Status select_store_output(const Function& f, const Instr& in, Selection& s) {
  const Src& data = in.srcs[0];
  if (!data.is_value() || data.bits != 32) return Error::invalid_argument("store_output needs a 32-bit register");
  const unsigned half = half_of(f, data);
  if (half % 2) return Error::invalid_argument("store_output of a register half");
  const bool final = in.imm >> 8 & 1;
  const std::pair<std::string_view, uint32_t> fields[] = {
      {"u", 1}, {"r", half / 2}, {"It", 1}, {"I", static_cast<uint32_t>(in.imm & 0xFF)}};
  AGX_TRY(auto enc, isa::encode_fields(final ? isa::Opcode::st_var_final : isa::Opcode::st_var, fields));
  AGX_TRY(auto decoded, isa::decode(enc.span()));
  MachineInstr m;
  m.instr = decoded;
  m.encoded = enc;
  s.out.push_back(std::move(m));
  return {};
}

}  // namespace agx::compiler
