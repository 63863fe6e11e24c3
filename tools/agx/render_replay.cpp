// Render replay: a writable copy of a submit's captured memory, both halves
// of each render command on a GpuExecutor, and the images read back.
#include "render_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "cmdstream/typed.h"
#include "format/format.h"
#include "gpu/gpu.h"
#include "gpu/pbe/pbe.h"
#include "gpu/render/executor.h"
#include "gpu/shader/shader.h"
#include "gpu/texture/image.h"
#include "gpu/zls/zls.h"
#include "layout/layout.h"

namespace agx::cli {

namespace {

namespace cs = cmdstream;
namespace tr = kmd::trace;

// The captured mappings of one submit, copied so the replay may write them.
// A single-page mapping repeats its one page over the whole range (as the
// binding did), so its pages alias. Writes need the mapping's write flag.
class ReplayMemory final : public GpuMemory {
 public:
  explicit ReplayMemory(const cs::TraceSubmit& submit) {
    for (const cs::TraceMapping& m : submit.mappings) maps_.emplace(m.va, m);
  }
  bool read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) override {
    return each(va, size, Access::read, unit, fault, [&](uint8_t* p, size_t done, size_t n) {
      std::memcpy(static_cast<uint8_t*>(dst) + done, p, n);
    });
  }
  bool write(GpuVa va, const void* src, size_t size, GpuUnit unit, GpuFault* fault) override {
    if (!each(va, size, Access::write, unit, fault, [](uint8_t*, size_t, size_t) {})) return false;
    return each(va, size, Access::write, unit, fault, [&](uint8_t* p, size_t done, size_t n) {
      std::memcpy(p, static_cast<const uint8_t*>(src) + done, n);
    });
  }

 private:
  std::map<GpuVa, cs::TraceMapping> maps_;

