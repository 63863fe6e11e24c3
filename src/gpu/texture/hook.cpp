// The USC hook: texture_sample / texture_load / image_write operands to the
// texture unit and the PBE, per active lane.
//
// Operand meanings (bminor/mesa-mesa src/asahi/compiler agx_pack.c,
// agx_compile.c and agx_nir_lower_texture.c; dougallj/applegpu applegpu.py):
// - C: coordinates, 32-bit (or 16-bit with Cs), then 16-bit extras: the
//   array layer, or the sample index, or both (sample low, layer high).
// - D by the lod field: 0 none (implicit LOD), 1/5 fp16 bias (uniform /
//   register), 2/6 explicit LOD (fp16 for texture_sample, an integer for
//   texture_load), 4 gradients (ddx.x, ddy.x, ddx.y, ddy.y, ...; fp32), 12
//   gradients then an fp16 minimum LOD in the next register.
// - O: a 32-bit compare reference, a 16-bit packed offset (4-bit signed
//   nibbles x, y, z), or both (reference, then the offset half).
// - T: a texture state register, or bindless: U (a 64-bit uniform base) plus
//   a byte offset (immediate 0, a 16- or 32-bit register).
// - S: a sampler state register, or a 16-bit register holding its index.
// - R: the components enabled by mask, written contiguously, 32-bit or
//   16-bit (Rt clear: fp16 for float textures, the low 16 bits of integers).
// - q6 (applegpu's name; Mesa's gather field shifted left by one): 0 none,
//   2 / 6 / 10 / 14 gather of component r / g / b / a, 3 gather_depth
//   (applegpu's name; the depth channel, compared when compare is set).
// - mode 2 (Mesa's query_lod bit): the LOD instead of texels (x the level
//   accessed, y the computed LOD; Mesa's nir_texop_lod).
#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <utility>

#include "gpu/pbe/pbe.h"
#include "gpu/texture/texture_internal.h"
#include "isa/fields.h"
#include "isa/isa.h"

