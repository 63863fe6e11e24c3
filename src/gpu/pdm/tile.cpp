// One tile: ZLS load, the background program, the primitives that touch the
// tile in submission order, the end-of-tile program, ZLS store. Programs
// run as SIMD groups of 8 quads (an 8x4 block of pixels) on the worker's
// core (docs/gpu.md, "The fragment half").
#include <fmt/format.h>

#include "gpu/pdm/pdm_internal.h"

namespace agx::gpu::pdm {

namespace {

// The special registers a fragment-side SIMD group reads (Mesa's
// agx_compile.c: pixel coordinates sr80/81, coverage sr60, backfacing sr62,
// input sample mask sr124; and the tile the image_write_block of an
// end-of-tile program stores: sr0/1 the tile, sr8/9 its size, sr2 the layer).
constexpr std::array<unsigned, 14> kFragmentSrs = {0, 1, 2, 8, 9, 48, 49, 52, 53, 60, 62, 80, 81, 124};

void start_group(usc::Core& core, const Command& c, const Tile& t, const Shader& s, const FragmentHook& hook,
                 uint32_t present, unsigned group, bool backfacing) {
  const unsigned regs = std::min<unsigned>((s.usc.register_halves + 1) / 2, usc::kRegisters);
  for (unsigned r = 0; r < regs; ++r) core.r[r].fill(0);
  core.u = s.usc.uniforms;
  core.exec = core.present = present;
  core.pc = s.program->program.base_pc();
  core.stack.clear();
  core.stack_frame_B = 0;
  for (unsigned sr : kFragmentSrs) core.sr_known[sr] = true;
  core.sr[0].fill(uint32_t(t.x0) / c.tile_w);
  core.sr[1].fill(uint32_t(t.y0) / c.tile_h);
  core.sr[2].fill(t.layer);
  core.sr[8].fill(c.tile_w);
  core.sr[9].fill(c.tile_h);
  core.sr[53].fill(group);
  core.sr[62].fill(backfacing ? 1 : 0);
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    const Lane& lane = hook.lanes[l];
    core.sr[48][l] = lane.x;
    core.sr[49][l] = lane.y;
    core.sr[52][l] = l;
    core.sr[60][l] = core.sr[124][l] = lane.coverage;
    core.sr[80][l] = uint32_t(t.x0) + lane.x;
    core.sr[81][l] = uint32_t(t.y0) + lane.y;
  }
}

Status run_group(const Command& c, Worker& w, Tile& t, const Shader& s, FragmentHook& hook,
                 usc::FixedFunction* ff, const GroupName& name, unsigned group, GpuFault* where) {
  usc::Memories mem{&w.memory, &t.memory, ff, s.usc.stack_per_thread_B, &hook};
  while (true) {
    auto r = usc::run(s.program->program, w.core, mem, c.run);
    if (!r) return usc_fault(where, w.memory, w.core, std::move(r).error(), name.text(t, group));
    if (*r == usc::StopReason::finished) return {};
    if (*r == usc::StopReason::barrier)
      return fail(where, w.core.pc, GpuUnit::usc,
                  Error::invalid_argument("threadgroup_barrier in a fragment-side program ({})", name.text(t, group)));
  }
}

std::string tile_text(const Tile& t) { return fmt::format("tile at ({}, {}) layer {}", t.x0, t.y0, t.layer); }

}  // namespace

std::string GroupName::text(const Tile& t, unsigned group) const {
  const std::string what = program ? std::string(program) : fmt::format("fragment shader of primitive {}", primitive);
  return fmt::format("{}, {}, simdgroup {}", what, tile_text(t), group);
}

// A SIMD group with scratch takes a stack record from the fragment helper
// on its core (the tile's number mod 8, as the CDM's threadgroups) and
// gives it back when it ends, as the CDM does (shader/helper.cpp).
Status run_group_for(const Command& c, Worker& w, Tile& t, const Shader& s, FragmentHook& hook, uint32_t present,
                     unsigned group, bool backfacing, usc::FixedFunction* ff, const GroupName& name,
                     GpuFault* where) {
  start_group(w.core, c, t, s, hook, present, group, backfacing);
  const bool helper = s.usc.stack_per_thread_B && c.helper_header;
  const uint32_t core = uint32_t(t.index % kUscCores);
  if (helper) {
    std::lock_guard g(*c.helper_mu);
    if (Status st = helper_stack_alloc(*c.cmd->memory, c.helper_header, core, s.usc.spill_bucket, 1, where); !st)
      return std::move(st).error().context(name.text(t, group));
  }
  Status st = run_group(c, w, t, s, hook, ff, name, group, where);
  if (helper) {
    std::lock_guard g(*c.helper_mu);
    GpuFault f;
    Status freed = helper_stack_free(*c.cmd->memory, c.helper_header, core, 1, &f);
    if (st && !freed) {
      if (where) *where = f;
      return std::move(freed).error().context(name.text(t, group));
    }
  }
  return st;
}

