// uniform_store: writes register halves to the uniform registers (derived;
// applegpu decodes it but has no exec). Facts from Mesa src/asahi/compiler:
// agx_emit_store_preamble stores each component with the immediate index
// base + i * (size in 16-bit units), the same 16-bit units agx_uniform
// reads (u0l = 0, u0h = 1, u1l = 2, ...), and agx_pack.c packs it as a
// memory store of format i16 from 16-bit registers with one mask bit per
// half. So: for each set mask bit i (in order), uniform half O + i gets the
// next data half R, R+1, ... Mesa runs it in the preamble (one thread); with
// several active lanes we apply them in ascending lane order, so the last
// active lane's value remains (our choice). Other formats, 32-bit data and
// a non-zero shift are not supported (their meaning is not public).
#include <bit>

#include "usc/internal.h"
#include "util/bits.h"

namespace agx::usc::detail {

namespace {

// Step fields: k[0] mask, d = data (r16 tuple), b = index (imm or r32).
Status exec_uniform_store(const Step& s, Core& c, Ctx&) {
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(c.exec, l)) continue;
    int64_t index = s.b.kind == Kind::imm ? sign_extend(s.b.imm, 16)
                                          : int64_t{static_cast<int32_t>(c.r[s.b.index][l])};
    unsigned half = s.d.index;
    for (unsigned i = 0; i < 4; ++i) {
      if (!(s.k[0] >> i & 1)) continue;
      int64_t u = index + i;
      if (u < 0 || u >= int64_t{kUniforms} * 2)
        return Error::fault("pc 0x{:x}: uniform_store to uniform half {} (lane {}) outside u0l..u{}h", s.pc, u,
                            l, kUniforms - 1);
      uint32_t v = c.r16(half++, l);
      uint32_t& w = c.u[static_cast<size_t>(u >> 1)];
      w = (u & 1) ? (w & 0xFFFFu) | (v << 16) : (w & 0xFFFF0000u) | v;
      c.uniforms_written = true;
    }
  }
  return {};
}

}  // namespace

Result<bool> compile_uniform_store(const isa::Instr& in, Step& s) {
  if (in.op != isa::Opcode::uniform_store) return false;
  uint32_t format = static_cast<uint32_t>(operand_value(in, "F"));
  uint32_t shift = static_cast<uint32_t>(operand_value(in, "s"));
  s.k[0] = static_cast<uint32_t>(operand_value(in, "mask"));
  AGX_TRY(s.d, operand(in, "R"));  // kMemoryReg: tuple of popcount(mask)
  AGX_TRY(s.b, operand(in, "O"));  // kMemoryIndex: signed 16-bit immediate or r32
  if (format != 1 || shift != 0 || s.d.kind == Kind::r32)
    return Error::unsupported("not supported by the emulator: uniform_store of format {} shift {} from {}-bit registers",
                              format, shift, s.d.kind == Kind::r32 ? 32 : 16);
  s.run = exec_uniform_store;
  return true;
}

}  // namespace agx::usc::detail
