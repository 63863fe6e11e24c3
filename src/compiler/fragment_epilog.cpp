// The fragment epilog and linking (compiler.h compile_fragment_epilog,
// link_fragment; docs/compiler.md "Fragment shaders"), after Mesa's
// non-monolithic fragment ABI (bminor/mesa-mesa src/asahi/compiler/README.md
// "ABI"; src/asahi/lib/agx_nir_lower_tilebuffer.c for the stores): an IR
// function reading the colour registers the main shader left (r4..), run
// through the usual back end, then appended to the main shader's code.
#include <fmt/format.h>

#include "compiler/builder.h"
#include "compiler/compiler.h"
#include "compiler/passes.h"
#include "isa/isa.h"

namespace agx::compiler {

namespace {

using format::IsaFormat;

// st_tile / ld_tile's memory format F for a tilebuffer ISA format (the isa
// table's enum 4, src/isa/table.inc: applegpu and bminor/mesa-mesa
// src/asahi/compiler/agx_pack.c); -1 for None.
int tile_format_code(IsaFormat f) {
  switch (f) {
    case IsaFormat::I8: return 0;
    case IsaFormat::I16: return 1;
    case IsaFormat::I32: return 2;
    case IsaFormat::F16: return 3;
    case IsaFormat::U8NORM: return 4;
    case IsaFormat::S8NORM: return 5;
    case IsaFormat::U16NORM: return 6;
    case IsaFormat::S16NORM: return 7;
    case IsaFormat::RGB10A2: return 8;
    case IsaFormat::SRGBA8: return 10;
    case IsaFormat::RG11B10F: return 12;
    case IsaFormat::RGB9E5: return 13;
    case IsaFormat::None: break;
  }
  return -1;
}

bool packed(IsaFormat f) {
  return f == IsaFormat::RGB10A2 || f == IsaFormat::SRGBA8 || f == IsaFormat::RG11B10F || f == IsaFormat::RGB9E5;
}

using Vec4 = std::array<Src, 4>;

class Epilog {
 public:
  Epilog(const FragmentEpilogKey& key, Function& f) : key_(key), b_(f), f_(f) {}
  Status run();

 private:
  Src f1(float v) const { return Src::float_immediate(v); }
  Src fop(Op op, std::vector<Src> s) { return Src::val(b_.def(op, std::move(s))); }
  Src one_minus(Src x) { x.neg = !x.neg; return fop(Op::fadd, {f1(1.0f), x}); }
  Src fmin(Src a, Src b) { return b_.select(Cond::flt, false, a, b, a, b); }
  Src fmax(Src a, Src b) { return b_.select(Cond::fgt, false, a, b, a, b); }
  // f16 targets: ld_tile / st_tile move the raw half bits (the usc unit's
  // memory formats), so the epilog converts.
  Src from_half(Src bits) {
    Src lo = Src::val(b_.def(Op::mov, {bits}), 16);
    return fop(Op::fadd, {lo, f1(-0.0f)});
  }
  Src to_half_bits(Src x) {
    const Src h = Src::val(b_.def(Op::fadd, {x, f1(-0.0f)}, 16), 16);
    return Src::val(b_.def(Op::iadd, {h, Src::immediate(0)}));
  }
  Vec4 registers(uint32_t first_reg);
  // Whether `data` are render target rt's colour registers r(4(rt+1)).., in order.
  bool is_colour_read(const std::vector<Src>& data, uint32_t rt) const {
    for (size_t c = 0; c < data.size(); ++c) {
      if (!data[c].is_value() || data[c].neg || data[c].abs) return false;
      const ValueId v = data[c].value;
      bool found = false;
      for (const Instr& in : f_.instrs)
        found |= in.dest == v && in.op == Op::reg_read && in.imm == 2 * (FragmentAbi::colour_register(rt) + c);
      if (!found) return false;
    }
    return true;
  }
  Vec4 tile_load(uint32_t rt, uint32_t code);
  Src factor(BlendFactor f, unsigned c, const Vec4& s, const Vec4& d);
  Vec4 blend(const BlendState& bs, const Vec4& s, const Vec4& d);
  Result<Vec4> logic_op(uint32_t rt, const Vec4& s, const Vec4& d);
  Status target(uint32_t rt);
  void alpha_to_coverage();