namespace agx::gpu {
namespace {

using isa::Operand;
using isa::OperandKind;
using usc::Core;
using usc::kLanes;

using isa::Opcode;

// The fields of a texture instruction, read once per instruction from the
// isa table's compile-time field indices (a misspelt field name does not
// compile). texture_sample and texture_load share their fields' order.
consteval size_t sample_field_id(std::string_view name) {
  const size_t i = isa::field_id(Opcode::texture_sample, name);
  if (i != isa::field_id(Opcode::texture_load, name))
    throw "texture_sample and texture_load order the field differently";
  return i;
}
static_assert(kDimCount == isa::kTexDimCount, "Dim follows the n field's values");
struct TextureFields {
  uint32_t n = 0, mode = 0, q6 = 0, mask = 0, lod = 0;
  bool compare = false, offset = false, c16 = false;
};
TextureFields texture_fields(const isa::Instr& in) {
  const auto& f = in.fields;
  TextureFields t;
  t.n = f[sample_field_id("n")];
  t.mode = f[sample_field_id("mode")];
  t.q6 = f[sample_field_id("q6")];
  t.mask = f[sample_field_id("mask")];
  t.lod = f[sample_field_id("lod")];
  t.compare = f[sample_field_id("compare")] != 0;
  t.offset = f[sample_field_id("Ot")] != 0;
  t.c16 = f[sample_field_id("Cs")] != 0;
  return t;
}
// image_write and image_write_block (F: the tile format, block only; the
// rows order their fields differently).
struct ImageFields {
  uint32_t n, format;
  bool c16, round;
};
ImageFields image_fields(const isa::Instr& in, bool block) {
  const auto& f = in.fields;
  using isa::field_id;
  constexpr Opcode kW = Opcode::image_write, kB = Opcode::image_write_block;
  if (block)
    return {f[field_id(kB, "n")], f[field_id(kB, "F")], f[field_id(kB, "Cs")] != 0, f[field_id(kB, "round")] != 0};
  return {f[field_id(kW, "n")], 0, f[field_id(kW, "Cs")] != 0, f[field_id(kW, "round")] != 0};
}

const Operand* operand(const isa::Instr& in, isa::OperandDesc desc) {
  for (const Operand& o : in.ops())
    if (o.desc == desc) return &o;
  return nullptr;
}

uint16_t read16(const Core& c, const Operand& o, unsigned i, unsigned lane) {
  switch (o.kind) {
    case OperandKind::kReg16: return c.r16(o.index + i, lane);
    case OperandKind::kReg32: return uint16_t(c.r[o.index + i / 2][lane] >> (16 * (i & 1)));
    case OperandKind::kUReg16: {
      const unsigned h = o.index + i;
      return uint16_t(c.u[h >> 1] >> (16 * (h & 1)));
    }
    case OperandKind::kImm: return uint16_t(o.value);
    default: return 0;
  }
}
uint32_t read32(const Core& c, const Operand& o, unsigned i, unsigned lane) {
  switch (o.kind) {
    case OperandKind::kReg32:
    case OperandKind::kText: return c.r[o.index + i][lane];
    case OperandKind::kReg16:
      return uint32_t(c.r16(o.index + 2 * i, lane)) | uint32_t(c.r16(o.index + 2 * i + 1, lane)) << 16;
    case OperandKind::kUReg32: return c.u[o.index + i];
    case OperandKind::kImm: return uint32_t(o.value);
    default: return 0;
  }
}
void write_dest(Core& c, const Operand& o, unsigned i, unsigned lane, uint32_t v) {
  if (o.kind == OperandKind::kReg32) {
    c.r[o.index + i][lane] = v;
    c.written[o.index + i] = true;
  } else if (o.kind == OperandKind::kReg16) {
    const unsigned h = o.index + i;
    uint32_t& r = c.r[h >> 1][lane];
    r = (h & 1) ? (r & 0xFFFF) | (v << 16) : (r & 0xFFFF0000u) | (v & 0xFFFF);
    c.written[h >> 1] = true;
  }
}

float h2f(uint16_t h) { return half_to_float(h); }

// Malformed encodings can name tuples past r127h (or u255h): refuse them
// before any lane reads or writes a register.
Status fits(const Operand& o, unsigned halves, const char* what) {
  unsigned first = 0, limit = 0;
  switch (o.kind) {
    case OperandKind::kReg16: first = o.index, limit = usc::kRegisters * 2; break;
    case OperandKind::kReg32:
    case OperandKind::kText: first = 2u * o.index, limit = usc::kRegisters * 2; break;
    case OperandKind::kUReg16: first = o.index, limit = usc::kUniforms * 2; break;
    case OperandKind::kUReg32: first = 2u * o.index, limit = usc::kUniforms * 2; break;
    default: return {};
  }
  if (first + halves > limit)
    return Error::decode("{} operand: {} halves from register half {} run past the register file",
                         what, halves, first);
  if (o.kind == OperandKind::kText && unsigned(o.value) + 1 > limit)
    return Error::decode("{} operand: offset half {} is past the register file", what, o.value);
  return {};
}

// Where one lane's texture and sampler descriptors come from: a state
// register's loaded words, or bindless descriptors read from memory. The
// instruction's operands are found once; the last descriptor decoded is
// kept, so lanes naming the same one decode it once per instruction.
class Descriptors {
 public:
  Descriptors(TextureUnit& u, const isa::Instr& in)
      : unit_(u),
        t_(operand(in, isa::OperandDesc::kTexture)),
        u_(operand(in, isa::OperandDesc::kSampleUReg)),
        s_(operand(in, isa::OperandDesc::kSampler)) {}
  // The views stay valid until the next call for another descriptor.
  Result<const TextureView*> texture(const Core& c, unsigned lane) {
    AGX_TRY(Where w, where(c, lane));
    if (tex_ && tex_->first == w.key) return &tex_->second;
    Result<TextureView> t = w.bindless ? unit_.texture_at(w.va) : unit_.texture_at_register(w.ts);
    if (!t) return std::move(t).error();
    tex_.emplace(w.key, *t);
    return &tex_->second;
  }
  Result<PbeView> pbe(const Core& c, unsigned lane) {
    AGX_TRY(Where w, where(c, lane));
    if (pbe_ && pbe_->first == w.key) return pbe_->second;
    std::array<uint32_t, kTextureDescriptor_B / 4> words{};
    if (w.bindless) {
      GpuFault fault;
      if (!unit_.memory().read(w.va, words.data(), sizeof words, GpuUnit::pbe, &fault))
        return Error::fault("PBE descriptor: {}", describe(fault));
    } else {
      AGX_TRY(auto reg, unit_.texture_register(w.ts));
      std::copy(reg.begin(), reg.end(), words.begin());
    }
    auto p = decode_pbe(words);
    if (!p)
      return std::move(p).error().context(w.bindless ? fmt::format("PBE descriptor at 0x{:x}", w.va)
                                                     : fmt::format("PBE descriptor in texture state register {}", w.ts));
    pbe_.emplace(w.key, *p);
    return *p;
  }
  Result<const SamplerView*> sampler(const Core& c, unsigned lane) {
    if (s_ == nullptr) return Error::decode("no sampler operand");
    uint32_t index = s_->kind == OperandKind::kSamplerState ? s_->index : read16(c, *s_, 0, lane);
    if (samp_ && samp_->first == index) return &samp_->second;
    AGX_TRY(SamplerView v, unit_.sampler_at_register(index));
    samp_.emplace(index, v);
    return &samp_->second;
  }

