// uniform_store: writes registers to the uniform file (derived; applegpu
// decodes it but has no exec). The public facts:
//  - dougallj/applegpu applegpu.py (StoreToUniformInstructionDesc and its
//    docs.html text): R is stored to offset O, "typically an index in 16-bit
//    units into the uniform registers"; the instruction "is encoded like (and
//    possibly is) a store to device memory". Its fields are the device
//    store's: F (2 bits here: i8, i16, i32, f16), mask, R/Rt, O/Ot, s.
//  - Mesa src/asahi/compiler/agx_pack.c packs uniform_store through the same
//    code as device_load/device_store (same bit positions) and always as
//    format i16 from 16-bit registers with shift 0: a 32-bit value becomes
//    two halves (mask 0b11), a 64-bit one four (0b1111), because "the
//    encoding that should be 32-bit" does not work on hardware.
//    agx_compile.c (agx_emit_store_preamble) gives each component the
//    immediate index base + i * (its size in 16-bit units), the units
//    agx_uniform reads (u0l = 0, u0h = 1, u1l = 2, ...).
// So the emulator treats the uniform file as 1024 bytes of little-endian
// memory (u0l = bytes 0-1) and the instruction as a device store into it:
// element i of the mask goes to element (O << s) + i (s = 3 acts as 2, as in
// device_load's exec), of 2 bytes for i16 and f16 (raw, as device_load's
// exec moves f16) and 1 byte for i8 (the register's low byte); the data
// registers R, R+1, ... are taken in order, one per set mask bit. Mesa's form
// (i16, 16-bit registers, s = 0) is the one the hardware is known to run;
// f16, i8 and s != 0 follow from the device-store encoding (derived). The
// 32-bit forms (Rt = 1, or i32) are refused: Mesa reports that they do not
// work on hardware, and what they do is not public.
// Mesa runs uniform_store in the preamble (one thread); with several active
// lanes we apply them in ascending lane order, so the last active lane's
// value remains (our choice).
#include <bit>

#include "usc/formats.h"
#include "usc/internal.h"
#include "util/bits.h"

namespace agx::usc::detail {

namespace {

inline constexpr int64_t kUniformFileB = int64_t{kUniforms} * 4;

// Step fields: k[0] mask, k[1] element bytes (1 or 2), k[2] index shift;
// d = data (r16 tuple), b = index (signed 16-bit immediate or r32).
Status exec_uniform_store(const Step& s, Core& c, Ctx&) {
  const unsigned size_B = s.k[1];
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(c.exec, l)) continue;
    int64_t index = memory_index(s.b, c, l, false) * (int64_t{1} << s.k[2]);
    unsigned half = s.d.index;
    for (unsigned i = 0; i < 4; ++i) {
      if (!(s.k[0] >> i & 1)) continue;
      int64_t at_B = (index + i) * size_B;
      if (at_B < 0 || at_B + size_B > kUniformFileB)
        return Error::fault("pc 0x{:x}: uniform_store element {} (lane {}) at uniform byte {} is outside u0..u{} ({} bytes)",
                            s.pc, i, l, at_B, kUniforms - 1, kUniformFileB);
      uint32_t v = c.r16(half++, l);
      for (unsigned k = 0; k < size_B; ++k, v >>= 8) {
        uint64_t byte = static_cast<uint64_t>(at_B) + k;
        uint32_t& w = c.u[byte / 4];
        unsigned shift = 8 * (byte % 4);
        w = (w & ~(0xFFu << shift)) | ((v & 0xFFu) << shift);
      }
      c.uniforms_written = true;
    }
  }
  return {};
}

}  // namespace

Result<bool> compile_uniform_store(const isa::Instr& in, Step& s) {
  if (in.op != isa::Opcode::uniform_store) return false;
  // F (2 bits here): MEMORY_FORMATS codes 0 i8, 1 i16, 2 i32, 3 f16.
  AGX_TRY(int64_t f, operand_value(in, "F"));
  AGX_TRY(int64_t sh, operand_value(in, "s"));
  AGX_TRY(int64_t mask, operand_value(in, "mask"));
  uint32_t format = static_cast<uint32_t>(f) & 3;
  uint32_t shift = static_cast<uint32_t>(sh);
  s.k[0] = static_cast<uint32_t>(mask);
  AGX_TRY(s.d, operand(in, "R"));  // kMemoryReg: tuple of popcount(mask)
  AGX_TRY(s.b, operand(in, "O"));  // kMemoryIndex: signed 16-bit immediate or r32
  if (s.d.kind == Kind::r32)
    return Error::unsupported(
        "not supported by the emulator: uniform_store from 32-bit registers (format {}); Mesa's compiler "
        "reports this encoding does not work on hardware and stores 16-bit halves instead",
        memory_format_name(format));
  if (memory_element_B(format) == 4)
    return Error::unsupported(
        "not supported by the emulator: uniform_store of format i32 from 16-bit registers (a 32-bit element "
        "from a 16-bit register has no meaning; Mesa stores i16 halves)");
  s.k[1] = memory_element_B(format);
  s.k[2] = index_shift(shift);
  s.run = exec_uniform_store;
  return true;
}

}  // namespace agx::usc::detail
