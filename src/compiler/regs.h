// The register file the allocator hands out: 128 32-bit GPRs seen as 256
// 16-bit halves (r0l = half 0). r0 is reserved: r0l is the nesting counter
// of the execution-mask stack and r0h is left alone (bminor/mesa-mesa
// src/asahi/compiler/README.md: "r0l is the hardware nesting counter",
// "r1 is the hardware link register" -- kept free as well, no calls here).
#pragma once

#include "compiler/ir.h"

namespace agx::compiler {

inline constexpr unsigned kRegisterHalves = 256;
inline constexpr unsigned kFirstAllocatableHalf = 4;  // r2l
// Stack bytes per thread a kernel's frame (local arrays and spill slots)
// may take. Mesa's scratch goes to 512 KiB per thread
// (bminor/mesa-mesa src/asahi/lib/agx_scratch.c, AGX_MAX_SCRATCH_DWORDS);
// 16 KiB is our choice: the software GPU keeps 32 x the frame per SIMD
// group in host memory (16 MiB for a 1024-thread threadgroup), and every
// immediate stack offset fits the instructions' signed 16-bit field.
inline constexpr uint32_t kMaxScratch_B = 16 * 1024;
// The uniform file: u0..u255, 32 bits each (applegpu's 256 uniform
// registers; the usc unit's kUniforms).
inline constexpr uint32_t kUniformRegisters = 256;

// Threads per core for a register count in halves, r0 included (Mesa's
// occupancy table; register_allocate.cpp).
unsigned threads_for_halves(unsigned halves);

// 16-bit scalars may sit in any half, 32-bit values and 16-bit vectors
// (read whole as a 32-bit register, e.g. packHalf2x16's pair) start on a
// register, 64-bit ones on an even register (a 64-bit pair rN_rN+1 with N
// even).
inline unsigned register_alignment(const Value& v) {
  return v.pair || v.bits == 64 ? 4 : v.bits == 32 || v.comps > 1 ? 2 : 1;
}

}  // namespace agx::compiler