  // Calls fn(host, done, n) for each piece of [va, va + size) inside one
  // mapping's bytes; false (and *fault) at the first byte not mapped or
  // not allowed.
  template <class Fn>
  bool each(GpuVa va, size_t size, Access access, GpuUnit unit, GpuFault* fault, Fn&& fn) {
    size_t done = 0;
    while (done < size) {
      const GpuVa at = va + done;
      auto it = maps_.upper_bound(at);
      const bool mapped = it != maps_.begin() && at - std::prev(it)->second.va < std::prev(it)->second.size_B;
      const char* why = !mapped ? "not in the trace's captured memory" : nullptr;
      cs::TraceMapping* m = mapped ? &std::prev(it)->second : nullptr;
      if (m && access == Access::write && !(m->flags & tr::kMapWrite)) why = "not writable";
      if (why) {
        if (fault) *fault = {at, access, unit, why};
        return false;
      }
      uint64_t off = at - m->va;
      uint64_t room = m->size_B - off;
      if (m->flags & tr::kMapSinglePage) {
        off %= m->data.size();
        room = std::min<uint64_t>(room, m->data.size() - off);
      }
      const size_t n = size_t(std::min<uint64_t>(room, size - done));
      fn(m->data.data() + off, done, n);
      done += n;
    }
    return true;
  }
};

Error replay_error(const ReplayImage& at, std::string_view what) {
  return Error::fault("submit {} (seqno {}), render command #{}: {}", at.submit, at.seqno, at.command, what);
}

// Both halves of one render command, as the kmd runs them.
Status run_render(gpu::GpuExecutor& gpu, GpuMemory& memory, const cs::TraceSubmit& submit,
                  const cs::TraceCommand& c, const ReplayImage& where) {
  kmd::FirmwareCommand f;
  f.queue_id = submit.info.queue_id;
  f.submit_seqno = submit.info.seqno;
  f.command_index = c.index;
  f.render = &c.render;
  f.usc_exec_base = submit.info.usc_exec_base;
  f.priority = submit.info.priority;
  f.memory = &memory;
  for (const auto queue : {kmd::FirmwareQueue::vertex, kmd::FirmwareQueue::fragment}) {
    f.queue = queue;
    f.attachments = queue == kmd::FirmwareQueue::vertex ? std::span(c.attachments) : std::span(c.fragment_attachments);
    GpuFault fault;
    if (!gpu.execute(f, &fault)) return replay_error(where, fmt::format("replay fault: {}", describe(fault)));
  }
  return {};
}

float clamp01(float v) { return std::isnan(v) ? 0.0f : std::clamp(v, 0.0f, 1.0f); }
uint8_t unorm8(float v) { return uint8_t(std::lround(clamp01(v) * 255.0f)); }

// A texel as RGBA8: normalized and float formats clamped to [0, 1] (sRGB
// ones encoded again), integers clamped to 0..255; the PBE swizzle undone
// (memory channel k holds source component swizzle[k]).
std::array<uint8_t, 4> to_rgba8(const gpu::PbeView& pbe, const gpu::Texel& t) {
  std::array<uint8_t, 4> mem{};
  for (int k = 0; k < 4; ++k) {
    if (pbe.type == format::TextureType::Uint)
      mem[k] = uint8_t(std::min<uint32_t>(t.c[k], 255));
    else if (pbe.type == format::TextureType::Sint)
      mem[k] = uint8_t(std::clamp<int32_t>(int32_t(t.c[k]), 0, 255));
    else
      mem[k] = unorm8(pbe.srgb && k < 3 ? gpu::linear_to_srgb(gpu::u2f(t.c[k])) : gpu::u2f(t.c[k]));
  }
  std::array<uint8_t, 4> rgba{0, 0, 0, 255};
  for (int k = 0; k < 4; ++k)
    if (pbe.swizzle[k] < 4) rgba[pbe.swizzle[k]] = mem[k];
  return rgba;
}

gpu::TextureView view_of(const gpu::PbeView& p) {
  gpu::TextureView v;
  v.dim = p.dim;
  v.layout = p.layout;
  v.channels = p.channels;
  v.type = p.type;
  v.width_px = p.width_px;
  v.height_px = p.height_px;
  v.depth = p.layers;
  v.first_level = v.last_level = p.level;
  v.samples = p.samples;
  v.address = p.buffer;
  v.mipmapped = p.mipmapped;
  v.srgb = p.srgb;  // the texture unit decodes sRGB to linear; to_rgba8 encodes it again
  v.page_aligned_layers = p.page_aligned_layers;
  v.compressed = p.compressed;
  v.sparse = p.sparse;
  v.linear_stride_B = p.linear_stride_B;
  v.linear_layer_stride_B = p.linear_layer_stride_B;
  v.acceleration_buffer = p.acceleration_buffer;
  return v;
}

// Every layer of the level a PBE descriptor writes, sample 0, as RGBA8.
Status read_target(GpuMemory& memory, const gpu::PbeView& pbe, ReplayImage base, std::vector<ReplayImage>& out) {
  gpu::TextureUnit unit(memory, {});
  const gpu::TextureView view = view_of(pbe);
  const uint32_t w = std::max(1u, pbe.width_px >> pbe.level), h = std::max(1u, pbe.height_px >> pbe.level);
  const uint32_t layers = pbe.dim == gpu::Dim::d3 ? std::max(1u, pbe.layers >> pbe.level) : pbe.layers;
  const auto channels = format::channels_info(pbe.channels);
  base.format = fmt::format("{}{} {}", channels ? channels->name : "?", pbe.srgb ? " sRGB" : "",
                            format::to_string(pbe.type));
  base.address = pbe.buffer;
  gpu::SamplerView sampler;
  for (uint32_t layer = 0; layer < layers; ++layer) {
    ReplayImage img = base;
    img.layer = layer;
    img.image = {w, h, PngFormat::rgba8, std::vector<uint8_t>(size_t(w) * h * 4)};
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        gpu::FetchCoord at;
        at.x = int32_t(x);
        at.y = int32_t(y);
        if (pbe.dim == gpu::Dim::d3)
          at.z = int32_t(layer);
        else
          at.layer = layer;
        auto t = unit.load(view, sampler, at);
        if (!t)
          return replay_error(base, fmt::format("reading back {} (PBE image at 0x{:x}) pixel ({}, {}) of layer {}: {}",
                                                base.target, pbe.buffer, x, y, layer, t.error().message()));
        const auto rgba = to_rgba8(pbe, *t);
        std::memcpy(img.image.data.data() + (size_t(y) * w + x) * 4, rgba.data(), 4);
      }
    out.push_back(std::move(img));
  }
  return {};
}

