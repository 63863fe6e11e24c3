// Compute-shader derivatives (GL_NV_compute_shader_derivatives: OpDPdx,
// OpDPdy, OpFwidth and their Fine / Coarse forms) -> IR. A derivative is a
// difference across a quad of 4 invocations, read from the partner lanes
// with simd_shuffle (the AGX's lane exchange, dougallj/applegpu; Mesa's AGX
// backend also builds derivatives from lane shuffles).
//
// The CDM places a workgroup's invocations on SIMD lanes in local
// invocation index order (lane = index % 32), so:
// - DerivativeGroupLinearNV: a quad is 4 consecutive indices; element
//   (i, j) of the quad is lane (lane & ~3) + i + 2j.
// - DerivativeGroupQuadsNV: a quad is the 2x2 block of local (x, y); x is
//   even-sized, so i = lane & 1 and the row below is sx lanes further:
//   element (i, j) is lane - (lane & 1) - (y & 1) * sx + i + j * sx. The
//   quad must sit in one SIMD group; local sizes where a row pair crosses
//   a 32-lane boundary are rejected at compile time.
// - No arrangement: the extension defines every derivative as 0.
// Fine: d/dx from the invocation's own row, d/dy from its own column;
// Coarse: both from the quad's top-left element. Plain OpDPdx / OpDPdy /
// OpFwidth are the fine forms.
//
// Fragment shaders run in 2x2 quads (lanes 0, 1 on top, 2, 3 below:
// docs/gpu.md) and use the hardware's dfdx / dfdy (dougallj/applegpu;
// bminor/mesa-mesa src/asahi/compiler/agx_compile.c emits them for nir's
// ddx / ddy): fine derivatives, each lane's own row or column. The coarse
// forms are the same instructions (our choice; GLSL 4.60 section 8.14.1
// lets a coarse derivative be the fine one).
#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;
using Group = spirv::Module::DerivativeGroup;

namespace {
constexpr uint32_t kSimdLanes = 32;
}  // namespace

