// The GraphicsHook of fragment-side SIMD groups: coefficient iteration,
// the tilebuffer, depth / stencil output, discard and pixel ordering
// (docs/gpu.md, "Fragment shaders").
#include <bit>
#include <cstring>

#include "gpu/pbe/pbe.h"
#include "gpu/pdm/pdm_internal.h"
#include "usc/formats.h"
#include "util/half.h"

namespace agx::gpu::pdm {

namespace {

uint32_t result_bits(float v, bool dest32) {
  return dest32 ? std::bit_cast<uint32_t>(v) : float_to_half(v, Rounding::nearest_even);
}

Status ldcf(const std::vector<varyings::Coefficients>& cf, usc::IterRequest& r, unsigned l) {
  const uint32_t base = r.cf.at(l);
  for (unsigned k = 0; k < r.components / 3; ++k) {
    if (base + k >= cf.size())
      return Error::invalid_argument("ldcf reads cf{} but the draw binds {} coefficient registers", base + k,
                                     cf.size());
    const varyings::Coefficients& c = cf[base + k];
    r.values[3 * k][l] = result_bits(c.a, r.dest32);
    r.values[3 * k + 1][l] = result_bits(c.b, r.dest32);
    r.values[3 * k + 2][l] = result_bits(c.c, r.dest32);
  }
  return {};
}

}  // namespace

bool test_sample(const Command& c, Tile& t, const PrimitiveTest& pt, uint32_t x, uint32_t y, uint32_t s, double z,
                 std::optional<uint8_t> stencil_reference) {
  FaceTest face = pt.face;
  if (stencil_reference) face.reference = *stencil_reference;
  const size_t i = t.zs.index(x, y, s);
  const bool pass = depth_stencil_test(face, pt.format, z, t.zs.depth[i], t.zs.stencil[i]);
  (void)c;
  if (pass) {
    ++t.passed;
    if (pt.visibility != cmdstream::VisibilityMode::kNone) ++t.visibility[{pt.query, pt.visibility}];
  }
  return pass;
}

void FragmentHook::late_test(uint32_t active) {
  if (test == nullptr) return;
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    Lane& lane = lanes[l];
    if (!(active >> l & 1) || lane.tested) continue;
    lane.tested = true;
    const std::optional<uint8_t> ref = lane.stencil_emitted ? std::optional<uint8_t>(lane.stencil) : std::nullopt;
    for (uint32_t s = 0; s < command_.samples; ++s) {
      if (!(lane.live >> s & 1)) continue;
      if (!test_sample(command_, tile_, *test, lane.x, lane.y, s, lane.depth[s], ref)) lane.live &= ~(1u << s);
    }
  }
}

Status FragmentHook::iterate(usc::IterRequest& r) {
  if (coefficients == nullptr)
    return Error::invalid_argument("{} in a background or end-of-tile program (no primitive's coefficients)",
                                   isa::op_info(r.op).mnemonic);
  const auto& cf = *coefficients;
  const auto positions = std::span(command_.positions.at).first(command_.samples);
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    if (!(r.active >> l & 1)) continue;
    if (r.op == isa::Opcode::ldcf) {
      AGX_CHECK(ldcf(cf, r, l));
      continue;
    }
    const Lane& lane = lanes[l];
    const unsigned px = unsigned(tile_.x0) + lane.x, py = unsigned(tile_.y0) + lane.y;
    varyings::SamplePoint p = varyings::pixel_centre(px, py);
    if (r.interpolation == usc::Interpolation::centroid) {
      p = varyings::centroid_point(px, py, positions, lane.coverage);
    } else if (r.interpolation == usc::Interpolation::sample ||
               r.interpolation == usc::Interpolation::sample_register) {
      const uint32_t s = r.sample.at(l);
      if (s >= command_.samples)
        return Error::invalid_argument("{} at sample {} of a {}-sample render target", isa::op_info(r.op).mnemonic,
                                       s, command_.samples);
      p = varyings::sample_point(px, py, command_.positions.at[s]);
    }
    const uint32_t base = r.cf.at(l);
    const uint32_t last = base + r.components;
    if (last > cf.size() || (r.perspective && r.perspective_cf >= cf.size()))
      return Error::invalid_argument("{} reads cf{}..cf{} (perspective cf{}) but the draw binds {} coefficient "
                                     "registers",
                                     isa::op_info(r.op).mnemonic, base, last - 1, r.perspective_cf, cf.size());
    for (unsigned k = 0; k < r.components; ++k) {
      const float v = r.perspective ? varyings::iterate_perspective(cf[base + k], cf[r.perspective_cf], p)
                                    : varyings::iterate(cf[base + k], p);
      r.values[k][l] = result_bits(v, r.dest32);
    }
  }
  return {};
}

