// Helper lanes write nothing: a fragment shader's device stores, atomics
// and image writes run only in lanes that cover a sample, as GL and
// Vulkan ask of helper invocations (GLSL 4.60 section 7.1.2, "helper
// invocations ... shall not have side effects"; Mesa does the same with
// its nir_lower_helper_writes pass, bminor/mesa-mesa
// src/compiler/nir/nir_lower_helper_writes.c). A lane is a helper when its
// coverage mask (sr60) is zero (docs/gpu.md "SIMD groups and special
// registers"). An atomic's result, which a helper never gets, is 0, or
// for cmpxchg the compare value (its data's second word), so a
// compare-and-swap loop around it ends for helpers too.
#include "compiler/passes.h"

namespace agx::compiler {

namespace {

constexpr uint64_t kSrCoverageMask = 60;  // applegpu SR_NAMES: internal_coverage_mask

bool is_write(const Instr& in) {
  return in.op == Op::device_store || in.op == Op::atomic || in.op == Op::image_write;
}

// The value a helper lane's atomic returns.
Src helper_result(const Function& f, const Instr& atomic) {
  if (static_cast<AtomicOp>(atomic.imm) == AtomicOp::cmpxchg && !atomic.srcs.empty()) {
    const Src& data = atomic.srcs.back();
    if (data.is_value() && f.values[data.value].comps >= 2) return Src::val(data.value, 32, 1);
  }
  return Src::immediate(0);
}

}  // namespace

void lower_helper_writes(Function& f) {
  std::vector<Instr> out;
  out.reserve(f.instrs.size());
  for (Instr& in : f.instrs) {
    if (!is_write(in)) {
      out.push_back(std::move(in));
      continue;
    }
    const ValueId coverage = f.new_value();
    out.push_back(Instr{Op::get_sr, Cond::none, false, coverage, {}, kSrCoverageMask, in.line});
    ValueId result = kNoValue, merged = kNoValue;
    if (in.dest != kNoValue) {
      const Value shape = f.values[in.dest];
      merged = f.new_value(shape.bits, shape.comps, true);
      out.push_back(Instr{Op::mov, Cond::none, false, merged, {helper_result(f, in)}, 0, in.line});
      result = in.dest;
      in.dest = f.new_value(shape.bits, shape.comps);
    }
    out.push_back(Instr{Op::if_, Cond::ueq, true, kNoValue, {Src::val(coverage), Src::immediate(0)}, 0, in.line});
    const ValueId written = in.dest;
    const uint32_t line = in.line;
    out.push_back(std::move(in));
    if (result != kNoValue) out.push_back(Instr{Op::mov, Cond::none, false, merged, {Src::val(written)}, 0, line});
    out.push_back(Instr{Op::end_if, Cond::none, false, kNoValue, {}, 0, line});
    if (result != kNoValue) out.push_back(Instr{Op::mov, Cond::none, false, result, {Src::val(merged)}, 0, line});
  }
  f.instrs = std::move(out);
}

}  // namespace agx::compiler
