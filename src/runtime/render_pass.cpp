// Render passes (render_pass.h): the attachments' checks, the tilebuffer
// layout, the background / end-of-tile programs and their word lists, and
// the render command, as Mesa's drivers build them (bminor/mesa-mesa
// src/asahi/vulkan/hk_cmd_draw.c, src/gallium/drivers/asahi/agx_batch.c;
// sample positions: hk_default_sample_positions).
#include "runtime/render_pass.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "cmdstream/cmdstream.h"
#include "runtime/encoder.h"

namespace agx::runtime {

namespace cs = agx::cmdstream;

namespace {

constexpr uint32_t kDescriptor_B = 24, kSampler_B = 8;

// Mesa's default sample positions for 1, 2 and 4 samples (sixteenths of a
// pixel, x in the low nibble; hk_cmd_draw.c hk_default_sample_positions).
uint32_t default_sample_positions(uint32_t samples) {
  return samples == 4 ? 0xeaa26e26u : samples == 2 ? 0x44ccu : 0x88u;
}

bool is_2d(ImageDim d) { return d == ImageDim::d2 || d == ImageDim::d2_array || d == ImageDim::d2_ms || d == ImageDim::d2_ms_array; }

// The checks every attachment shares: a 2D (MS) (array) image of one
// level, of the pass's size, layers and samples (the first sets them).
Status check_area(const Image& img, const std::string& what, RenderArea& area, bool& first) {
  if (!is_2d(img.dim()))
    return Error::invalid_argument("{}: a {} image (2D or 2D multisampled images only)", what,
                                   compiler::image_dim_name(img.dim()));
  if (img.layout().levels != 1) return Error::unsupported("{}: images with several levels", what);
  const RenderArea mine{img.width_px(), img.height_px(), img.layers(), img.samples()};
  if (first) area = mine, first = false;
  else if (mine.width_px != area.width_px || mine.height_px != area.height_px || mine.layers != area.layers ||
           mine.samples != area.samples)
    return Error::invalid_argument("{}: {}x{}, {} layers, {} samples where the pass has {}x{}, {}, {}", what,
                                   mine.width_px, mine.height_px, mine.layers, mine.samples, area.width_px,
                                   area.height_px, area.layers, area.samples);
  return {};
}

Status check_attachment(const ColorAttachment& c, size_t i, RenderArea& area, bool& first) {
  const Image& img = *c.image;
  const format::FormatInfo& fi = format::info(img.layout().request.format);
  if (!fi.renderable) return Error::invalid_argument("colour attachment {}: {} is not a format the PBE writes", i, fi.name);
  AGX_CHECK(check_area(img, fmt::format("colour attachment {}", i), area, first));
  const RenderArea mine = area;
  if (c.resolve) {
    const Image& r = *c.resolve;
    if (r.samples() != 1 || r.width_px() != mine.width_px || r.height_px() != mine.height_px ||
        r.layers() != mine.layers || r.layout().request.format != img.layout().request.format || !is_2d(r.dim()))
      return Error::invalid_argument(
          "colour attachment {}: the resolve image must be a single-sampled 2D image of the attachment's size, "
          "layers and format",
          i);
    if (mine.samples == 1) return Error::invalid_argument("colour attachment {}: resolving a single-sampled image", i);
  }
  return {};
}

// Depth: Z32_FLOAT or Z16_UNORM; stencil: S8_UINT; GPU-tiled or twiddled
// (the ZLS's tilings).
Status check_zls(const Image* img, bool depth, RenderArea& area, bool& first) {
  if (!img) return {};
  const char* what = depth ? "depth attachment" : "stencil attachment";
  const format::Format f = img->layout().request.format;
  const bool ok = depth ? (f == format::Format::Z32_FLOAT || f == format::Format::Z16_UNORM) : f == format::Format::S8_UINT;
  if (!ok)
    return Error::invalid_argument("{}: {} (depth: Z32_FLOAT or Z16_UNORM, stencil: S8_UINT)", what, format::name(f));
  if (img->layout().request.tiling == layout::Tiling::linear)
    return Error::unsupported("{}: a linear image (the ZLS loads and stores GPU-tiled or twiddled ones)", what);
  return check_area(*img, what, area, first);
}

cs::ZlsTiling zls_tiling(const Image& img) {
  return img.layout().request.tiling == layout::Tiling::twiddled ? cs::ZlsTiling::kTwiddled : cs::ZlsTiling::kGpu;
}

}  // namespace

compiler::TileTarget tile_target(const tilebuffer::Layout& layout, uint32_t rt) {
  compiler::TileTarget t;
  const format::IsaFormat f = layout.physical(rt);
  // applegpu's MEMORY_FORMATS codes: IsaFormat lists them in that order
  // from I8 (after None), skipping codes 9 and 11.
  switch (f) {
    case format::IsaFormat::SRGBA8: t.tile_format = 10; break;
    case format::IsaFormat::RG11B10F: t.tile_format = 12; break;
    case format::IsaFormat::RGB9E5: t.tile_format = 13; break;
    default: t.tile_format = uint32_t(f) - 1; break;
  }
  t.offset_B = layout.offset_B[rt];
  const bool packed = f == format::IsaFormat::RGB10A2 || f == format::IsaFormat::RG11B10F || f == format::IsaFormat::RGB9E5;
  t.components = packed ? (f == format::IsaFormat::RGB10A2 ? 4 : 3) : layout.size_B(rt) / tilebuffer::isa_format_align_B(f);
  const format::TextureType type = format::info(*layout.formats[rt]).type;
  t.integer = type == format::TextureType::Uint || type == format::TextureType::Sint;
  return t;
}

Result<std::unique_ptr<RenderPass>> RenderPass::begin(Device& device, RenderPassDesc desc) {
  if (desc.label.empty()) desc.label = "render pass";
  if (desc.colors.size() > tilebuffer::kMaxRenderTargets)
    return Error::invalid_argument("{}: {} colour attachments (1 to {})", desc.label, desc.colors.size(),
                                   tilebuffer::kMaxRenderTargets);
  std::unique_ptr<RenderPass> pass(new RenderPass(device, std::move(desc)));
  tilebuffer::RenderTargets targets{};
  bool first = true;
  for (size_t i = 0; i < pass->desc_.colors.size(); ++i) {
    const ColorAttachment& c = pass->desc_.colors[i];
    if (!c.image) continue;
    if (Status st = check_attachment(c, i, pass->area_, first); !st.ok()) return st.error().context(pass->desc_.label);
    targets[i] = c.image->layout().request.format;
  }
  for (bool depth : {true, false}) {
    const Image* img = depth ? pass->desc_.depth.image : pass->desc_.stencil.image;
    if (Status st = check_zls(img, depth, pass->area_, first); !st.ok()) return st.error().context(pass->desc_.label);
  }
  if (first) return Error::invalid_argument("{}: no attachment has an image", pass->desc_.label);
  AGX_TRY(pass->tib_, tilebuffer::build_layout(targets, pass->area_.samples, pass->area_.layers > 1));
  for (size_t i = 0; i < pass->desc_.colors.size(); ++i)
    if (pass->tib_.spilled[i])
      return Error::unsupported("{}: colour attachment {} does not fit the tilebuffer (spilled targets)", pass->desc_.label, i);
  return pass;
}

RenderPass::~RenderPass() = default;

Result<uint64_t> RenderPass::upload(std::span<const uint8_t> bytes, const char* what, bool usc) {
  AGX_TRY(auto b, device_.create_buffer(std::max<size_t>(bytes.size(), 1), fmt::format("{}: {}", desc_.label, what), usc));
  if (!bytes.empty()) std::memcpy(b->host().data(), bytes.data(), bytes.size());
  const uint64_t va = b->gpu_va();
  buffers_.push_back(std::move(b));
  return usc ? va - device_.va_layout().usc_base : va;
}

// The program's code and word list in the USC window, and the command's
// reference to them: the word list's offset tagged 4 (as the gpu unit's
// tests and agx decode read it) and its Counts word.
Result<drm_asahi_bg_eot> RenderPass::place(const compiler::TileProgram& program, UscWordList w, const char* what) {
  AGX_TRY(uint64_t code, upload(program.code, what, true));
  w.code_usc = uint32_t(code);
  w.register_halves = program.register_halves;
  w.tile_shared = tilebuffer::usc_shared(tib_);
  AGX_TRY(auto words, pack_usc_words(w));
  AGX_TRY(uint64_t at, upload(words, "USC word list", true));
  cs::Counts counts{};
  counts.uniform_register_count = w.uniform_count * 2;
  counts.texture_state_register_count = w.texture_count;
  counts.sampler_state_register_count = w.sampler_count ? cs::SamplerStates::k4Compact : cs::SamplerStates::k0;
  AGX_TRY(auto packed, cs::pack(counts));
  drm_asahi_bg_eot out{};
  out.usc = uint32_t(at) | 4;
  std::memcpy(&out.rsrc_spec, packed.data(), 4);
  return out;
}

// Clear colours at u(2 + 4 rt) (compiler/bg_eot.h); loaded targets'
// texture descriptors at ts(rt) and the texel-fetch sampler at ss0.
Result<drm_asahi_bg_eot> RenderPass::background() {
  compiler::BackgroundKey key;
  key.samples = area_.samples;
  key.layered = area_.layers > 1;
  std::vector<uint32_t> uniforms(2 + 4 * desc_.colors.size(), 0);
  std::vector<uint8_t> textures(kDescriptor_B * desc_.colors.size(), 0);
  bool any = false, loads = false;
  for (uint32_t rt = 0; rt < desc_.colors.size(); ++rt) {
    const ColorAttachment& c = desc_.colors[rt];
    if (!c.image || c.load == LoadOp::dont_care) continue;
    key.targets[rt] = tile_target(tib_, rt);
    any = true;
    if (c.load == LoadOp::clear) {
      key.op[rt] = compiler::BackgroundOp::clear;
      std::copy(c.clear.begin(), c.clear.end(), uniforms.begin() + 2 + 4 * rt);
    } else {
      key.op[rt] = compiler::BackgroundOp::load;
      AGX_TRY(auto d, c.image->texture_descriptor());
      std::memcpy(textures.data() + kDescriptor_B * rt, d.data(), kDescriptor_B);
      loads = true;
    }
  }
  if (!any) return drm_asahi_bg_eot{};
  auto program = compiler::compile_background(key);
  if (!program.ok()) return program.error().context(desc_.label);
  UscWordList w;
  w.uniform_count = program->uniform_halves / 2;
  AGX_TRY(w.uniforms_va, upload({reinterpret_cast<const uint8_t*>(uniforms.data()), uniforms.size() * 4}, "clear colours", false));
  if (loads) {
    w.texture_count = program->texture_states;
    AGX_TRY(w.textures_va, upload(textures, "background textures", false));
    AGX_TRY(auto sampler, cs::pack(cs::Sampler{}));  // nearest, clamped: a texel fetch
    w.sampler_count = 1;
    AGX_TRY(w.samplers_va, upload(std::span<const uint8_t>(sampler.data(), kSampler_B), "background sampler", false));
  }
  return place(*program, w, "background program");
}

// Each stored target's PBE descriptor at ts(rt) (its resolve image's when
// it has one).
Result<drm_asahi_bg_eot> RenderPass::end_of_tile() {
  compiler::EndOfTileKey key;
  key.samples = area_.samples;
  key.layered = area_.layers > 1;
  std::vector<uint8_t> pbes(kDescriptor_B * desc_.colors.size(), 0);
  bool any = false;
  for (uint32_t rt = 0; rt < desc_.colors.size(); ++rt) {
    const ColorAttachment& c = desc_.colors[rt];
    if (!c.image || (c.store == StoreOp::dont_care && !c.resolve)) continue;  // a resolve happens whatever the store
    key.store[rt] = any = true;
    key.resolve[rt] = c.resolve != nullptr;
    key.targets[rt] = tile_target(tib_, rt);
    AGX_TRY(auto d, (c.resolve ? c.resolve : c.image)->pbe_descriptor());
    std::memcpy(pbes.data() + kDescriptor_B * rt, d.data(), kDescriptor_B);
  }
  if (!any) return drm_asahi_bg_eot{};
  auto program = compiler::compile_end_of_tile(key);
  if (!program.ok()) return program.error().context(desc_.label);
  UscWordList w;
  w.texture_count = program->texture_states;
  AGX_TRY(w.textures_va, upload(pbes, "PBE descriptors", false));
  return place(*program, w, "end-of-tile program");
}

// ZLS Control and the buffers: load or clear (isp_bgobjdepth: the f32
// bits or unorm16; isp_bgobjvals: the stencil in the low byte, with the
// 0x300 Mesa's batches set), store; the layout's layer stride (stride 0).
// A 16-bit depth buffer takes its bias in integer units (Mesa sets
// DRM_ASAHI_RENDER_DBIAS_IS_INT for Z16).
Status RenderPass::depth_stencil() {
  drm_asahi_cmd_render& r = cmd_;
  cs::ZlsControl z{};
  z.z_format = cs::ZlsFormat::k32F;
  r.isp_bgobjvals = 0x300 | desc_.stencil.clear;
  if (const Image* d = desc_.depth.image) {
    const bool z16 = d->layout().request.format == format::Format::Z16_UNORM;
    z.z_format = z16 ? cs::ZlsFormat::k16 : cs::ZlsFormat::k32F;
    z.z_load = desc_.depth.load == LoadOp::load;
    z.z_store = desc_.depth.store == StoreOp::store;
    z.z_load_tiling = z.z_store_tiling = zls_tiling(*d);
    r.depth.base = d->gpu_va();
    const float c = std::clamp(desc_.depth.clear, 0.0f, 1.0f);
    r.isp_bgobjdepth = z16 ? uint32_t(std::lround(c * 65535.0f)) : std::bit_cast<uint32_t>(c);
    if (z16) r.flags |= DRM_ASAHI_RENDER_DBIAS_IS_INT;
  }
  if (const Image* st = desc_.stencil.image) {
    z.s_load = desc_.stencil.load == LoadOp::load;
    z.s_store = desc_.stencil.store == StoreOp::store;
    z.s_load_tiling = z.s_store_tiling = zls_tiling(*st);
    r.stencil.base = st->gpu_va();
  }
  AGX_TRY(auto packed, cs::pack(z));
  std::memcpy(&r.zls_ctrl, packed.data(), sizeof r.zls_ctrl);
  return {};
}

Status RenderPass::end() {
  drm_asahi_cmd_render& r = cmd_;
  r = drm_asahi_cmd_render{};
  r.width_px = uint16_t(area_.width_px);
  r.height_px = uint16_t(area_.height_px);
  r.layers = uint16_t(area_.layers);
  r.samples = uint8_t(area_.samples);
  r.sample_size_B = uint8_t(tib_.sample_size_B);
  r.utile_width_px = uint8_t(tib_.tile.width_px);
  r.utile_height_px = uint8_t(tib_.tile.height_px);
  r.ppp_multisamplectl = default_sample_positions(area_.samples);
  if (vertex_helper_) r.vertex_helper = vertex_helper_->program;
  if (fragment_helper_) r.fragment_helper = fragment_helper_->program;
  AGX_TRY(r.bg, background());
  AGX_TRY(r.eot, end_of_tile());
  AGX_CHECK(depth_stencil());
  // The draws' scissor and depth-bias arrays; the recorded stream and its
  // Stream Terminate.
  if (!scissors_.empty()) {
    AGX_TRY(r.isp_scissor_base, upload(scissors_, "scissor array", false));
  }
  if (!depth_biases_.empty()) {
    AGX_TRY(r.isp_dbias_base, upload(depth_biases_, "depth bias array", false));
  }
  AGX_TRY(r.vdm_ctrl_stream_base, stream_prefix(draws_));
  Status st = device_.submit_render(r, desc_.label);
  if (st.ok() || st.error().kind() != ErrorKind::fault || draws_ == 0) return st;
  return faulting_draw(st.error());
}

// The VDM stream of the first `draws` draws, then Stream Terminate.
Result<uint64_t> RenderPass::stream_prefix(uint32_t draws) {
  const size_t end_B = draws == 0 ? 0 : draw_ends_[draws - 1];
  std::vector<uint8_t> stream(stream_.begin(), stream_.begin() + ptrdiff_t(end_B));
  AGX_CHECK(push_vdm_terminate(stream));
  return upload(stream, "VDM stream", false);
}

// A pass with draws faulted: the first faulting draw is found by replaying
// prefixes of the stream (a binary search; faults are deterministic)
// without the end-of-tile program or depth/stencil stores, so the
// attachments keep what the pass left; the error is that replay's, naming
// the draw. Shaders that store to memory store again.
Error RenderPass::faulting_draw(Error pass_fault) {
  drm_asahi_cmd_render r = cmd_;
  r.eot = drm_asahi_bg_eot{};
  auto z = cs::unpack<cs::ZlsControl>(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&cmd_.zls_ctrl), 8));
  if (!z.ok()) return pass_fault;
  z->z_store = z->s_store = false;
  auto packed = cs::pack(*z);
  if (!packed.ok()) return pass_fault;
  std::memcpy(&r.zls_ctrl, packed->data(), sizeof r.zls_ctrl);
  auto replay = [&](uint32_t last) -> Result<bool> {  // whether draws 0..last run without a fault
    AGX_TRY(r.vdm_ctrl_stream_base, stream_prefix(last + 1));
    Status st = device_.submit_render(r, fmt::format("{}: draw {}", desc_.label, last));
    if (!st.ok() && st.error().kind() != ErrorKind::fault) return st.error();
    if (!st.ok()) pass_fault = st.error();
    return st.ok();
  };
  // The first faulting draw is in [lo, hi]; pass_fault becomes the
  // replay's error of draws 0..hi once one is run.
  uint32_t lo = 0, hi = draws_ - 1;
  bool named = false;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    auto ok = replay(mid);
    if (!ok.ok()) return ok.error();
    if (*ok) {
      lo = mid + 1;
    } else {
      hi = mid;
      named = true;
    }
  }
  if (!named) {
    auto ok = replay(hi);
    if (!ok.ok()) return ok.error();
  }
  return pass_fault;
}

}  // namespace agx::runtime