// The render targets: the PBE descriptors the end-of-tile program's USC
// Texture words load (registers that hold no PBE descriptor are skipped).
Status read_targets(GpuMemory& memory, const cs::TraceSubmit& submit, const cs::TraceCommand& c,
                    const ReplayImage& base, std::vector<ReplayImage>& out) {
  const drm_asahi_bg_eot& eot = c.render.eot;
  if ((eot.usc & ~7u) == 0) return {};
  uint8_t raw[4];
  std::memcpy(raw, &eot.rsrc_spec, 4);
  auto counts_word = gpu::read_word<cs::Counts>(raw);
  if (!counts_word) return replay_error(base, "the end-of-tile rsrc_spec: " + counts_word.error().message());
  auto counts = gpu::usc_counts(*counts_word);
  if (!counts) return replay_error(base, "the end-of-tile rsrc_spec: " + counts.error().message());
  gpu::UscWordList list{submit.info.usc_exec_base + (eot.usc & ~7u), submit.info.usc_exec_base, *counts,
                        c.render.sampler_heap, c.render.sampler_count, GpuUnit::pdm, true};
  GpuFault fault;
  auto usc = gpu::read_usc_words(memory, list, &fault);
  if (!usc) return replay_error(base, "the end-of-tile word list: " + usc.error().message());
  const auto& regs = usc->bindings.state.textures;
  for (size_t i = 0; i < regs.size(); ++i) {
    if (!regs[i].loaded) continue;
    auto pbe = gpu::decode_pbe(regs[i].words);
    if (!pbe) continue;  // a texture descriptor the program samples, not a target
    ReplayImage t = base;
    t.target = fmt::format("rt{}", i);
    AGX_CHECK(read_target(memory, *pbe, t, out));
  }
  return {};
}

// Depth (Z32F or Z16 as 16-bit grey: [0, 1] over 0..65535) and stencil (8-bit
// grey) where zls_ctrl stores them, sample 0 of each layer.
Status read_depth_stencil(GpuMemory& memory, const cs::TraceCommand& c, const ReplayImage& base,
                          std::vector<ReplayImage>& out) {
  auto plan = gpu::plan_zls(c.render);
  if (!plan) return replay_error(base, "zls_ctrl: " + plan.error().message());
  const uint32_t w = c.render.width_px, h = c.render.height_px, layers = std::max<uint32_t>(1, c.render.layers);
  const bool z16 = plan->depth_format == gpu::DepthFormat::unorm16;
  struct Plane {
    const char* target;
    const std::optional<layout::Layout>* layout;
    const drm_asahi_zls_buffer* buffer;
    uint32_t element_B;
    const char* format;
  };
  const Plane planes[] = {{"depth", &plan->depth_store, &plan->depth, z16 ? 2u : 4u, z16 ? "Z16_UNORM" : "Z32_FLOAT"},
                          {"stencil", &plan->stencil_store, &plan->stencil, 1u, "S8_UINT"}};
  for (const Plane& p : planes) {
    if (!*p.layout) continue;
    const layout::Layout& l = **p.layout;
    const uint64_t stride = p.buffer->stride ? p.buffer->stride : l.layer_stride_B;
    for (uint32_t layer = 0; layer < layers; ++layer) {
      ReplayImage img = base;
      img.target = p.target;
      img.layer = layer;
      img.format = p.format;
      img.address = p.buffer->base;
      const bool depth = p.element_B != 1;
      img.image = {w, h, depth ? PngFormat::grey16 : PngFormat::grey8, {}};
      img.image.data.resize(size_t(w) * h * (depth ? 2 : 1));
      for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
          auto off = layout::element_address_B(l, x, y, 0, 0, 0);
          if (!off) return replay_error(base, fmt::format("the {} buffer: {}", p.target, off.error().message()));
          const GpuVa va = p.buffer->base + layer * stride + *off;
          uint32_t v = 0;
          GpuFault f;
          if (!memory.read(va, &v, p.element_B, GpuUnit::host, &f))
            return replay_error(base, fmt::format("reading back the {} buffer: {}", p.target, describe(f)));
          const size_t i = size_t(y) * w + x;
          if (!depth) {
            img.image.data[i] = uint8_t(v);
            continue;
          }
          const float z = gpu::u2f(v);
          const uint16_t g = z16 ? uint16_t(v) : uint16_t(std::lround(clamp01(z) * 65535.0f));
          std::memcpy(&img.image.data[i * 2], &g, 2);
        }
      out.push_back(std::move(img));
    }
  }
  return {};
}

}  // namespace