 private:
  // A texture operand: state register `ts`, or a bindless descriptor at
  // `va`; `key` for the caches.
  using Key = std::pair<bool, uint64_t>;
  struct Where {
    bool bindless = false;
    uint32_t ts = 0;
    GpuVa va = 0;
    Key key;
  };
  Result<Where> where(const Core& c, unsigned lane) const {
    if (t_ == nullptr) return Error::decode("no texture operand");
    if (u_ != nullptr && u_->kind == OperandKind::kUReg64) {
      if (unsigned(u_->index) + 1 >= usc::kUniforms) return Error::decode("bindless base past u255");
      const GpuVa base = uint64_t(c.u[u_->index]) | uint64_t(c.u[u_->index + 1]) << 32;
      uint64_t off = t_->kind == OperandKind::kReg16   ? read16(c, *t_, 0, lane)
                     : t_->kind == OperandKind::kReg32 ? read32(c, *t_, 0, lane)
                                                       : uint64_t(t_->value);
      const GpuVa va = base + off;
      return Where{true, 0, va, {true, va}};
    }
    const uint32_t ts = t_->kind == OperandKind::kTextureState ? t_->index : read16(c, *t_, 0, lane);
    return Where{false, ts, 0, {false, ts}};
  }

  TextureUnit& unit_;
  const Operand* t_;
  const Operand* u_;
  const Operand* s_;
  std::optional<std::pair<Key, TextureView>> tex_;
  std::optional<std::pair<Key, PbeView>> pbe_;
  std::optional<std::pair<uint32_t, SamplerView>> samp_;
};

struct LaneCoords {
  std::array<uint32_t, 3> raw{};  // 32-bit words (or widened 16-bit values)
  uint32_t layer = 0, sample = 0;
};

// Reads coordinates; `as_float` converts 16-bit coordinates from fp16.
Result<LaneCoords> read_coords(bool c16, const Core& c, const Operand& C, Dim dim, bool as_float,
                               unsigned lane) {
  const isa::TexSize sz = isa::kTexSizes[static_cast<unsigned>(dim)];
  LaneCoords out;
  unsigned extra_half;
  if (c16) {
    for (unsigned i = 0; i < sz.count; ++i) {
      const uint16_t h = read16(c, C, i, lane);
      out.raw[i] = as_float ? std::bit_cast<uint32_t>(h2f(h)) : uint32_t(int32_t(int16_t(h)));
    }
    extra_half = sz.count;
  } else {
    for (unsigned i = 0; i < sz.count; ++i) out.raw[i] = read32(c, C, i, lane);
    extra_half = 2 * sz.count;
  }
  if (sz.extra == 1) {
    const uint16_t e = read16(c, C, extra_half, lane);
    if (is_ms(dim)) out.sample = e;
    else out.layer = e;
  } else if (sz.extra == 2) {
    out.sample = read16(c, C, extra_half, lane);
    out.layer = read16(c, C, extra_half + 1, lane);
  }
  return out;
}

std::array<int32_t, 3> unpack_offset(uint16_t packed) {
  std::array<int32_t, 3> o{};
  for (int i = 0; i < 3; ++i) o[i] = int32_t(uint32_t(packed >> (4 * i)) << 28) >> 28;
  return o;
}

Status texture_op(TextureUnit& unit, const isa::Instr& in, Core& core) {
  const bool load = in.op == isa::Opcode::texture_load;
  const TextureFields f = texture_fields(in);
  const uint32_t n = f.n;
  if (n >= isa::kTexDimCount) return Error::decode("texture dimension {}", n);
  const Dim dim = static_cast<Dim>(n);
  const uint32_t mode = f.mode;
  const bool query_lod = mode == 2;
  if (mode != 0 && !(query_lod && !load))
    return Error::unsupported("{} mode {}: only sampling and texture_sample's query_lod (2) are known",
                              load ? "texture_load" : "texture_sample", mode);
  const uint32_t q6 = f.q6;
  int gather = -1;
  bool gather_depth = false;
  if (q6 == 2 || q6 == 6 || q6 == 10 || q6 == 14) gather = int(q6 >> 2);
  else if (q6 == 3) gather = 0, gather_depth = true;
  else if (q6 != 0) return Error::unsupported("texture q6 value {} is not a known gather", q6);
  if (gather >= 0 && (load || query_lod))
    return Error::unsupported("gather (q6 {}) with {}", q6, load ? "texture_load" : "query_lod");
  const uint32_t mask = f.mask;
  const uint32_t lod_mode = f.lod;
  const Operand* R = operand(in, isa::OperandDesc::kSampleReg);
  const Operand* C = operand(in, isa::OperandDesc::kCoords);
  const Operand* D = operand(in, isa::OperandDesc::kLod);
  const Operand* O = operand(in, isa::OperandDesc::kSampleCompareOff);
  if (R == nullptr || C == nullptr || D == nullptr || O == nullptr)
    return Error::decode("texture instruction without its operands");
  const bool r32 = R->kind == OperandKind::kReg32;
  const bool has_compare = f.compare;
  const bool has_offset = f.offset;
  const isa::TexSize sz = isa::kTexSizes[n];
  {
    const bool c16 = f.c16;
    AGX_CHECK(fits(*R, R->count * (r32 ? 2 : 1), "destination"));
    AGX_CHECK(fits(*C, c16 ? sz.count + sz.extra : 2 * sz.count + sz.extra, "coordinate"));
    const unsigned d_halves = lod_mode == 4 ? 4 * sz.count : lod_mode == 12 ? 4 * sz.count + 2 : 1;
    AGX_CHECK(fits(*D, d_halves, "LOD"));
    AGX_CHECK(fits(*O, (has_compare ? 2 : 0) + (has_offset && !has_compare ? 1 : 0), "compare/offset"));
    for (isa::OperandDesc d : {isa::OperandDesc::kTexture, isa::OperandDesc::kSampler})
      if (const Operand* o = operand(in, d)) AGX_CHECK(fits(*o, o->kind == OperandKind::kReg32 ? 2 : 1, "texture/sampler"));
  }

  Descriptors desc(unit, in);
  // Coordinates of every lane first (implicit LOD needs the quad's).
  std::array<LaneCoords, kLanes> coords{};
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!(core.exec >> l & 1) && lod_mode != 0 && lod_mode != 1 && lod_mode != 5) continue;
    AGX_TRY(coords[l], read_coords(f.c16, core, *C, dim, !load, l));
  }
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!(core.exec >> l & 1)) continue;
    AGX_TRY(const TextureView* tex_at, desc.texture(core, l));
    AGX_TRY(const SamplerView* smp_at, desc.sampler(core, l));
    const TextureView& tex = *tex_at;
    const SamplerView& smp = *smp_at;
    if (tex.dim != dim && !tex.null)
      return Error::decode("lane {}: instruction dimension {} but the texture is {}", l,
                           to_string(dim), to_string(tex.dim));
    std::array<int32_t, 3> offset{};
    float reference = 0.0f;
    if (has_compare) reference = u2f(read32(core, *O, 0, l));
    if (has_offset) {
      const uint16_t packed =
          has_compare ? uint16_t(core.r16(uint32_t(O->value), l)) : read16(core, *O, 0, l);
      offset = unpack_offset(packed);
    }
    Texel t;
    if (load) {
      // Offsets wrap like the 32-bit adds that would form the coordinate.
      auto add = [](uint32_t c, int32_t o) { return int32_t(c + uint32_t(o)); };
      FetchCoord at;
      at.x = add(coords[l].raw[0], offset[0]);
      at.y = sz.count > 1 ? add(coords[l].raw[1], offset[1]) : 0;
      if (is_cube(dim)) at.face = coords[l].raw[2];
      else at.z = sz.count > 2 ? add(coords[l].raw[2], offset[2]) : 0;
      at.layer = coords[l].layer;
      at.sample = coords[l].sample;
      if (lod_mode == 2 || lod_mode == 6) at.lod = int16_t(read16(core, *D, 0, l));
      else if (lod_mode != 0)
        return Error::unsupported("texture_load with lod mode {}", lod_mode);
      AGX_TRY(t, unit.load(tex, smp, at));
    } else {
      SampleRequest rq;
      for (unsigned i = 0; i < sz.count; ++i) rq.coord[i] = u2f(coords[l].raw[i]);
      rq.layer = coords[l].layer;
      rq.sample = coords[l].sample;
      rq.offset = offset;
      rq.compare = has_compare;
      rq.reference = reference;
      rq.gather = gather;
      rq.gather_depth = gather_depth;
      switch (lod_mode) {
        case 2:
        case 6: rq.lod = h2f(read16(core, *D, 0, l)); break;
        case 4:
        case 12:
          rq.explicit_lod = false;
          for (unsigned i = 0; i < sz.count; ++i) {
            rq.ddx[i] = u2f(read32(core, *D, 2 * i, l));
            rq.ddy[i] = u2f(read32(core, *D, 2 * i + 1, l));
          }
          if (lod_mode == 12) {
            rq.has_min_lod = true;
            rq.min_lod = h2f(uint16_t(read32(core, *D, 2 * sz.count, l)));
          }
          break;
        case 0:
        case 1:
        case 5: {
          // Implicit LOD: derivatives across the 2x2 quad of lanes (lane
          // bit 0 steps x, bit 1 steps y), as fragment quads are packed.
          rq.explicit_lod = false;
          if (lod_mode != 0) rq.bias = h2f(read16(core, *D, 0, l));
          const unsigned x0 = l & ~1u, x1 = l | 1u, y0 = l & ~2u, y1 = l | 2u;
          for (unsigned i = 0; i < sz.count; ++i) {
            rq.ddx[i] = u2f(coords[x1].raw[i]) - u2f(coords[x0].raw[i]);
            rq.ddy[i] = u2f(coords[y1].raw[i]) - u2f(coords[y0].raw[i]);
          }
          break;
        }
        default: return Error::decode("texture_sample lod mode {}", lod_mode);
      }
      if (query_lod) {
        // Mesa reads two components (NIR's lod: the level accessed, then
        // the computed LOD); the rest read 0.
        AGX_TRY(LodQuery lq, unit.query_lod(tex, smp, rq));
        t = Texel{{std::bit_cast<uint32_t>(lq.level), std::bit_cast<uint32_t>(lq.lambda), 0, 0}};
      } else {
        AGX_TRY(t, unit.sample(tex, smp, rq));
      }
    }
    // The enabled components, packed.
    const format::TextureType type = tex.type;
    const bool integer =
        !query_lod && (type == format::TextureType::Uint || type == format::TextureType::Sint);
    unsigned out = 0;
    for (unsigned k = 0; k < 4; ++k) {
      if (!(mask >> k & 1)) continue;
      uint32_t v = t.c[k];
      if (!r32 && !integer) v = float_to_half(u2f(v));
      if (out < R->count) write_dest(core, *R, out, l, v);
      ++out;
    }
  }
  return {};
}

