// The compiler's passes, one per file, in pipeline order (compile.cpp).
// Each takes the function, changes it in place and may fail with an Error
// naming the unsupported construct.
#pragma once

#include "compiler/compiler.h"
#include "compiler/ir.h"

#include <span>
#include <vector>

namespace agx::compiler {

// spirv_rewrite.cpp (on SPIR-V words, before SPIRV-Tools' legalization):
// GLSL.std.450 Modf/Frexp through an output pointer become ModfStruct /
// FrexpStruct, two extracts and a store. Malformed input comes back as is.
std::vector<uint32_t> rewrite_output_pointers(std::span<const uint32_t> words);
// spirv_rewrite.cpp: the float-atomic OpExtensions (SPV_EXT_shader_atomic_float_add /
// _min_max) dropped so SPIRV-Tools' local-variable passes run on the module.
std::vector<uint32_t> drop_float_atomic_extensions(std::span<const uint32_t> words);
// spirv_zero_derivatives.cpp: in a module without a DerivativeGroup*NV
// execution mode, derivatives become copies of a null constant (0, as
// GL_NV_compute_shader_derivatives defines them). Malformed input comes
// back as is.
std::vector<uint32_t> zero_ungrouped_derivatives(std::span<const uint32_t> words);
// spirv_rect_lod.cpp: `Lod` lookups of Dim Rect images (glslang's OpenGL
// output for texture() of a sampler2DRect) become `Grad` with zero
// gradients, which SPIR-V allows for Rect. Malformed input comes back as is.
std::vector<uint32_t> rect_lod_to_grad(std::span<const uint32_t> words);

// opt_demote_variables.cpp: variables written exactly once, outside every
// if and loop, and read only after that write become SSA values.
bool opt_demote_variables(Function& f);
// opt_copy_prop.cpp: uses of `mov` results read the mov's source instead
// (not for variables, which are written on several paths).
bool opt_copy_prop(Function& f);
// opt_copy_prop.cpp: the 32-bit scalar reads in `in` of values with
// is_copy set read source[value] instead, keeping their float modifiers
// (not an immediate under a modifier, not a vector component as store
// data); true when one changed.
bool read_through_copies(const Function& f, Instr& in, std::span<const Src> source, std::span<const uint8_t> is_copy);
// opt_float_modifiers.cpp: float sources read through an fmov (fadd x, -0.0)
// take its abs/neg modifiers and read x.
bool opt_float_modifiers(Function& f);
// opt_cse.cpp: pure instructions equal to one whose result dominates them
// reuse that result. Loads are reused too while no store, atomic or
// barrier comes between.
bool opt_cse(Function& f);
// dce.cpp: instructions whose results are unused go; atomics whose result
// is unused lose their destination (the no-return form).
bool dce(Function& f);
// opt_coalesce_phis.cpp: `%t = op; ...; %var = mov %t` becomes `%var = op`
// when the same lanes run both, nothing reads %var between and %t dies.
bool opt_coalesce_phis(Function& f);
// opt_empty_else.cpp: empty then/else parts of an if go (an empty then
// part inverts the condition).
bool opt_empty_else(Function& f);
// opt_break_if.cpp: `if_ c; [exit copies]; break_/continue_; end_if`
// becomes `[exit copies]; break_if/continue_if c` (two machine
// instructions instead of four).
bool opt_break_if(Function& f);
// lower_idiv.cpp: udiv/umod/sdiv/smod by a power of two become shifts and
// masks; other divisors become a float reciprocal estimate and two
// integer corrections.
Status lower_idiv(Function& f);
// lower_helper_writes.cpp (fragment shaders): device stores, atomics and
// image writes run only in lanes covering a sample (not helper lanes).
void lower_helper_writes(Function& f);
// lower_immediates.cpp: immediates an instruction cannot encode (8-bit
// integer ALU sources, 8-bit float codes, 16-bit memory offsets) and
// uniforms where only registers are allowed move into registers.
Status lower_immediates(Function& f);
// opt_preamble.cpp: values that depend only on uniforms, immediates and
// uniform-buffer words move into a preamble that stores them to uniforms
// u<first_uniform>.. with uniform_store (the USC Preshader, run once per
// launch); `f` reads those uniforms instead. Only when that leaves fewer
// main-shader instructions; an empty `function` when nothing moves.
struct Preamble {
  Function function;
  uint32_t first_uniform = 0, uniform_count = 0;
};
Result<Preamble> opt_preamble(Function& f, const Abi& abi);
// pressure_schedule.cpp: each basic block reordered bottom-up to lower its
// peak of live register halves; kept only when the peak drops and no
// `wait` is added. Non-pure instructions and phi variable accesses keep
// their order.
bool pressure_schedule(Function& f);
// register_allocate.cpp: linear scan over the structured order; values live
// across a loop back edge are live for the whole loop. When the 128
// registers do not suffice, values (any 1-4 word shape, phi variables
// too) spill to the thread's stack above the local arrays (spill.h).
// Fills stats.gprs, threads_per_core, spills, fills, scratch_B (the frame).
Status register_allocate(Function& f, Stats& stats);
// lower_control_flow.cpp: the nesting values the exec-mask stack needs:
// break/continue get the r0l value (ifs inside the loop + 2 / + 1).
Status lower_control_flow(Function& f);
// insert_waits.cpp: a `wait` before an instruction touches registers a
// load or atomic has not yet written, and before control-flow markers
// while loads are outstanding.
Status insert_waits(Function& f);
// pack.cpp: machine instructions for each IR instruction (select_*.cpp,
// machine.h), encoded with the isa unit's table (isa::encode); branch
// offsets from the encoded lengths.
Result<std::vector<uint8_t>> pack(const Function& f, Stats& stats);
// The whole back end on a translated function (compile.cpp): optimization,
// lowering, the preamble (options.preamble), allocation, waits, packing,
// into `shader` (code, stats, ir text; the Abi as the translator left it).
Status compile_function(Function& f, const Options& options, Shader& shader);
// The disassembly of what pack() encodes, one instruction per line (for
// tests).
Result<std::vector<std::string>> pack_text(const Function& f);

}  // namespace agx::compiler