bool ReplayResult::any_faulted() const {
  return std::any_of(commands.begin(), commands.end(), [](const ReplayOutcome& o) { return o.faulted; });
}

namespace {

// One render command run and its images read back into `out`; the
// outcome says whether it faulted (its partial images are dropped).
ReplayOutcome replay_command(gpu::GpuExecutor& gpu, GpuMemory& memory, const cs::TraceSubmit& submit,
                             const cs::TraceCommand& c, const ReplayImage& base, std::vector<ReplayImage>& out) {
  ReplayOutcome o{base.submit, base.seqno, base.command, false, {}, 0};
  const size_t before = out.size();
  Status st = run_render(gpu, memory, submit, c, base);
  if (st) st = read_targets(memory, submit, c, base, out);
  if (st) st = read_depth_stencil(memory, c, base, out);
  if (!st) {
    out.resize(before);
    o.faulted = true;
    o.reason = st.error().message();
  }
  o.images = uint32_t(out.size() - before);
  return o;
}

}  // namespace

Result<ReplayResult> replay_renders(const cs::Trace& trace, const ReplayOptions& options) {
  if (options.submit >= 0 && uint64_t(options.submit) >= trace.submits.size())
    return Error::invalid_argument("--submit {}: the trace holds {} submits", options.submit, trace.submits.size());
  gpu::GpuOptions g;
  g.threads = options.threads;
  g.fixed_function = gpu::texture_unit_factory();
  gpu::GpuExecutor gpu(std::move(g));
  ReplayResult out;
  for (size_t s = 0; s < trace.submits.size(); ++s) {
    if (options.submit >= 0 && s != uint64_t(options.submit)) continue;
    const cs::TraceSubmit& submit = trace.submits[s];
    auto commands = cs::parse_cmdbuf(submit.cmdbuf);
    if (!commands)
      return Error::decode("submit {} (seqno {}): {}", s, submit.info.seqno, commands.error().message());
    ReplayMemory memory(submit);
    for (const cs::TraceCommand& c : *commands) {
      if (c.type != DRM_ASAHI_CMD_RENDER) continue;
      ReplayImage base;
      base.submit = uint32_t(s);
      base.seqno = submit.info.seqno;
      base.command = c.index;
      out.commands.push_back(replay_command(gpu, memory, submit, c, base, out.images));
    }
  }
  if (out.commands.empty()) {
    if (options.submit >= 0) return Error::not_found("submit {} holds no render command", options.submit);
    return Error::not_found("the trace holds no render command ({} submit{})", trace.submits.size(),
                            trace.submits.size() == 1 ? "" : "s");
  }
  return out;
}

std::string replay_file_name(const ReplayImage& image) {
  return fmt::format("submit{}_command{}_{}_layer{}.png", image.submit, image.command, image.target, image.layer);
}

}  // namespace agx::cli
