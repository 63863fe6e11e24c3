// The preshader every data master runs once before a block's shader
// threads (CDM: per Launch; VDM: per draw state).
#include <algorithm>

#include <fmt/format.h>

#include "gpu/shader/shader.h"

namespace agx::gpu {

Status run_preshader(const PreshaderRun& run, usc::Core& c, RecordingMemory& memory, UscState& usc,
                     GpuFault* where) {
  auto pre_or = run.programs->load(*run.memory, usc.preshader, where);
  if (!pre_or) return std::move(pre_or).error().context(run.context);
  const LoadedProgram& pre = **pre_or;
  AGX_CHECK(check_registers(pre, run.preshader_halves, "the preshader", usc.preshader, where));
  const unsigned regs = std::min<unsigned>((run.preshader_halves + 1) / 2, usc::kRegisters);
  for (unsigned r = 0; r < regs; ++r) c.r[r].fill(0);
  c.u = usc.uniforms;
  c.exec = c.present = 1;
  c.pc = pre.program.base_pc();
  c.stack.clear();
  c.stack_frame_B = 0;
  usc::place(c, run.placement);
  for (unsigned sr : {20u, 21u}) {  // core_index and vm_slot: 0
    c.sr_known[sr] = true;
    c.sr[sr].fill(0);
  }
  memory.inner = run.memory;
  memory.reset();
  std::vector<uint8_t> threadgroup;
  std::unique_ptr<usc::FixedFunction> ff =
      run.fixed_function && *run.fixed_function ? (*run.fixed_function)(usc.bindings) : nullptr;
  usc::Memories mem{&memory, &threadgroup, ff.get(), usc.stack_per_thread_B};
  usc::RunOptions options;
  options.step_limit = run.step_limit;
  while (true) {
    auto r = usc::run(pre.program, c, mem, options);
    if (!r) return usc_fault(where, memory, c, std::move(r).error(), fmt::format("{}, preshader", run.context));
    if (*r == usc::StopReason::finished) break;
  }
  usc.uniforms = c.u;
  return {};
}

}  // namespace agx::gpu
