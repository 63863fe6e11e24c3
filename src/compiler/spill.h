// Spilling for the register allocator (register_allocate.cpp): which live
// value goes to the thread's stack when the registers run out, and the
// rewrite that puts it there.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/ir.h"

namespace agx::compiler::detail {

// Bytes a value's stack slot takes (whole 32-bit words) and whether it can
// move as one stack_store/stack_load (at most 4 words or 4 halves).
uint32_t spill_slot_B(const Value& v);
bool spillable(const Value& v);

// Registers ran out at instruction `at` with `live` holding registers: the
// value to spill is the one whose next read is furthest away (Belady's
// choice; a read reached only over a loop's back edge counts from the end
// of the loop), the bigger one on ties. Values the instruction itself reads
// or writes, values never read again (their register is about to go), and
// `pinned` ones (spill and fill temporaries) are never chosen. kNoValue
// when nothing can go.
ValueId choose_spill(const Function& f, size_t at, const std::vector<ValueId>& live,
                     const std::vector<uint8_t>& pinned);

// Rewrites `f` so that `v` lives in the stack slot at `slot_B`: every
// definition writes a fresh temporary that a stack_store puts in the slot
// (under the definition's execution mask, so a phi variable's slot holds
// what its register would), every read is of a fresh stack_load right
// before the reading instruction. The temporaries are pinned. Counts the
// stores and loads in stats.spills / stats.fills.
void spill_value(Function& f, ValueId v, uint32_t slot_B, std::vector<uint8_t>& pinned, Stats& stats);

}  // namespace agx::compiler::detail
