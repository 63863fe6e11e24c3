// The vertex prolog's machine code (private to vertex_prolog*.cpp): the
// few instruction forms the prolog needs, each built as a MachineInstr
// with machine.h's Emit over its isa table row and encoded at once, as
// bg_eot.cpp builds its programs; no assembly text.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "compiler/machine.h"
#include "compiler/select_rows.h"

namespace agx::compiler::prolog {

// Temporaries the ABI leaves to the prolog: r0-r4 and r7 (r5, r6 are the
// vertex and instance IDs the main shader reads too; agx_abi.h). An
// attribute's element index itself lives in its own r(8 + 4L + 3).
inline constexpr unsigned kIndex = 0;  // the division's quotient (r0_r1 its product); the BGRA swap
inline constexpr unsigned kHigh = 1;   // the division's high word
inline constexpr unsigned kTemp = 2;   // the division's partial quotient
inline constexpr unsigned kConst = 7;  // a constant of the index computation
inline constexpr unsigned kLastTemporary = 7;

// The applegpu enums the prolog's rows take (dougallj/applegpu applegpu.py;
// src/isa/table.inc enum tables 0, 1 and 4): convert's modes and rounding,
// the memory formats of device_load.
enum class ConvertMode : uint32_t { u32_to_f = 10, s32_to_f = 11 };
inline constexpr uint32_t kRoundNearestEven = 1;
enum class MemFormat : uint32_t {
  i8 = 0, i16 = 1, i32 = 2, f16 = 3, u8norm = 4, s8norm = 5, u16norm = 6, s16norm = 7, rgb10a2 = 8, rg11b10f = 12
};

class Code {
 public:
  const std::vector<MachineInstr>& instrs() const { return code_; }

  Status mov_imm(unsigned reg, uint32_t value);
  Status mov(unsigned dst, unsigned src);  // bitop's mov table
  // D = op(sources) over an arithmetic row; `mask` the bitfield rows'
  // width (0: all 32 bits), `negate` iadd's subtract.
  Status alu(const AluRow& row, const isa::Operand& d, std::initializer_list<isa::Operand> sources, uint32_t mask = 0,
             bool negate = false);
  // D = cond(A, B) ? X : Y.
  Status cmpsel(const CmpselRow& row, Cond cond, unsigned d, const isa::Operand& a, const isa::Operand& b,
                const isa::Operand& x, const isa::Operand& y);
  Status convert(unsigned reg, ConvertMode mode);  // in place, round to nearest even
  // device_load of `count` components into r(first).. from the uniform
  // pair at `base`, element `index` (r32 or immediate, unsigned) << shift.
  Status device_load(MemFormat format, unsigned count, unsigned first, unsigned base, const isa::Operand& index,
                     uint32_t shift);
  Status wait();

 private:
  Status push(const Emit& e);
  std::vector<MachineInstr> code_;
};

// Float constants the conversions multiply by or compare with, kept in the
// temporaries the conversions leave free (r1-r4, r7; r0 is the swap
// temporary) and loaded once: get() answers the register holding the
// value, loading it into the least recently loaded one when none does.
class Constants {
 public:
  explicit Constants(Code& code) : code_(code) {}
  Result<unsigned> get(uint32_t bits);

 private:
  static constexpr std::array<unsigned, 5> kRegisters{1, 2, 3, 4, 7};
  Code& code_;
  std::array<uint32_t, 5> value_{};
  std::array<bool, 5> loaded_{};
  size_t next_ = 0;
};

}  // namespace agx::compiler::prolog