Status image_write_op(TextureUnit& unit, const isa::Instr& in, Core& core) {
  const ImageFields f = image_fields(in, false);
  const uint32_t n = f.n;
  if (n >= isa::kTexDimCount) return Error::decode("image dimension {}", n);
  const Dim dim = static_cast<Dim>(n);
  const Operand* R = operand(in, isa::OperandDesc::kPbeSourceReg);
  const Operand* C = operand(in, isa::OperandDesc::kCoords);
  const Operand* D = operand(in, isa::OperandDesc::kPbeLod);
  if (R == nullptr || C == nullptr || D == nullptr)
    return Error::decode("image_write without its operands");
  const bool r32 = R->kind == OperandKind::kReg32;
  const isa::TexSize sz = isa::kTexSizes[n];
  {
    AGX_CHECK(fits(*R, r32 ? 8 : 4, "source"));
    AGX_CHECK(fits(*C, f.c16 ? sz.count + sz.extra : 2 * sz.count + sz.extra, "coordinate"));
    AGX_CHECK(fits(*D, 1, "LOD"));
    if (const Operand* t = operand(in, isa::OperandDesc::kTexture))
      AGX_CHECK(fits(*t, t->kind == OperandKind::kReg32 ? 2 : 1, "texture"));
  }
  const Rounding rounding = f.round ? Rounding::toward_zero : Rounding::nearest_even;
  Descriptors desc(unit, in);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!(core.exec >> l & 1)) continue;
    AGX_TRY(PbeView pbe, desc.pbe(core, l));
    AGX_TRY(LaneCoords lc, read_coords(f.c16, core, *C, dim, false, l));
    PbeWrite w;
    const bool integer =
        pbe.type == format::TextureType::Uint || pbe.type == format::TextureType::Sint;
    for (unsigned k = 0; k < 4; ++k) {
      if (r32) {
        w.value[k] = read32(core, *R, k, l);
      } else {
        const uint16_t h = read16(core, *R, k, l);
        w.value[k] = !integer ? std::bit_cast<uint32_t>(h2f(h))
                     : pbe.type == format::TextureType::Sint ? uint32_t(int32_t(int16_t(h)))
                                                             : uint32_t(h);
      }
    }
    w.x = int32_t(lc.raw[0]);
    w.y = sz.count > 1 ? int32_t(lc.raw[1]) : 0;
    w.layer = dim == Dim::d3 ? lc.raw[2] : lc.layer;
    w.sample = lc.sample;
    w.lod = read16(core, *D, 0, l);
    AGX_CHECK(pbe_write(unit, pbe, w, rounding));
  }
  return {};
}

