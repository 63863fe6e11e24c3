// The render command's fragment half read once before any tile: the tile
// size, the sample positions, the ZLS plan, the background and end-of-tile
// programs, each draw's fragment shader and coefficient bindings, and the
// primitives set up for coverage.
#include <cstring>

#include <fmt/format.h>

#include "gpu/pdm/pdm_internal.h"
#include "tilebuffer/tilebuffer.h"

namespace agx::gpu::pdm {

namespace cs = cmdstream;

namespace {

Error bad(GpuFault* where, GpuVa va, Error e) { return fail(where, va, GpuUnit::pdm, std::move(e)); }

// The tile size a Shared word's Layout names, if it names one.
std::optional<tilebuffer::TileSize> shared_tile(cs::SharedLayout l) {
  switch (l) {
    case cs::SharedLayout::k32x32: return tilebuffer::TileSize{32, 32};
    case cs::SharedLayout::k32x16: return tilebuffer::TileSize{32, 16};
    case cs::SharedLayout::k16x16: return tilebuffer::TileSize{16, 16};
    default: return std::nullopt;
  }
}

// The preshader of a fragment-side program: once per command, lane 0 only;
// its uniform file is the program's (as the CDM does per launch).
Status run_preshader(Command& c, ProgramCache& programs, Shader& s, uint32_t halves, const char* what,
                     GpuFault* where) {
  GpuMemory& m = *c.cmd->memory;
  AGX_TRY(ProgramPtr pre, programs.load(m, s.usc.preshader, where));
  AGX_CHECK(check_registers(*pre, halves, "the preshader", s.usc.preshader, where));
  auto core = std::make_unique<usc::Core>();
  core->u = s.usc.uniforms;
  core->exec = core->present = 1;
  core->pc = pre->program.base_pc();
  RecordingMemory mem;
  mem.inner = &m;
  std::unique_ptr<usc::FixedFunction> ff = c.fixed_function ? c.fixed_function(s.usc.bindings) : nullptr;
  std::vector<uint8_t> none;
  usc::Memories mm{&mem, &none, ff.get(), s.usc.stack_per_thread_B};
  while (true) {
    auto r = usc::run(pre->program, *core, mm, c.run);
    if (!r) return usc_fault(where, mem, *core, std::move(r).error(), fmt::format("{} preshader", what));
    if (*r == usc::StopReason::finished) break;
  }
  s.usc.uniforms = core->u;
  return {};
}

Result<Shader> load_shader(Command& c, ProgramCache& programs, GpuVa words, const UscCounts& counts,
                           const char* what, GpuFault* where) {
  const drm_asahi_cmd_render& r = *c.render;
  const UscWordList list{words, c.cmd->usc_exec_base, counts, r.sampler_heap, r.sampler_count, GpuUnit::pdm, true};
  auto ctx = [&](Error e) { return std::move(e).context(fmt::format("the {} at 0x{:x}", what, words)); };
  auto usc_or = read_usc_words(*c.cmd->memory, list, where);
  if (!usc_or) return ctx(std::move(usc_or).error());
  Shader s;
  s.words = words;
  s.usc = std::move(*usc_or);
  if (!s.usc.has_shader) return bad(where, words, ctx(Error::decode("the USC word list has no Shader word")));
  if (!s.usc.has_registers) return bad(where, words, ctx(Error::decode("the USC word list has no Registers word")));
  if (s.usc.stack_per_thread_B && r.fragment_helper.binary == 0)
    return bad(where, words, ctx(Error::fault("the program needs {} bytes of scratch per thread but the command "
                                              "has no fragment helper program",
                                              s.usc.stack_per_thread_B)));
  if (s.usc.uses_shared) {
    auto tile = shared_tile(s.usc.shared_layout);
    if (!tile)
      return bad(where, words, ctx(Error::decode("the USC Shared word's Layout is not a tile layout (32x32, "
                                                 "32x16 or 16x16)")));
    if (tile->width_px != c.tile_w || tile->height_px != c.tile_h || s.usc.shared_samples != c.samples)
      return bad(where, words,
                 ctx(Error::invalid_argument("the USC Shared word says {}x{} tiles of {} samples but the command "
                                             "has {}x{} tiles of {} samples",
                                             tile->width_px, tile->height_px, s.usc.shared_samples, c.tile_w,
                                             c.tile_h, c.samples)));
  }
  // image_write_block stores from the render tile (texture.h TextureState).
  s.usc.bindings.state.tile_samples = c.samples;
  s.usc.bindings.state.tile_sample_stride_B = c.sample_stride_B;
  auto p = programs.load(*c.cmd->memory, s.usc.code, where);
  if (!p) return ctx(std::move(p).error());
  s.program = *p;
  AGX_CHECK(check_registers(*s.program, s.usc.register_halves, what, s.usc.code, where));
  if (s.usc.has_preshader) AGX_CHECK(run_preshader(c, programs, s, counts.preshader_halves, what, where));
  return s;
}

// bg / eot: the tagged USC offset (low 3 bits are the tag) and rsrc_spec,
// the program's Counts word (cmdbuf.xml "Counts", as Mesa packs it).
Result<std::optional<Shader>> tile_program(Command& c, ProgramCache& programs, const drm_asahi_bg_eot& p,
                                           const char* what, GpuFault* where) {
  const uint32_t offset = p.usc & ~7u;
  if (offset == 0) return std::optional<Shader>{};
  uint8_t raw[4];
  std::memcpy(raw, &p.rsrc_spec, 4);
  auto counts_word = read_word<cs::Counts>(raw);
  if (!counts_word)
    return bad(where, 0, std::move(counts_word).error().context(fmt::format("the {} rsrc_spec", what)));
  auto counts = usc_counts(*counts_word);
  if (!counts) return bad(where, 0, std::move(counts).error().context(fmt::format("the {} rsrc_spec", what)));
  AGX_TRY(Shader s, load_shader(c, programs, c.cmd->usc_exec_base + offset, *counts, what, where));
  return std::optional<Shader>(std::move(s));
}

Status check_geometry(Command& c, GpuFault* where) {
  const drm_asahi_cmd_render& r = *c.render;
  auto invalid = [&](Error e) { return bad(where, 0, std::move(e).context("render command")); };
  if (r.width_px == 0 || r.height_px == 0)
    return invalid(Error::invalid_argument("empty render target {}x{}", r.width_px, r.height_px));
  const tilebuffer::TileSize tile{r.utile_width_px, r.utile_height_px};
  if (!(tile == tilebuffer::TileSize{32, 32}) && !(tile == tilebuffer::TileSize{32, 16}) &&
      !(tile == tilebuffer::TileSize{16, 16}))
    return invalid(Error::invalid_argument("utile {}x{} is not a tile size of the tilebuffer (32x32, 32x16, 16x16)",
                                           r.utile_width_px, r.utile_height_px));
  auto pos = decode_sample_positions(r.ppp_multisamplectl, r.samples);
  if (!pos) return invalid(std::move(pos).error());
  c.positions = *pos;
  c.samples = r.samples;
  c.tile_w = tile.width_px;
  c.tile_h = tile.height_px;
  c.sample_stride_B = r.sample_size_B;
  if (uint64_t(r.sample_size_B) * r.samples * tile.pixels() > tilebuffer::kMaxTile_B ||
      r.sample_size_B > tilebuffer::kMaxSample_B)
    return invalid(Error::invalid_argument("{} samples of {} bytes in {}x{} tiles exceed the tilebuffer ({} bytes)",
                                           r.samples, r.sample_size_B, tile.width_px, tile.height_px,
                                           tilebuffer::kMaxTile_B));
  AGX_CHECK(check_register_fields(r, where));
  c.tiles_x = (r.width_px + c.tile_w - 1) / c.tile_w;
  c.tiles_y = (r.height_px + c.tile_h - 1) / c.tile_h;
  c.layers = std::max<uint32_t>(1, r.layers);
  auto zls = plan_zls(r);
  if (!zls) return invalid(std::move(zls).error());
  c.zls = std::move(*zls);
  return {};
}

bool uses(const usc::Program& p, isa::Opcode op) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p.instr(i).op == op) return true;
  return false;
}

