// Image atomics: OpImageTexelPointer becomes a device pointer at the
// texel's address, so the buffer atomics of translate_memory.cpp apply
// (docs/compiler.md, "Images and samplers").
#include <algorithm>

#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler::detail {

using Kind = spirv::Type::Kind;
using IrOp = agx::compiler::Op;

// OpImageTexelPointer: a pointer into device memory at the texel's
// address, which the atomics then use like a buffer element. Level 0 of a
// GPU-tiled (or twiddled) image of 32-bit texels is tiles in raster order,
// Morton order inside a tile (x bit i -> bit 2i, y bit i -> bit 2i+1; a
// tile twice as wide as high has x's top bit above them) -- docs/layout.md.
// Mesa forms the address in the shader too (libagx's image texel address,
// from the descriptor); here the tile geometry comes in ABI uniforms.
Status Translator::texel_pointer(const spirv::Inst& in) {
  const auto& w = in.w;
  if (w.size() < 5 || w[1] >= m_.bound || w[2] >= m_.bound) return Error::decode("{}: bad OpImageTexelPointer", o_.file_name);
  // An image uniform, or an element of an array of them (a constant index).
  int32_t at = m_.is_variable[w[2]] ? image_index_[w[2]] : -1;
  if (!m_.is_variable[w[2]] && vals_[w[2]].kind == TVal::Kind::image) {
    if (vals_[w[2]].image_index.kind != Src::Kind::none)
      return unsupported(in, "image atomic on an image array element picked at run time");
    at = static_cast<int32_t>(vals_[w[2]].image);
  }
  if (at < 0) return unsupported(in, "image atomic on something other than an image uniform");
  ImageBinding& img = abi_.images[static_cast<size_t>(at)];
  // Where the coordinates keep y and the layer (slice, face, layer-face);
  // -1: none. Multisampled and buffer images keep other layouts.
  int y_at = 1, layer_at = -1;
  switch (img.dim) {
    case ImageDim::d1: y_at = -1; break;
    case ImageDim::d1_array: y_at = -1, layer_at = 1; break;
    case ImageDim::d2: break;
    case ImageDim::d2_array: case ImageDim::d3: case ImageDim::cube: case ImageDim::cube_array: layer_at = 2; break;
    default:
      return unsupported(in, fmt::format("image atomics on a {} image are not supported (1D, 2D, 3D, cube, arrays)",
                                         image_dim_name(img.dim)));
  }
  if (img.kind != ImageBinding::Kind::storage_image) return unsupported(in, "image atomics on a sampled image");
  const uint32_t texel_type = type(w[0]).elem;
  if (type(texel_type).width != 32) return unsupported(in, "image atomics on texels that are not 32-bit");
  if (img.atomic_uniform == UINT32_MAX) {
    const uint32_t first = (abi_.uniform_count + 1) & ~1u;
    if (first + 6 > 256) return unsupported(in, fmt::format("no uniform registers left for the atomics on image '{}'", img.name));
    img.atomic_uniform = first;
    abi_.uniform_count = first + 6;
  }
  AGX_TRY(auto cv, get(w[3], in));
  const size_t need = size_t(std::max({1, y_at + 1, layer_at + 1}));
  if (cv->kind != TVal::Kind::data || cv->c.size() < need) return unsupported(in, "image atomic coordinates of another shape");
  const Src x = cv->c[0], y = y_at < 0 ? Src::immediate(0) : cv->c[size_t(y_at)];
  const uint32_t u = img.atomic_uniform;
  const Src tiles_per_row = Src::uniform(u + 2), lw = Src::uniform(u + 3), lh = Src::uniform(u + 4);
  auto op = [&](IrOp o, Src a, Src b) { return b_.binary(o, a, b); };
  auto low_bits = [&](Src v, Src bits) { return op(IrOp::iand, v, op(IrOp::isub, op(IrOp::ishl, Src::immediate(1), bits), Src::immediate(1))); };
  // Bits 0..7 of v to the even bit positions.
  auto spread = [&](Src v) {
    v = op(IrOp::iand, op(IrOp::ior, v, op(IrOp::ishl, v, Src::immediate(4))), Src::immediate(0x0F0F));
    v = op(IrOp::iand, op(IrOp::ior, v, op(IrOp::ishl, v, Src::immediate(2))), Src::immediate(0x3333));
    return op(IrOp::iand, op(IrOp::ior, v, op(IrOp::ishl, v, Src::immediate(1))), Src::immediate(0x5555));
  };
  // One instruction per statement: the order of a call's arguments is
  // unspecified, and the emitted order must not depend on the host
  // compiler. (The order is the one the recorded code bytes have:
  // tests/data/code_bytes.)
  const Src xi = low_bits(x, lw);
  const Src yi = low_bits(y, lh);
  const Src y_odd = op(IrOp::ishl, spread(yi), Src::immediate(1));
  const Src x_even = spread(low_bits(xi, lh));
  Src inside = op(IrOp::ior, x_even, y_odd);
  const Src twice_lh = op(IrOp::iadd, lh, lh);
  const Src x_high = op(IrOp::ushr, xi, lh);
  inside = op(IrOp::ior, inside, op(IrOp::ishl, x_high, twice_lh));
  const Src tile_x = op(IrOp::ushr, x, lw);
  const Src tile_y = op(IrOp::ushr, y, lh);
  const Src tile = b_.imad(tile_y, tiles_per_row, tile_x);
  const Src tile_shift = op(IrOp::iadd, lw, lh);
  Src index = op(IrOp::ior, op(IrOp::ishl, tile, tile_shift), inside);
  // Layers (3D slices, cube faces) are the layout's layer stride apart.
  if (layer_at >= 0) index = b_.imad(cv->c[size_t(layer_at)], Src::uniform(u + 5), index);
  TVal out;
  out.kind = TVal::Kind::ptr;
  out.type = w[0];
  out.ptr.space = Ptr::Space::buffer;
  out.ptr.uniform = u;
  out.ptr.type = texel_type;
  out.ptr.terms.push_back({index, 4});
  vals_[w[1]] = std::move(out);
  return {};
}

}  // namespace agx::compiler::detail