// image_write_block in a compute threadgroup: the tile is the threadgroup's
// imageblock in its threadgroup memory (docs/texture.md, "image_write_block").
// Operands (bminor/mesa-mesa src/asahi/compiler agx_pack.c and agx_compile.c,
// agx_emit_block_image_store; applegpu's field names): R a 16-bit register
// holding the byte offset in tile memory, T the PBE descriptor, n the
// dimension (2D or 2D MS, or their arrays), F the tile format, C only for
// arrays (layer in the low half, or sample then layer for 2D MS arrays), D a
// level added to the descriptor's (Mesa: immediate 0). The tile's position
// is implicit; the instruction stores the whole tile once, with the
// operands of the lowest active lane.
Status image_write_block_op(TextureUnit& unit, const isa::Instr& in, Core& core,
                            const usc::Memories& mem) {
  const ImageFields f = image_fields(in, true);
  const uint32_t n = f.n;
  if (n >= isa::kTexDimCount) return Error::decode("image_write_block dimension {}", n);
  const Dim dim = static_cast<Dim>(n);
  if (dim != Dim::d2 && dim != Dim::d2_array && dim != Dim::d2_ms && dim != Dim::d2_ms_array)
    return Error::unsupported("image_write_block with dimension {}: tiles are 2D or 2D multisampled (arrays)",
                              to_string(dim));
  const Operand* R = operand(in, isa::OperandDesc::kTileToMemoryReg);
  const Operand* C = operand(in, isa::OperandDesc::kCoords);
  const Operand* D = operand(in, isa::OperandDesc::kPbeLod);
  if (R == nullptr || C == nullptr || D == nullptr)
    return Error::decode("image_write_block without its operands");
  AGX_CHECK(fits(*R, 1, "tile offset"));
  AGX_CHECK(fits(*D, 1, "LOD"));
  if (is_array(dim)) AGX_CHECK(fits(*C, 2, "layer"));
  if (const Operand* t = operand(in, isa::OperandDesc::kTexture))
    AGX_CHECK(fits(*t, t->kind == OperandKind::kReg32 ? 2 : 1, "texture"));
  if (core.exec == 0) return {};
  const unsigned l = unsigned(std::countr_zero(core.exec));
  if (mem.threadgroup == nullptr || mem.threadgroup->empty())
    return Error::invalid_argument(
        "image_write_block: the threadgroup has no local memory for the tile (the USC Shared word does not "
        "enable it)");
  Descriptors desc(unit, in);
  AGX_TRY(PbeView pbe, desc.pbe(core, l));
  if (pbe.dim != dim)
    return Error::decode("image_write_block: instruction dimension {} but the PBE descriptor is {}",
                         to_string(dim), to_string(pbe.dim));
  BlockWrite bw;
  bw.format = f.format;
  bw.offset_B = read16(core, *R, 0, l);
  bw.lod = read16(core, *D, 0, l);
  if (dim == Dim::d2_array) bw.layer = read16(core, *C, 0, l);
  if (dim == Dim::d2_ms_array) bw.layer = read16(core, *C, 1, l);
  AGX_TRY(uint32_t pixel_B, tile_pixel_B(bw.format, pbe));
  // The threadgroup's tile: its dispatch size (threads per threadgroup) in
  // pixels, at its position times that size; one sample's record is the
  // pixel of this render target (a compute imageblock of one target).
  TileMemory tile;
  tile.bytes = *mem.threadgroup;
  tile.width_px = core.sr[8][l];
  tile.height_px = core.sr[9][l];
  tile.samples = is_ms(dim) ? pbe.samples : 1;
  tile.sample_stride_B = pixel_B;
  if (const TextureState& st = unit.state(); st.tile_sample_stride_B) {
    // A render tile: records holding every render target, with the
    // Shared word's sample count (each sample to the same image sample).
    // Its SIMD groups (32 pixels each, sr53 in tile order) run one after
    // the other and all store the same tile: only the last one stores it,
    // after everything the others did to the tile.
    tile.samples = st.tile_samples;
    tile.sample_stride_B = st.tile_sample_stride_B;
    const uint64_t groups = (uint64_t(tile.width_px) * tile.height_px + usc::kLanes - 1) / usc::kLanes;
    if (core.sr[53][l] + 1 < groups) return {};
  }
  bw.origin_x = int32_t(uint64_t(core.sr[0][l]) * tile.width_px);
  bw.origin_y = int32_t(uint64_t(core.sr[1][l]) * tile.height_px);
  const Rounding rounding = f.round ? Rounding::toward_zero : Rounding::nearest_even;
  return pbe_write_block(unit, pbe, tile, bw, rounding);
}

}  // namespace

Status TextureHook::execute_in(const isa::Instr& in, Core& core, const usc::Memories& memories) {
  if (in.op == isa::Opcode::image_write_block) return image_write_block_op(unit_, in, core, memories);
  return execute(in, core);
}

bool TextureHook::handles(isa::Opcode op) {
  return op == isa::Opcode::texture_sample || op == isa::Opcode::texture_load ||
         op == isa::Opcode::image_write || op == isa::Opcode::image_write_block;
}

Status TextureHook::execute(const isa::Instr& in, Core& core) {
  switch (in.op) {
    case isa::Opcode::texture_sample:
    case isa::Opcode::texture_load: return texture_op(unit_, in, core);
    case isa::Opcode::image_write: return image_write_op(unit_, in, core);
    case isa::Opcode::image_write_block:
      return Error::invalid_argument(
          "image_write_block reads tile memory: run it through execute_in with the SIMD group's memories");
    default:
      return Error::unsupported("{}: not a texture unit instruction",
                                isa::op_info(in.op).mnemonic);
  }
}

}  // namespace agx::gpu