bool has_fragment_shader(const PppWords& w) {
  cs::PppHeader h{};
  h.fragment_shader = true;
  auto bits = cs::pack(h);
  uint32_t mask = 0;
  if (bits) std::memcpy(&mask, bits->data(), 4);
  return (w.present & mask) != 0;
}

Status prepare_draw(Command& c, ProgramCache& programs, uint32_t index, GpuFault* where) {
  const PppWords& w = c.scene->states[index].ppp;
  DrawShader& d = c.draws[index];
  AGX_CHECK(check_ppp_fields(w, index, where));
  // Tag write disable: the ISP tests and writes depth / stencil, the
  // shader does not run (docs/gpu.md, "PPP fields").
  d.has_shader = has_fragment_shader(w) && !tag_write_disabled(w);
  if (!d.has_shader) return {};
  const std::string what = fmt::format("fragment shader of draw state {}", index);
  auto counts = usc_counts(w.fragment_shader_0);
  if (!counts) return bad(where, 0, std::move(counts).error().context(what));
  const GpuVa words = c.cmd->usc_exec_base + w.fragment_shader_1.pipeline;
  AGX_TRY(d.shader, load_shader(c, programs, words, *counts, what.c_str(), where));
  // Early Z unless Fragment Properties says otherwise or the shader emits
  // its own depth / stencil (zs_emit: nothing to test before it runs).
  d.early_z = (!d.shader.usc.has_fragment_properties || d.shader.usc.fragment_properties.early_z_testing) &&
              !uses(d.shader.program->program, isa::Opcode::zs_emit);
  // CF bindings: the header and Word 0's CF binding count words.
  const uint32_t n = w.fragment_shader_0.cf_binding_count;
  const GpuVa at = c.cmd->usc_exec_base + w.fragment_shader_2.cf_bindings;
  std::vector<uint32_t> bind(1 + n);
  AGX_CHECK(read_gpu(*c.cmd->memory, at, bind.data(), bind.size() * 4, GpuUnit::pdm, where));
  auto b = varyings::unpack_bindings(bind);
  if (!b) return bad(where, at, std::move(b).error().context(fmt::format("CF bindings of draw state {}", index)));
  d.bindings = std::move(*b);
  return {};
}

}  // namespace

