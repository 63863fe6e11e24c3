// Memory formats of the USC's load/store instructions (internal to the usc
// unit): the F field of device_load/store, threadgroup_load/store and
// stack_load/store, which all use applegpu.py's MEMORY_FORMATS table
// (dougallj/applegpu). Loads follow DeviceLoadInstructionDesc.exec bit for
// bit; stores, the .rtz forms and the packed-word view of bit-packed formats
// in threadgroup/stack memory are derived (see formats.cpp and docs/usc.md).
#pragma once

#include <cstdint>
#include <string_view>

namespace agx::usc::detail {

// Format codes (MEMORY_FORMATS; 9 and 11 are undefined).
enum class MemFormat : uint8_t {
  i8 = 0,
  i16 = 1,
  i32 = 2,
  f16 = 3,
  u8norm = 4,
  s8norm = 5,
  u16norm = 6,
  s16norm = 7,
  rgb10a2 = 8,
  srgba8 = 10,
  rg11b10f = 12,
  rgb9e5 = 13,
  rg11b10f_rtz = 14,
  rgb9e5_rtz = 15,
};

// applegpu's name of format code `f` ("i8", "rgb9e5.rtz", ...), or "" when
// the code is undefined.
std::string_view memory_format_name(uint32_t f);
inline bool memory_format_defined(uint32_t f) { return !memory_format_name(f).empty(); }

// Bit-packed formats (rgb10a2, rg11b10f, rgb9e5 and their .rtz forms) move
// one aligned 32-bit word per thread and ignore the mask and the shift.
// Returns the registers that word unpacks to (4 for rgb10a2, else 3), or 0
// for the per-element formats.
unsigned packed_registers(uint32_t f);
inline bool bit_packed(uint32_t f) { return packed_registers(f) != 0; }

// Bytes of one element: 1, 2 or 4 (a bit-packed format's element is its
// 32-bit word).
unsigned memory_element_B(uint32_t f);

// Per-element formats. `pos` is the element's memory position in the
// instruction (the mask bit, 0-3; srgba8's alpha is position 3), `element`
// its zero-extended bits, `reg` a register's bits (the low 16 when !r32).
uint32_t load_element(uint32_t f, unsigned pos, uint32_t element, bool r32);
uint32_t store_element(uint32_t f, unsigned pos, uint32_t reg, bool r32);

// Bit-packed formats: one word <-> packed_registers(f) register values.
void load_word(uint32_t f, uint32_t word, bool r32, uint32_t out[4]);
uint32_t store_word(uint32_t f, const uint32_t regs[4], bool r32);

// The f32 bits srgba8 loads for colour byte v (applegpu srgb.py).
uint32_t srgb8_to_linear_f32_bits(uint8_t v);

}  // namespace agx::usc::detail