Status FragmentHook::store_varying(const usc::VaryingStore& s) {
  return Error::invalid_argument("{} in a fragment-side program (vertex outputs are the vertex shader's)",
                                 isa::op_info(s.op).mnemonic);
}

Status FragmentHook::access_tile(usc::TileAccess& a) {
  namespace ud = usc::detail;
  if (!ud::memory_format_defined(a.format))
    return Error::decode("{} with undefined memory format {}", isa::op_info(a.op).mnemonic, a.format);
  if (!a.load && test) late_test(a.active);  // late Z: the test runs before the first colour write
  const TileMemory tm{tile_.memory, command_.tile_w, command_.tile_h, command_.samples, command_.sample_stride_B};
  const uint32_t all = (1u << command_.samples) - 1;
  const bool packed = ud::bit_packed(a.format);
  const unsigned eb = ud::memory_element_B(a.format);
  const uint32_t need_B = packed ? 4 : eb * uint32_t(32 - std::countl_zero(a.mask & 0xFu));
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    if (!(a.active >> l & 1)) continue;
    uint32_t x = lanes[l].x, y = lanes[l].y;
    if (a.coords_in_registers) {
      x = a.x[l];
      y = a.y[l];
    }
    if (x >= command_.tile_w || y >= command_.tile_h)
      return Error::invalid_argument("{} at pixel ({}, {}) outside the {}x{} tile", isa::op_info(a.op).mnemonic, x, y,
                                     command_.tile_w, command_.tile_h);
    uint32_t samples = a.samples.at(l) & all;
    if (!a.load && test) samples &= lanes[l].live;
    if (a.load) samples = samples ? (samples & -samples) : 1;  // the lowest sample named
    for (uint32_t s = 0; s < command_.samples; ++s) {
      if (!(samples >> s & 1)) continue;
      const uint64_t at = tile_sample_offset_B(tm, x, y, s) + a.pixel_offset;
      if (at + need_B > tile_.memory.size())
        return Error::invalid_argument("{} at byte {} of the {}-byte tilebuffer (offset {}, format {})",
                                       isa::op_info(a.op).mnemonic, at, tile_.memory.size(), a.pixel_offset,
                                       ud::memory_format_name(a.format));
      uint8_t* p = tile_.memory.data() + at;
      if (packed) {
        uint32_t word = 0, regs[4] = {};
        if (a.load) {
          std::memcpy(&word, p, 4);
          ud::load_word(a.format, word, a.reg32, regs);
          for (unsigned c = 0; c < 4; ++c) a.values[c][l] = regs[c];
        } else {
          for (unsigned c = 0; c < 4; ++c) regs[c] = a.values[c][l];
          word = ud::store_word(a.format, regs, a.reg32);
          std::memcpy(p, &word, 4);
        }
        continue;
      }
      for (unsigned c = 0; c < 4; ++c) {
        if (!(a.mask >> c & 1)) continue;
        uint32_t e = 0;
        if (a.load) {
          std::memcpy(&e, p + c * eb, eb);
          a.values[c][l] = ud::load_element(a.format, c, e, a.reg32);
        } else {
          e = ud::store_element(a.format, c, a.values[c][l], a.reg32);
          std::memcpy(p + c * eb, &e, eb);
        }
      }
    }
  }
  return {};
}

Status FragmentHook::emit_depth_stencil(const usc::DepthStencilEmit& e) {
  if (test == nullptr)
    return Error::invalid_argument("zs_emit in a background or end-of-tile program (no primitive to test)");
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    Lane& lane = lanes[l];
    if (!(e.active >> l & 1) || lane.tested) continue;  // after the test, zs_emit changes nothing
    const uint32_t samples = e.samples.at(l);
    for (uint32_t s = 0; s < command_.samples; ++s)
      if (e.depth && (samples >> s & 1)) lane.depth[s] = double(std::bit_cast<float>(e.depth_bits[l]));
    if (e.stencil) {
      lane.stencil_emitted = true;
      lane.stencil = uint8_t(e.stencil_value[l]);
    }
  }
  late_test(e.active);
  return {};
}

Status FragmentHook::update_sample_mask(const usc::SampleMaskUpdate& u) {
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    if (!(u.active >> l & 1)) continue;
    const uint32_t samples = u.samples.at(l), live = u.live.at(l);
    lanes[l].live &= ~samples | live;
  }
  return {};
}

Status FragmentHook::order_pixels(const usc::PixelOrder& o) {
  // Primitives of a tile run one after the other on one worker, so
  // overlapping fragments already complete in submission order.
  (void)o;
  return {};
}

}  // namespace agx::gpu::pdm
