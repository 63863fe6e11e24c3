// Op table, printer and names of the IR (ir.h).
#include <fmt/format.h>

#include "compiler/ir.h"

namespace agx::compiler {

namespace {
constexpr OpInfo kOps[] = {
#define AGX_IR_OP(name, srcs, flags) {#name, srcs, static_cast<uint16_t>(flags)},
#include "compiler/ops.inc"
#undef AGX_IR_OP
};
}  // namespace

const OpInfo& op_info(Op op) { return kOps[static_cast<size_t>(op)]; }

void remove_instrs(Function& f, const std::vector<bool>& drop) {
  size_t out = 0;
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    if (i < drop.size() && drop[i]) continue;
    if (out != i) f.instrs[out] = std::move(f.instrs[i]);
    ++out;
  }
  f.instrs.resize(out);
}

const char* cond_name(Cond c, bool invert) {
  // applegpu's ICondition / FCondition enumerations (bminor/mesa-mesa
  // src/asahi/compiler/agx_opcodes.py agrees): names of the plain and the
  // inverted (n bit) forms, in Cond order.
  static constexpr const char* kNames[][2] = {
      {"ueq", "nueq"}, {"ult", "ugte"}, {"ugt", "ulte"}, {"seq", "nseq"}, {"slt", "sgte"}, {"sgt", "slte"},
      {"eq", "neq"},   {"lt", "nlt"},   {"gt", "ngt"},   {"ltn", "nltn"}, {"gte", "ngte"}, {"lte", "nlte"},
      {"gtn", "ngtn"}, {"none", "none"}};
  return kNames[static_cast<size_t>(c)][invert ? 1 : 0];
}

bool cond_is_float(Cond c) { return c >= Cond::feq && c <= Cond::fgtn; }

const char* atomic_name(AtomicOp op) {
  static constexpr const char* kNames[] = {"add", "sub", "xchg", "cmpxchg", "umin", "imin",
                                           "umax", "imax", "and", "or", "xor"};
  return kNames[static_cast<size_t>(op)];
}

namespace {
std::string src_text(const Src& s) {
  std::string t;
  switch (s.kind) {
    case Src::Kind::none: t = "_"; break;
    case Src::Kind::value:
      t = fmt::format("%{}", s.value);
      if (s.comp) t += fmt::format(".{}", "xyzw"[s.comp & 3]);
      break;
    case Src::Kind::imm: t = fmt::format("#0x{:x}", s.imm); break;
    case Src::Kind::uniform: t = fmt::format("u{}", s.imm); break;
    case Src::Kind::sr: t = fmt::format("sr{}", s.imm); break;
  }
  if (s.bits != 32) t += fmt::format(":{}", s.bits);
  if (s.abs) t = "|" + t + "|";
  if (s.neg) t = "-" + t;
  return t;
}
}  // namespace

std::string print_instr(const Function& f, const Instr& in) {
  std::string t;
  if (in.dest != kNoValue) {
    const Value& v = f.values[in.dest];
    t = fmt::format("%{}:{}{} = ", in.dest, v.bits, v.comps > 1 ? fmt::format("x{}", v.comps) : "");
    if (v.reg >= 0) t = fmt::format("%{}@h{}:{}{} = ", in.dest, v.reg, v.bits, v.comps > 1 ? fmt::format("x{}", v.comps) : "");
  }
  t += op_info(in.op).name;
  if (in.cond != Cond::none) t += fmt::format(".{}", cond_name(in.cond, in.invert));
  switch (in.op) {
    case Op::get_sr: t += fmt::format(" sr{}", in.imm); break;
    case Op::convert: t += fmt::format(".{}", in.imm); break;
    case Op::device_load: case Op::device_store: case Op::local_load: case Op::local_store:
      if (mem_elem_B(in.imm) != 4) t += fmt::format(".i{}", 8 * mem_elem_B(in.imm));
      if (mem_shift(in.imm)) t += fmt::format(".lsl{}", mem_shift(in.imm));
      break;
    case Op::uniform_store: t += fmt::format(" u{}", in.imm); break;
    case Op::reg_write: case Op::reg_read: t += fmt::format(" r{}", in.imm / 2); break;
    case Op::tile_load: case Op::tile_store:
      t += fmt::format(" F{} mask{:x} @{}", tile_format(in.imm), tile_mask(in.imm), tile_offset_B(in.imm));
      break;
    case Op::zs_emit: t += fmt::format("{}{}", in.imm & 1 ? " z" : "", in.imm & 2 ? " s" : ""); break;
    case Op::iter:
      t += cf_kind(in.imm) == CfRead::ldcf       ? fmt::format(".ldcf cf{}", cf_index(in.imm))
           : cf_kind(in.imm) == CfRead::iterproj ? fmt::format(".proj cf{} cf{}", cf_index(in.imm), cf_w(in.imm))
                                                 : fmt::format(" cf{}", cf_index(in.imm));
      if (cf_point(in.imm) == 2) t += " centroid";
      break;
    case Op::image_write:
      if (in.imm & kTexStateReg) t += fmt::format(" ts(reg) n{}", image_dim(in.imm));
      else t += fmt::format(" ts{} n{}", image_texture_state(in.imm), image_dim(in.imm));
      break;
    case Op::texture_load: case Op::texture_sample:
      if (in.imm & kTexStateReg) t += fmt::format(" ts(reg) ss(reg) n{}", image_dim(in.imm));
      else t += fmt::format(" ts{} ss{} n{}", image_texture_state(in.imm), image_sampler_state(in.imm), image_dim(in.imm));
      if (in.imm & kTexCompare) t += " compare";
      if (in.imm & kTexOffset) t += " offset";
      if (in.imm & kTexQueryLod) t += " query_lod";
      if (in.imm & kTexGradMin) t += " grad_min";
      if (tex_q6(in.imm)) t += fmt::format(" q6={}", tex_q6(in.imm));
      break;
    case Op::atomic: case Op::local_atomic: t += fmt::format(".{}", atomic_name(static_cast<AtomicOp>(in.imm))); break;
    case Op::simd_shuffle: if (in.imm) t += in.imm == 1 ? ".down" : in.imm == 2 ? ".up" : ".xor"; break;
    default: break;
  }
  for (size_t i = 0; i < in.srcs.size(); ++i) t += (i ? ", " : " ") + src_text(in.srcs[i]);
  return t;
}

std::string print(const Function& f) {
  std::string out;
  int depth = 0;
  for (const Instr& in : f.instrs) {
    if (in.op == Op::end_if || in.op == Op::end_loop || in.op == Op::else_) --depth;
    out += std::string(2 * std::max(depth, 0), ' ') + print_instr(f, in) + "\n";
    if (in.op == Op::if_ || in.op == Op::loop || in.op == Op::else_) ++depth;
  }
  return out;
}

}  // namespace agx::compiler