Status prepare(Command& c, ProgramCache& programs, GpuFault* where) {
  AGX_CHECK(check_geometry(c, where));
  AGX_TRY(c.bg, tile_program(c, programs, c.render->bg, "background program", where));
  AGX_TRY(c.eot, tile_program(c, programs, c.render->eot, "end-of-tile program", where));
  if (c.partial_every && c.scene->primitives.size() > c.partial_every) {
    AGX_TRY(c.partial_bg, tile_program(c, programs, c.render->partial_bg, "partial background program", where));
    AGX_TRY(c.partial_eot, tile_program(c, programs, c.render->partial_eot, "partial end-of-tile program", where));
  }
  const Scene& scene = *c.scene;
  c.draws.assign(scene.states.size(), DrawShader{});
  std::vector<bool> used(scene.states.size());
  c.prims.clear();
  c.prims.reserve(scene.primitives.size());
  for (const ScenePrimitive& p : scene.primitives) {
    if (p.state >= scene.states.size())
      return bad(where, 0, Error::invalid_argument("primitive {} names draw state {} of {}", p.primitive_id,
                                                   p.state, scene.states.size()));
    used[p.state] = true;
    auto r = setup_primitive(scene, p);
    if (!r) return bad(where, 0, std::move(r).error());
    c.prims.push_back(*r);
  }
  bin_primitives(c);
  for (uint32_t i = 0; i < scene.states.size(); ++i)
    if (used[i]) AGX_CHECK(prepare_draw(c, programs, i, where));
  return {};
}

}  // namespace agx::gpu::pdm
