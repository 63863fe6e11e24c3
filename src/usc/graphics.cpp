// Graphics instructions through the GraphicsHook: each one's operands read
// from the registers of all 32 lanes as the ISA table decodes them, one
// request per SIMD group, results written back to the active lanes.
#include "usc/graphics.h"

#include "usc/internal.h"

namespace agx::usc {

bool is_graphics(isa::Opcode op) {
  using isa::Opcode;
  switch (op) {
    case Opcode::iter: case Opcode::iterproj: case Opcode::ldcf:
    case Opcode::st_var: case Opcode::st_var_final:
    case Opcode::ld_tile: case Opcode::st_tile:
    case Opcode::zs_emit: case Opcode::sample_mask:
    case Opcode::wait_pix: case Opcode::signal_pix:
      return true;
    default:
      return false;
  }
}

namespace detail {

namespace {

using K = isa::OperandKind;

Result<const isa::Operand*> need(const isa::Instr& in, Name name) {
  const isa::Operand* o = find_operand(in, name);
  if (!o) return Error::decode("{} has no operand {}", isa::op_info(in.op).mnemonic, name.text());
  return o;
}

// An immediate (or coefficient register number) for every lane, or an r16
// register read per lane.
Result<LaneValue> lane_value(const isa::Instr& in, Name name, const Core& c) {
  AGX_TRY(const isa::Operand* o, need(in, name));
  LaneValue v;
  switch (o->kind) {
    case K::kImm: v.imm = static_cast<uint32_t>(o->value); return v;
    case K::kCoefficient: v.imm = o->index; return v;
    case K::kReg16:
      v.per_lane = true;
      for (unsigned l = 0; l < kLanes; ++l) v.lanes[l] = c.r16(o->index, l);
      return v;
    case K::kEmpty: return v;  // iter's absent sample index
    default:
      return Error::decode("{} operand {}: expected an immediate or an r16 register",
                           isa::op_info(in.op).mnemonic, name.text());
  }
}

// Register k of a tuple operand (r16 halves or r32 registers), lane l.
uint32_t tuple_read(const isa::Operand& o, const Core& c, unsigned k, unsigned l) {
  return o.kind == K::kReg32 ? c.r[o.index + k][l] : c.r16(o.index + k, l);
}
void tuple_write(const isa::Operand& o, Core& c, unsigned k, uint32_t active, const LaneArray& v) {
  bool r32 = o.kind == K::kReg32;
  unsigned reg = o.index + k;
  for (unsigned l = 0; l < kLanes; ++l)
    if (lane_on(active, l)) set_reg(c, r32, reg, l, v[l]);
  c.written[r32 ? reg : reg >> 1] = true;
}
unsigned tuple_count(const isa::Operand& o) {
  return o.kind == K::kReg16 || o.kind == K::kReg32 ? o.count : 0;
}

Status iterate(const isa::Instr& in, Core& c, GraphicsHook& hook, IterRequest& r) {
  AGX_TRY(const isa::Operand* d, need(in, "D"));
  AGX_TRY(r.cf, lane_value(in, "I", c));
  r.components = tuple_count(*d);
  r.dest32 = d->kind == K::kReg32;
  if (in.op == isa::Opcode::iterproj) {
    AGX_TRY(const isa::Operand* j, need(in, "J"));
    r.perspective = true;
    r.perspective_cf = j->index;
  }
  if (in.op != isa::Opcode::ldcf) {
    AGX_TRY(uint32_t interp, field(in, "interpolation"));
    r.interpolation = static_cast<Interpolation>(interp);
    AGX_TRY(r.sample, lane_value(in, "S", c));
    AGX_TRY(uint32_t fwd, field(in, "forwarding"));
    AGX_TRY(uint32_t elide, field(in, "elide"));
    AGX_TRY(uint32_t kill, field(in, "kill"));
    r.forward = fwd != 0, r.elide = elide != 0, r.kill = kill != 0;
  }
  AGX_CHECK(hook.iterate(r));
  for (unsigned k = 0; k < r.components; ++k) tuple_write(*d, c, k, r.active, r.values[k]);
  return {};
}

Status store_varying(const isa::Instr& in, Core& c, GraphicsHook& hook, VaryingStore& s) {
  AGX_TRY(const isa::Operand* value, need(in, "r"));
  s.final = in.op == isa::Opcode::st_var_final;
  AGX_TRY(s.slot, lane_value(in, "I", c));
  s.value = c.r[value->index];
  return hook.store_varying(s);
}

Status access_tile(const isa::Instr& in, Core& c, GraphicsHook& hook, TileAccess& t) {
  AGX_TRY(const isa::Operand* data, need(in, "R"));
  AGX_TRY(const isa::Operand* coords, need(in, "C"));
  t.load = in.op == isa::Opcode::ld_tile;
  AGX_TRY(t.format, field(in, "F"));
  AGX_TRY(t.mask, field(in, "mask"));
  AGX_TRY(t.pixel_offset, field(in, "O"));
  AGX_TRY(uint32_t explicit_coords, field(in, "u0"));
  t.explicit_coords = explicit_coords != 0;
  AGX_TRY(t.samples, lane_value(in, "S", c));
  t.reg32 = data->kind == K::kReg32;
  t.coords_in_registers = coords->kind == K::kReg16;
  if (t.coords_in_registers) {
    for (unsigned l = 0; l < kLanes; ++l) {
      t.x[l] = c.r16(coords->index, l);
      t.y[l] = c.r16(coords->index + 1u, l);
    }
  } else {
    t.coords_imm = static_cast<uint32_t>(coords->value);
  }
  // The k-th register holds the k-th component present in the mask.
  unsigned k = 0;
  if (!t.load)
    for (unsigned comp = 0; comp < 4; ++comp)
      if ((t.mask >> comp) & 1) {
        for (unsigned l = 0; l < kLanes; ++l) t.values[comp][l] = tuple_read(*data, c, k, l);
        ++k;
      }
  AGX_CHECK(hook.access_tile(t));
  if (t.load)
    for (unsigned comp = 0; comp < 4; ++comp)
      if ((t.mask >> comp) & 1) tuple_write(*data, c, k++, t.active, t.values[comp]);
  return {};
}

Status emit_depth_stencil(const isa::Instr& in, Core& c, GraphicsHook& hook, DepthStencilEmit& e) {
  AGX_TRY(const isa::Operand* zs, need(in, "T"));
  AGX_TRY(e.samples, lane_value(in, "S", c));
  AGX_TRY(uint32_t z, field(in, "z"));
  AGX_TRY(uint32_t s, field(in, "s"));
  e.depth = z != 0, e.stencil = s != 0;
  // Depth is the 32-bit value of the first two halves, stencil the half
  // after it (or the first when only stencil is written).
  for (unsigned l = 0; l < kLanes; ++l) {
    if (e.depth) e.depth_bits[l] = c.r16(zs->index, l) | uint32_t{c.r16(zs->index + 1u, l)} << 16;
    if (e.stencil) e.stencil_value[l] = c.r16(zs->index + (e.depth ? 2u : 0u), l);
  }
  return hook.emit_depth_stencil(e);
}

// A request of type T for the instruction and lanes of `call`.
template <class T>
T request(const GraphicsCall& call) {
  T t;
  static_cast<GraphicsCall&>(t) = call;
  return t;
}

Status run_hook(const isa::Instr& in, Core& c, GraphicsHook& hook) {
  GraphicsCall call{in.op, in.pc, c.exec};
  switch (in.op) {
    case isa::Opcode::iter:
    case isa::Opcode::iterproj:
    case isa::Opcode::ldcf: {
      auto r = request<IterRequest>(call);
      return iterate(in, c, hook, r);
    }
    case isa::Opcode::st_var:
    case isa::Opcode::st_var_final: {
      auto s = request<VaryingStore>(call);
      return store_varying(in, c, hook, s);
    }
    case isa::Opcode::ld_tile:
    case isa::Opcode::st_tile: {
      auto t = request<TileAccess>(call);
      return access_tile(in, c, hook, t);
    }
    case isa::Opcode::zs_emit: {
      auto e = request<DepthStencilEmit>(call);
      return emit_depth_stencil(in, c, hook, e);
    }
    case isa::Opcode::sample_mask: {
      auto m = request<SampleMaskUpdate>(call);
      AGX_TRY(m.samples, lane_value(in, "S", c));
      AGX_TRY(m.live, lane_value(in, "M", c));
      return hook.update_sample_mask(m);
    }
    case isa::Opcode::wait_pix:
    case isa::Opcode::signal_pix: {
      auto p = request<PixelOrder>(call);
      p.wait = in.op == isa::Opcode::wait_pix;
      AGX_TRY(p.writeout, field(in, "i"));
      AGX_TRY(p.j, field(in, "j"));
      return hook.order_pixels(p);
    }
    default:
      return Error::unsupported("{} is not a graphics instruction", isa::op_info(in.op).mnemonic);
  }
}

}  // namespace

Status exec_graphics(const Step& s, Core& c, Ctx& ctx) {
  return run_hook(*ctx.fixed_function_instr(s), c, *ctx.mem->graphics);
}

}  // namespace detail
}  // namespace agx::usc
