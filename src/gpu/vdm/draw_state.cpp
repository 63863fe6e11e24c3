// Draw states: the VDM and PPP words in force at a draw, made into a
// Scene::states entry at the first draw after a VDM State or PPP State
// block. Its vertex shader (the USC word list at VDM State Vertex Shader
// Word 1's Pipeline) is read then, and its preshader run once, so a draw
// state's draws share one set of uniforms (as the CDM runs a Launch's
// preshader once).
#include <fmt/format.h>

#include "gpu/vdm/vdm_internal.h"

namespace agx::gpu::detail {

namespace {

Status read_shader(VertexEngine& engine, VdmRun& run, GpuVa draw_at, const std::string& ctx) {
  const kmd::FirmwareCommand& cmd = run.cmd;
  auto counts = usc_counts(*run.vdm.shader_0);
  if (!counts) return fail(run.where, draw_at, GpuUnit::vdm, std::move(counts).error().context(ctx));
  const GpuVa words = cmd.usc_exec_base + run.vdm.shader_1->pipeline;
  const UscWordList list{words,      cmd.usc_exec_base,         *counts, cmd.render->sampler_heap,
                         cmd.render->sampler_count, GpuUnit::vdm, false};
  auto usc = read_usc_words(*cmd.memory, list, run.where);
  if (!usc) return std::move(usc).error().context(ctx);
  auto bad = [&](Error e) { return fail(run.where, words, GpuUnit::vdm, std::move(e).context(ctx)); };
  if (!usc->has_shader) return bad(Error::decode("the USC word list at 0x{:x} has no Shader word", words));
  if (!usc->has_registers) return bad(Error::decode("the USC word list at 0x{:x} has no Registers word", words));
  if (usc->stack_per_thread_B && cmd.render->vertex_helper.binary == 0)
    return bad(Error::fault("the vertex shader needs {} bytes of scratch per thread but the command has no vertex "
                            "helper program",
                            usc->stack_per_thread_B));
  auto program = engine.programs.load(*cmd.memory, usc->code, run.where);
  if (!program) return std::move(program).error().context(ctx);
  AGX_CHECK(check_registers(**program, usc->register_halves, "the vertex shader", usc->code, run.where));
  if (usc->has_preshader) {
    PreshaderRun pre;
    pre.memory = cmd.memory;
    pre.programs = &engine.programs;
    pre.fixed_function = &engine.options.fixed_function;
    pre.step_limit = engine.step_limit;
    pre.preshader_halves = counts->preshader_halves;
    pre.context = ctx;
    AGX_CHECK(run_preshader(pre, *engine.preshader_core, engine.preshader_memory, *usc, run.where));
    engine.counters.preshader_runs++;
  }
  run.shader = VertexShader{std::move(*usc), *program, *counts};
  return {};
}

}  // namespace

Status prepare_draw_state(VertexEngine& engine, VdmRun& run, GpuVa draw_at) {
  if (!run.state_dirty) return {};
  const std::string ctx = fmt::format("Index List at 0x{:x}", draw_at);
  if (!run.vdm.shader_0 || !run.vdm.shader_1)
    return fail(run.where, draw_at, GpuUnit::vdm,
                Error::decode("{}: a draw with no vertex shader (no VDM State has set Vertex Shader Words 0 and 1)",
                              ctx));
  DrawState state;
  state.ppp = run.ppp;
  state.output_count = static_cast<uint32_t>(run.vdm.outputs.output_count_1);
  auto plan = plan_draw_state(state);
  if (!plan) return fail(run.where, draw_at, GpuUnit::ppp, std::move(plan).error().context(ctx));
  AGX_CHECK(read_shader(engine, run, draw_at, ctx));
  run.scene.states.push_back(std::move(state));
  run.state = static_cast<uint32_t>(run.scene.states.size() - 1);
  run.plan = std::move(*plan);
  run.state_dirty = false;
  return {};
}

}  // namespace agx::gpu::detail