  const FragmentEpilogKey& key_;
  Builder b_;
  const Function& f_;
  Vec4 src1_{}, constant_{};
  bool reads_constant_ = false;
};

Vec4 Epilog::registers(uint32_t first_reg) {
  Vec4 v;
  for (unsigned c = 0; c < 4; ++c) v[c] = Src::val(b_.def(Op::reg_read, {}, 32, 1, 2 * (first_reg + c)));
  return v;
}

Vec4 Epilog::tile_load(uint32_t rt, uint32_t code) {
  const ValueId d = b_.def(Op::tile_load, {}, 32, 4, tile_imm(code, 0xF, key_.layout.offset_B[rt]));
  return {Src::val(d, 32, 0), Src::val(d, 32, 1), Src::val(d, 32, 2), Src::val(d, 32, 3)};
}

Src Epilog::factor(BlendFactor f, unsigned c, const Vec4& s, const Vec4& d) {
  auto constant = [&](unsigned k) {
    reads_constant_ = true;
    return constant_[k];
  };
  switch (f) {
    case BlendFactor::zero: return f1(0.0f);
    case BlendFactor::one: return f1(1.0f);
    case BlendFactor::src_color: return s[c];
    case BlendFactor::one_minus_src_color: return one_minus(s[c]);
    case BlendFactor::src_alpha: return s[3];
    case BlendFactor::one_minus_src_alpha: return one_minus(s[3]);
    case BlendFactor::dst_color: return d[c];
    case BlendFactor::one_minus_dst_color: return one_minus(d[c]);
    case BlendFactor::dst_alpha: return d[3];
    case BlendFactor::one_minus_dst_alpha: return one_minus(d[3]);
    case BlendFactor::constant_color: return constant(c);
    case BlendFactor::one_minus_constant_color: return one_minus(constant(c));
    case BlendFactor::constant_alpha: return constant(3);
    case BlendFactor::one_minus_constant_alpha: return one_minus(constant(3));
    case BlendFactor::src_alpha_saturate: return c == 3 ? f1(1.0f) : fmin(s[3], one_minus(d[3]));
    case BlendFactor::src1_color: return src1_[c];
    case BlendFactor::one_minus_src1_color: return one_minus(src1_[c]);
    case BlendFactor::src1_alpha: return src1_[3];
    case BlendFactor::one_minus_src1_alpha: return one_minus(src1_[3]);
  }
  return f1(0.0f);
}

// GL / Vulkan blending: each channel s * sf (op) d * df; min and max take
// no factors.
Vec4 Epilog::blend(const BlendState& bs, const Vec4& s, const Vec4& d) {
  Vec4 out;
  for (unsigned c = 0; c < 4; ++c) {
    const BlendOp op = c == 3 ? bs.alpha : bs.rgb;
    if (op == BlendOp::min || op == BlendOp::max) {
      out[c] = op == BlendOp::min ? fmin(s[c], d[c]) : fmax(s[c], d[c]);
      continue;
    }
    const Src sf = factor(c == 3 ? bs.src_alpha : bs.src_rgb, c, s, d);
    const Src df = factor(c == 3 ? bs.dst_alpha : bs.dst_rgb, c, s, d);
    Src sterm = fop(Op::fmul, {s[c], sf});
    Src dterm = fop(Op::fmul, {d[c], df});
    if (op == BlendOp::subtract) dterm.neg = true;
    if (op == BlendOp::reverse_subtract) sterm.neg = true;
    out[c] = fop(Op::fadd, {sterm, dterm});
  }
  return out;
}

// A logic op on integer targets (their bits) and 8/16-bit unorm targets
// (the value scaled to an integer of the channel's width and back).
Result<Vec4> Epilog::logic_op(uint32_t rt, const Vec4& s, const Vec4& d) {
  const IsaFormat isa = key_.layout.physical(rt);
  const auto type = format::info(*key_.layout.formats[rt]).type;
  const bool integer = type == format::TextureType::Uint || type == format::TextureType::Sint;
  const bool unorm8 = isa == IsaFormat::U8NORM, unorm16 = isa == IsaFormat::U16NORM;
  if (!integer && !unorm8 && !unorm16)
    return Error::unsupported("fragment epilog: a logic op on render target {} ({}): only integer and 8/16-bit unorm targets",
                              rt, format::name(*key_.layout.formats[rt]));
  const float scale = unorm8 ? 255.0f : 65535.0f;
  auto to_int = [&](Src v) {
    if (integer) return v;
    Src clamped = fmin(fmax(v, f1(0.0f)), f1(1.0f));
    Src scaled = fop(Op::fmadd, {clamped, f1(scale), f1(0.5f)});
    return Src::val(b_.def(Op::convert, {scaled}, 32, 1, static_cast<uint64_t>(Conv::f_to_u32)));
  };
  Vec4 out;
  for (unsigned c = 0; c < 4; ++c) {
    const Src a = to_int(s[c]), bb = to_int(d[c]);
    auto inv = [&](Src x) { return b_.binary(Op::inot, x, Src::immediate(0)); };
    Src r;
    switch (key_.logic_op) {
      case LogicOp::clear: r = Src::immediate(0); break;
      case LogicOp::and_: r = b_.binary(Op::iand, a, bb); break;
      case LogicOp::and_reverse: r = b_.binary(Op::iand, a, inv(bb)); break;
      case LogicOp::copy: r = a; break;
      case LogicOp::and_inverted: r = b_.binary(Op::iand, inv(a), bb); break;
      case LogicOp::noop: r = bb; break;
      case LogicOp::xor_: r = b_.binary(Op::ixor, a, bb); break;
      case LogicOp::or_: r = b_.binary(Op::ior, a, bb); break;
      case LogicOp::nor: r = inv(b_.binary(Op::ior, a, bb)); break;
      case LogicOp::equivalent: r = inv(b_.binary(Op::ixor, a, bb)); break;
      case LogicOp::invert: r = inv(bb); break;
      case LogicOp::or_reverse: r = b_.binary(Op::ior, a, inv(bb)); break;
      case LogicOp::copy_inverted: r = inv(a); break;
      case LogicOp::or_inverted: r = b_.binary(Op::ior, inv(a), bb); break;
      case LogicOp::nand: r = inv(b_.binary(Op::iand, a, bb)); break;
      case LogicOp::set: r = Src::immediate(0xFFFFFFFFu); break;
    }
    if (!integer) {
      r = b_.binary(Op::iand, r, Src::immediate(unorm8 ? 0xFFu : 0xFFFFu));
      Src f = Src::val(b_.def(Op::convert, {r}, 32, 1, static_cast<uint64_t>(Conv::u32_to_f)));
      r = fop(Op::fmul, {f, f1(1.0f / scale)});
    }
    out[c] = r;
  }
  return out;
}

Status Epilog::target(uint32_t rt) {
  const tilebuffer::Layout& l = key_.layout;
  const EpilogTarget& t = key_.targets[rt];
  if (l.spilled[rt])
    return Error::unsupported("fragment epilog: render target {} is spilled to memory (not stored by st_tile)", rt);
  const IsaFormat isa = l.physical(rt);
  const int code = tile_format_code(isa);
  if (code < 0) return Error::invalid_argument("fragment epilog: render target {} has no tilebuffer format", rt);
  const format::FormatInfo& fi = format::info(*l.formats[rt]);
  AGX_TRY(const format::ChannelsInfo channels, format::channels_info(fi.channels));
  const unsigned comps = packed(isa) ? 4 : format::component_count(channels);
  const uint32_t present = (1u << comps) - 1;
  const uint32_t mask = t.write_mask & present;
  if (mask == 0) return {};
  const bool integer = fi.type == format::TextureType::Uint || fi.type == format::TextureType::Sint;
  Vec4 s = registers(FragmentAbi::colour_register(rt));
  const bool blending = t.blend.enable && !integer && !key_.logic_op_enable;
  const bool whole = mask == present || !l.supports_mask(rt);
  const bool need_dst = blending || key_.logic_op_enable || (mask != present && packed(isa));
  Vec4 d{};
  const bool f16 = isa == IsaFormat::F16;
  if (need_dst) d = tile_load(rt, static_cast<uint32_t>(code));
  if (need_dst && f16)
    for (Src& v : d) v = from_half(v);
  if (blending) {
    // Fixed-point targets clamp the source (and constant) first.
    const bool unorm = fi.type == format::TextureType::Unorm, snorm = fi.type == format::TextureType::Snorm;
    if (unorm || snorm)
      for (Src& v : s) v = fmin(fmax(v, f1(snorm ? -1.0f : 0.0f)), f1(1.0f));
    s = blend(t.blend, s, d);
  } else if (key_.logic_op_enable) {
    AGX_TRY(s, logic_op(rt, s, d));
  }
  std::vector<Src> data;
  uint32_t store_mask = whole ? (packed(isa) ? 0xFu : present) : mask;
  for (unsigned c = 0; c < 4; ++c) {
    if (!(store_mask >> c & 1)) continue;
    const Src v = mask >> c & 1 || !need_dst ? s[c] : d[c];
    data.push_back(f16 ? to_half_bits(v) : v);
  }
  const uint64_t imm = tile_imm(static_cast<uint32_t>(code), store_mask, l.offset_B[rt]);
  if (data == std::vector<Src>(s.begin(), s.begin() + static_cast<long>(data.size())) && is_colour_read(data, rt)) {
    // The main shader's registers as they are: stored in place.
    b_.emit(Op::tile_store, {}, imm | tile_fixed(2 * FragmentAbi::colour_register(rt)));
    return {};
  }
  const ValueId v = b_.def(Op::collect, data, 32, static_cast<uint8_t>(data.size()));
  b_.emit(Op::tile_store, {Src::val(v)}, imm);
  return {};
}

// Render target 0's alpha picks how many samples stay covered:
// round(alpha x samples); each threshold only removes samples, so the
// smallest mask that applies wins.
void Epilog::alpha_to_coverage() {
  const Src alpha = Src::val(b_.def(Op::reg_read, {}, 32, 1, 2 * (FragmentAbi::colour_register(0) + 3)));
  const uint32_t n = key_.layout.samples;
  for (uint32_t k = 0; k < n; ++k) {
    b_.emit(Op::if_, {alpha, f1((static_cast<float>(k) + 0.5f) / static_cast<float>(n))}, 0, Cond::flt);
    b_.emit(Op::sample_mask, {Src::immediate(0xFF), Src::immediate((1u << k) - 1)});
    b_.emit(Op::end_if);
  }
}

Status Epilog::run() {
  Function& f = b_.function();
  uint32_t last = 0;
  for (uint32_t rt = 0; rt < tilebuffer::kMaxRenderTargets; ++rt)
    if (key_.layout.used(rt)) last = rt;
  // The main shader's output registers (and r2, r3) are inputs here.
  f.first_free_half = 2 * FragmentAbi::colour_register(std::max(last + 1, 2u));
  for (unsigned c = 0; c < 4; ++c) constant_[c] = Src::uniform(FragmentAbi::kBlendConstantUniform + c);
  bool dual = false;
  for (const EpilogTarget& t : key_.targets)
    for (BlendFactor bf : {t.blend.src_rgb, t.blend.dst_rgb, t.blend.src_alpha, t.blend.dst_alpha})
      dual |= t.blend.enable && bf >= BlendFactor::src1_color;
  if (dual) src1_ = registers(FragmentAbi::colour_register(1));
  if (key_.alpha_to_coverage) alpha_to_coverage();
  if (key_.write_depth || key_.write_stencil)
    b_.emit(Op::zs_emit, {}, (key_.write_depth ? 1u : 0u) | (key_.write_stencil ? 2u : 0u));
  for (uint32_t rt = 0; rt < tilebuffer::kMaxRenderTargets; ++rt) {
    if (!key_.layout.used(rt)) continue;
    if (dual && rt == 1) return Error::unsupported("fragment epilog: dual-source blending with a second render target");
    AGX_CHECK(target(rt));
  }
  b_.emit(Op::stop);
  return {};
}

}  // namespace

tilebuffer::Layout FragmentEpilogKey::default_layout() {
  // tilebuffer::build_layout's answer for one R8G8B8A8_UNORM target at one
  // sample (a test holds the two together).
  tilebuffer::Layout l;
  l.formats[0] = format::Format::R8G8B8A8_UNORM;
  l.sample_size_B = 8;
  l.samples = 1;
  l.tile = {32, 32};
  return l;
}

Result<Shader> compile_fragment_epilog(const FragmentEpilogKey& key) {
  Shader shader;
  Function f;
  Epilog e(key, f);
  AGX_CHECK(e.run());
  Options o;
  o.stage = Stage::fragment;
  o.file_name = "<fragment epilog>";
  o.preamble = false;  // the linked program runs the main shader's preamble only
  AGX_CHECK(compile_function(f, o, shader));
  for (const Instr& in : f.instrs)
    for (const Src& s : in.srcs)
      if (s.kind == Src::Kind::uniform)
        shader.abi.uniform_count = std::max<uint32_t>(shader.abi.uniform_count, static_cast<uint32_t>(s.imm) + 1);
  shader.stats.uniforms = shader.abi.uniform_count * 2;
  return shader;
}

Result<Shader> link_fragment(const Shader& main, const Shader& epilog) {
  // The main shader's last instruction must be its stop.
  size_t pc = 0, last = SIZE_MAX;
  while (pc < main.code.size()) {
    AGX_TRY(auto in, isa::decode(std::span<const uint8_t>(main.code).subspan(pc), pc));
    last = pc;
    pc += in.length_B;
    if (pc == main.code.size() && in.op != isa::Opcode::stop)
      return Error::invalid_argument("link_fragment: the main shader does not end in stop");
  }
  if (last == SIZE_MAX) return Error::invalid_argument("link_fragment: the main shader has no code");
  Shader out = main;
  out.code.resize(last);
  out.code.insert(out.code.end(), epilog.code.begin(), epilog.code.end());
  out.abi.uniform_count = std::max(main.abi.uniform_count, epilog.abi.uniform_count);
  out.stats.instructions = main.stats.instructions - 1 + epilog.stats.instructions;
  out.stats.bytes = static_cast<uint32_t>(out.code.size());
  out.stats.gprs = std::max(main.stats.gprs, epilog.stats.gprs);
  out.stats.threads_per_core = std::min(main.stats.threads_per_core, epilog.stats.threads_per_core);
  out.stats.uniforms = out.abi.uniform_count * 2;
  out.ir_text = main.ir_text + "; epilog\n" + epilog.ir_text;
  return out;
}

}  // namespace agx::compiler