// d/dx and d/dy of v across the lane's quad (the group is quads or linear).
Result<std::pair<Src, Src>> Translator::quad_derivatives(Src v, bool coarse, const spirv::Inst& in) {
  if (o_.stage == Stage::fragment) {
    if (v.is_imm() || v.kind == Src::Kind::uniform) return std::pair<Src, Src>{Src::immediate(0), Src::immediate(0)};
    return std::pair<Src, Src>{Src::val(b_.def(IrOp::dfdx, {v})), Src::val(b_.def(IrOp::dfdy, {v}))};
  }
  const Group group = m_.derivative_group;
  const auto& ls = m_.local_size;
  uint32_t row_lanes = group == Group::quads ? ls[0] : 2;  // lanes between the quad's rows
  if (group == Group::quads) {
    uint32_t total = ls[0] * ls[1] * ls[2];
    for (uint32_t index = 0; index + ls[0] < total; ++index) {
      if ((index / ls[0]) % 2) continue;  // odd rows are the lower halves
      if (index / kSimdLanes != (index + ls[0]) / kSimdLanes)
        return unsupported(in, fmt::format("derivative quads of a {}x{}x{} workgroup cross a 32-lane SIMD group",
                                           ls[0], ls[1], ls[2]));
    }
  }
  Src lane = Src::val(b_.def(IrOp::get_sr, {}, 32, 1, 52));  // thread_index_in_simdgroup
  Src one = Src::immediate(1);
  Src i = Src::val(b_.def(IrOp::iand, {lane, one}));
  Src j;
  if (group == Group::quads) {
    Src y = Src::val(b_.def(IrOp::get_sr, {}, 32, 1, 49));  // thread_position_in_threadgroup.y
    j = Src::val(b_.def(IrOp::iand, {y, one}));
  } else {
    j = Src::val(b_.def(IrOp::iand, {Src::val(b_.def(IrOp::ushr, {lane, one})), one}));
  }
  Src step = Src::immediate(row_lanes);
  // simd_shuffle ORs the low two bits of the lane index across each
  // hardware quad (dougallj/applegpu's exec), so a per-lane index is read
  // as 4 shuffles whose low bits are the same in every lane, then the one
  // for the lane's own low bits is selected.
  auto read_lane = [&](Src x, Src target) {
    Src base = Src::val(b_.def(IrOp::iand, {target, Src::immediate(~3u)}));
    Src low = Src::val(b_.def(IrOp::iand, {target, Src::immediate(3)}));
    Src r = Src::val(b_.def(IrOp::simd_shuffle, {x, base}));
    for (uint32_t k = 1; k < 4; ++k) {
      Src t = Src::val(b_.def(IrOp::ior, {base, Src::immediate(k)}));
      Src rk = Src::val(b_.def(IrOp::simd_shuffle, {x, t}));
      r = Src::val(b_.def(IrOp::icmpsel, {low, Src::immediate(k), rk, r}, 32, 1, 0, Cond::ueq));
    }
    return r;
  };
  // Lanes (left, right) for d/dx and (top, bottom) for d/dy.
  auto lanes = [&](bool along_y) -> std::pair<Src, Src> {
    Src first;
    if (coarse) {
      Src left = Src::val(b_.def(IrOp::isub, {lane, i}));
      first = Src::val(b_.def(IrOp::isub, {left, Src::val(b_.def(IrOp::imul, {j, step}))}));
    } else if (!along_y) {
      first = Src::val(b_.def(IrOp::isub, {lane, i}));
    } else {
      first = Src::val(b_.def(IrOp::isub, {lane, Src::val(b_.def(IrOp::imul, {j, step}))}));
    }
    Src second = Src::val(b_.def(IrOp::iadd, {first, along_y ? step : one}));
    return {first, second};
  };
  auto [x0, x1] = lanes(false);
  auto [y0, y1] = lanes(true);
  if (!v.is_value()) v = Src::val(b_.def(IrOp::mov, {v}));
  auto diff = [&](Src a, Src b) {
    Src va = read_lane(v, a);
    Src vb = read_lane(v, b);
    va.neg = true;
    return Src::val(b_.def(IrOp::fadd, {vb, va}));
  };
  return std::pair<Src, Src>{diff(x0, x1), diff(y0, y1)};
}

Status Translator::derivative(const spirv::Inst& in) {
  const auto& w = in.w;
  if (w.size() != 3) return unsupported(in, "derivative operand count");
  bool fwidth = in.op == SpvOp::OpFwidth || in.op == SpvOp::OpFwidthFine || in.op == SpvOp::OpFwidthCoarse;
  bool dy = in.op == SpvOp::OpDPdy || in.op == SpvOp::OpDPdyFine || in.op == SpvOp::OpDPdyCoarse;
  bool coarse = in.op == SpvOp::OpDPdxCoarse || in.op == SpvOp::OpDPdyCoarse || in.op == SpvOp::OpFwidthCoarse;
  unsigned n = components(w[0]);
  if (!n || !is_float(w[0]) || type(scalar_type(w[0])).width != 32)
    return unsupported(in, "a derivative of a value other than a 32-bit float scalar or vector");
  TVal out = TVal::data(w[0]);
  const Group group = m_.derivative_group;
  if (group == Group::none && o_.stage != Stage::fragment) {
    for (unsigned i = 0; i < n; ++i) out.c.push_back(Src::immediate(0));
    vals_[w[1]] = std::move(out);
    return {};
  }
  for (unsigned c = 0; c < n; ++c) {
    AGX_TRY(auto v, scalar(w[2], in, c));
    if (v.is_imm()) {  // the same in every lane
      out.c.push_back(Src::immediate(0));
      continue;
    }
    AGX_TRY(auto d, quad_derivatives(v, coarse, in));
    if (fwidth) {
      d.first.abs = true;
      d.second.abs = true;
      out.c.push_back(Src::val(b_.def(IrOp::fadd, {d.first, d.second})));
    } else {
      out.c.push_back(dy ? d.second : d.first);
    }
  }
  vals_[w[1]] = std::move(out);
  return {};
}

}  // namespace agx::compiler::detail