Status run_tile_program(const Command& c, Worker& w, Tile& t, const Shader& s, const char* what, GpuFault* where) {
  std::unique_ptr<usc::FixedFunction> ff = c.fixed_function ? c.fixed_function(s.usc.bindings) : nullptr;
  FragmentHook hook(c, t);
  const uint32_t all = (1u << c.samples) - 1;
  unsigned group = 0;
  for (uint32_t by = 0; by < c.tile_h; by += 4)
    for (uint32_t bx = 0; bx < c.tile_w; bx += 8, ++group) {
      for (unsigned l = 0; l < usc::kLanes; ++l) {
        const auto off = lane_offset(l);
        hook.lanes[l] = Lane{bx + off[0], by + off[1], all, all, true, {}, false, 0};
      }
      AGX_CHECK(run_group_for(c, w, t, s, hook, 0xFFFFFFFFu, group, false, ff.get(),
                              GroupName{what}, where));
    }
  return {};
}

namespace {

Status load_tile(const Command& c, Tile& t, GpuFault* where) {
  if (Status st = zls_load(*c.cmd->memory, c.zls, t.x0, t.y0, t.layer, t.zs, where); !st)
    return std::move(st).error().context(tile_text(t));
  return {};
}

Status store_tile(const Command& c, Tile& t, GpuFault* where) {
  if (Status st = zls_store(*c.cmd->memory, c.zls, t.x0, t.y0, t.layer, t.zs, where); !st)
    return std::move(st).error().context(tile_text(t));
  return {};
}

// A partial render between two parts of the scene: the partial end-of-tile
// program, ZLS store (as zls_ctrl stores), a fresh tile (its tilebuffer
// zeroed: the colour survives only through what the partial programs
// store and reload), ZLS load (as zls_ctrl loads, else the clear values),
// the partial background program.
Status split_tile(const Command& c, Worker& w, Tile& t, GpuFault* where) {
  if (c.partial_eot) AGX_CHECK(run_tile_program(c, w, t, *c.partial_eot, "partial end-of-tile program", where));
  AGX_CHECK(store_tile(c, t, where));
  std::fill(t.memory.begin(), t.memory.end(), uint8_t(0));
  AGX_CHECK(load_tile(c, t, where));
  if (c.partial_bg) AGX_CHECK(run_tile_program(c, w, t, *c.partial_bg, "partial background program", where));
  ++t.splits;
  return {};
}

}  // namespace

Status run_tile(const Command& c, Worker& w, Tile& t, GpuFault* where) {
  t.memory.assign(size_t(c.sample_stride_B) * c.samples * c.tile_w * c.tile_h, 0);
  t.zs.reset(c.tile_w, c.tile_h, c.samples);
  w.memory.reset();
  AGX_CHECK(load_tile(c, t, where));
  if (c.bg) AGX_CHECK(run_tile_program(c, w, t, *c.bg, "background program", where));
  // Every tile splits at every boundary between the scene's parts, also
  // where it has no primitive on either side (the hardware flushes the
  // whole scene when the tiler's memory is full).
  const uint64_t total = c.scene->primitives.size();
  uint64_t next_split = c.partial_every ? c.partial_every : UINT64_MAX;
  for (uint64_t k = c.bin_start[t.index]; k < c.bin_start[t.index + 1]; ++k) {
    for (; next_split <= c.bins[k]; next_split += c.partial_every) AGX_CHECK(split_tile(c, w, t, where));
    ++t.binned;
    AGX_CHECK(shade_primitive(c, w, t, c.bins[k], where));
  }
  for (; next_split < total; next_split += c.partial_every) AGX_CHECK(split_tile(c, w, t, where));
  if (c.eot) AGX_CHECK(run_tile_program(c, w, t, *c.eot, "end-of-tile program", where));
  return store_tile(c, t, where);
}

}  // namespace agx::gpu::pdm
