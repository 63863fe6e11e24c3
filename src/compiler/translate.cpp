// SPIR-V structured control flow -> IR markers. Every SPIR-V construct
// becomes the exec-mask form the AGX runs (bminor/mesa-mesa
// src/asahi/compiler/agx_compile.c emits NIR's if/loop the same way):
//  - OpSelectionMerge + OpBranchConditional: if / else / end_if;
//  - OpLoopMerge: loop ... end_loop; branches to the merge block are
//    `break`, to the continue target `continue` (the continue block runs
//    after `continue_join` gives continued lanes back);
//  - OpPhi: a variable written on each incoming edge, where the lanes that
//    take that edge are the active ones.
#include <algorithm>

#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler::detail {

namespace {
constexpr int kMaxDepth = 256;
}

Error Translator::unsupported(const spirv::Inst& in, std::string_view what) const {
  if (in.line) return Error::unsupported("{}:{}: {}", o_.file_name, in.line, what);
  return Error::unsupported("{}: SPIR-V word {}: {}", o_.file_name, in.word_offset, what);
}

Status Translator::if_cmp(const Cmp& c) {
  b_.emit(Op::if_, {c.a, c.b}, 0, c.cond, c.invert);
  return {};
}

// Copies for the edge pred -> target: every phi of target takes its value
// from pred. Sources that are phis of the same block are read first
// (parallel-copy semantics).
Status Translator::phi_moves(uint32_t pred, uint32_t target) {
  int32_t bi = m_.block_index[target];
  if (bi < 0 || !pred) return {};
  const spirv::Block& blk = m_.blocks[bi];
  if (blk.phis.empty()) return {};
  struct Move { ValueId dest; Src src; };
  std::vector<Move> moves;
  for (const spirv::Inst& phi : blk.phis) {
    uint32_t id = phi.w[1];
    std::optional<uint32_t> incoming;
    for (size_t i = 2; i + 1 < phi.w.size(); i += 2)
      if (phi.w[i + 1] == pred) incoming = phi.w[i];
    if (!incoming) continue;  // edge not listed: the phi is not needed on it
    if (m_.types[phi.w[0]].kind == spirv::Type::Kind::pointer) return unsupported(phi, "OpPhi of pointers");
    TVal src_val;
    if (m_.is_constant[*incoming]) src_val = constant(*incoming);
    else {
      AGX_TRY(auto v, get(*incoming, phi));
      src_val = *v;
    }
    const std::vector<ValueId>& vars = phi_vars_[id];
    for (size_t c = 0; c < vars.size(); ++c) {
      Src s;
      if (src_val.cmp) s = materialize(*src_val.cmp);
      else if (c < src_val.c.size()) s = src_val.c[c];
      else return unsupported(phi, "OpPhi operand of another shape");
      moves.push_back({vars[c], s});
    }
  }
  // A source that is also a destination here is copied aside first.
  std::vector<ValueId> dests;
  for (auto& mv : moves) dests.push_back(mv.dest);
  for (auto& mv : moves) {
    if (!mv.src.is_value() || std::find(dests.begin(), dests.end(), mv.src.value) == dests.end()) continue;
    if (mv.src.bits == 64) {
      Src lo = Src::val(b_.def(Op::mov, {lo32(mv.src)}));
      mv.src = pack64(lo, Src::val(b_.def(Op::mov, {hi32(mv.src)})));
    } else {
      mv.src = Src::val(b_.def(Op::mov, {mv.src}));
    }
  }
  for (auto& mv : moves) {
    if (b_.function().values[mv.dest].comps == 2) phi_move64(mv.dest, mv.src);
    else b_.def_into(mv.dest, Op::mov, {mv.src});
  }
  return {};
}

Status Translator::walk(uint32_t pred, uint32_t start, const Ctx& ctx, int depth) {
  if (depth > kMaxDepth) return Error::unsupported("{}: control flow nested too deeply", o_.file_name);
  AGX_CHECK(phi_moves(pred, start));
  if (start == ctx.end) return {};
  if (ctx.header) {
    if (start == ctx.merge) { b_.emit(Op::break_); return {}; }
    if (start == ctx.cont && !ctx.in_continue) {
      b_.emit(Op::continue_);
      if (ctx.saw_continue) *ctx.saw_continue = true;
      return {};
    }
    if (start == ctx.header) return {};  // back edge
    AGX_TRY(bool left, outer_exit(start, ctx));
    if (left) return {};
  }
  return block(start, ctx, depth + 1);
}

bool Translator::leaves_outer(uint32_t target, const Ctx& ctx) {
  for (const Ctx* o = ctx.outer; o && o->header; o = o->outer)
    if (target == o->merge || (target == o->cont && !o->in_continue)) return true;
  return false;
}

// Walks out through the enclosing constructs; the exec-mask form of a
// break that leaves n more loops is lower_control_flow's.
Result<bool> Translator::outer_exit(uint32_t target, const Ctx& ctx) {
  uint64_t levels = 0;
  for (const Ctx* o = ctx.outer; o && o->header; o = o->outer) {
    ++levels;
    if (target == o->merge) {
      b_.emit(Op::break_, {}, levels);
      return true;
    }
    if (target == o->cont && !o->in_continue) {
      b_.emit(Op::continue_, {}, levels);
      if (o->saw_continue) *o->saw_continue = true;
      return true;
    }
    if (target == o->header)
      return Error::unsupported("{}: a loop's back edge from inside a switch or an inner loop is not supported", o_.file_name);
  }
  return false;
}

Status Translator::block(uint32_t id, const Ctx& ctx, int depth) {
  if (depth > kMaxDepth) return Error::unsupported("{}: control flow nested too deeply", o_.file_name);
  int32_t bi = m_.block_index[id];
  if (bi < 0) return Error::decode("{}: branch to %{}, which is not a block", o_.file_name, id);
  const spirv::Block& blk = m_.blocks[bi];
  if (blk.merge.op == spv::Op::OpLoopMerge && id != ctx.header) {
    // A loop: phis of the header got their entry values from the walk.
    uint32_t merge = blk.merge.w[0], cont = blk.merge.w[1];
    bool saw_continue = false;
    Ctx body{cont, id, merge, cont, false, &saw_continue, ctx.header ? &ctx : nullptr};
    if (cont == id) body.end = 0;  // the header is its own continue target
    b_.line = blk.merge.line;
    b_.emit(Op::loop);
    ++loop_depth_;
    AGX_CHECK(block(id, body, depth + 1));
    if (cont != id) {
      if (saw_continue) b_.emit(Op::continue_join);
      Ctx cont_ctx{id, id, merge, cont, true, nullptr, ctx.header ? &ctx : nullptr};
      AGX_CHECK(block(cont, cont_ctx, depth + 1));
    }
    --loop_depth_;
    b_.emit(Op::end_loop);
    return walk(0, merge, ctx, depth + 1);
  }
  for (const spirv::Inst& in : blk.body) {
    b_.line = in.line;
    AGX_CHECK(instruction(in));
  }
  b_.line = blk.terminator.line;
  return terminator(blk, ctx, depth);
}

Status Translator::terminator(const spirv::Block& blk, const Ctx& ctx, int depth) {
  const spirv::Inst& t = blk.terminator;
  switch (t.op) {
    case spv::Op::OpBranch:
      if (t.w.empty()) return Error::decode("{}: bad OpBranch", o_.file_name);
      return walk(blk.id, t.w[0], ctx, depth + 1);
    case spv::Op::OpBranchConditional: {
      if (t.w.size() < 3) return Error::decode("{}: bad OpBranchConditional", o_.file_name);
      uint32_t tt = t.w[1], ff = t.w[2];
      AGX_TRY(auto c, condition(t.w[0], t));
      if (blk.merge.op == spv::Op::OpSelectionMerge) {
        uint32_t merge = blk.merge.w[0];
        Ctx inner = ctx;
        inner.end = merge;
        if (tt == ff) return walk(blk.id, tt, ctx, depth + 1);
        if (tt == merge) {  // only an else part: invert
          c.invert = !c.invert;
          std::swap(tt, ff);
        }
        AGX_CHECK(if_cmp(c));
        AGX_CHECK(walk(blk.id, tt, inner, depth + 1));
        bool has_else = ff != merge || [&] {
          int32_t mi = m_.block_index[merge];
          return mi >= 0 && !m_.blocks[mi].phis.empty();
        }();
        if (has_else) {
          b_.emit(Op::else_);
          AGX_CHECK(walk(blk.id, ff, inner, depth + 1));
        }
        b_.emit(Op::end_if);
        return walk(0, merge, ctx, depth + 1);
      }
      // No selection merge: one target leaves the construct (break,
      // continue, or the loop's back edge); the other goes on.
      auto leaves = [&](uint32_t target) {
        return ctx.header && (target == ctx.merge || target == ctx.cont || target == ctx.header || target == ctx.end ||
                              leaves_outer(target, ctx));
      };
      if (!leaves(tt) && !leaves(ff))
        return unsupported(t, "conditional branch without OpSelectionMerge (unstructured control flow)");
      uint32_t exit = leaves(tt) ? tt : ff, next = leaves(tt) ? ff : tt;
      if (exit == tt && leaves(ff) && tt == ctx.end) std::swap(exit, next);
      if (exit == ff) c.invert = !c.invert;
      // Lanes that take `exit` leave; the rest go on to `next`.
      AGX_CHECK(if_cmp(c));
      AGX_CHECK(walk(blk.id, exit, ctx, depth + 1));
      b_.emit(Op::end_if);
      return walk(blk.id, next, ctx, depth + 1);
    }
    case spv::Op::OpReturn:
      // Only the function's last block may return (SPIRV-Tools' merge-return
      // gives one); lanes cannot leave early from inside a construct.
      if (ctx.header || ctx.end) return unsupported(t, "return from inside an if or a loop");
      return {};
    case spv::Op::OpUnreachable:
      return {};
    case spv::Op::OpSwitch: return switch_(blk, ctx, depth);
    case spv::Op::OpKill: case spv::Op::OpTerminateInvocation:
      if (o_.stage != Stage::fragment) return unsupported(t, "discard outside a fragment shader");
      return discard();
    default:
      return unsupported(t, fmt::format("block terminator op {}", static_cast<unsigned>(t.op)));
  }
}

// OpSwitch: an if/else chain over the distinct targets, in order of first
// appearance; the default target runs where no literal matched. A case
// that falls through walks on into the next case's blocks (the code is
// repeated there). The chain sits in a loop that runs once, so a branch
// to the merge block from inside nested constructs (`break` in a case,
// SPIRV-Tools' merge-return) is a loop break; everyone breaks at the end.
Status Translator::switch_(const spirv::Block& blk, const Ctx& ctx, int depth) {
  const spirv::Inst& t = blk.terminator;
  if (blk.merge.op != spv::Op::OpSelectionMerge || t.w.size() < 2) return unsupported(t, "OpSwitch without OpSelectionMerge");
  uint32_t merge = blk.merge.w[0], dflt = t.w[1];
  AGX_TRY(auto sel, scalar(t.w[0], t));
  AGX_TRY(auto sel_val, get(t.w[0], t));
  unsigned width = type(sel_val->type).width;
  if (width != 32) return unsupported(t, "OpSwitch on a non-32-bit selector");
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> targets;  // target, literals
  for (size_t i = 2; i + 1 < t.w.size(); i += 2) {
    uint32_t lit = t.w[i], target = t.w[i + 1];
    if (target == dflt) continue;  // the default's literals: nothing to test
    auto it = std::find_if(targets.begin(), targets.end(), [&](auto& p) { return p.first == target; });
    if (it == targets.end()) targets.push_back({target, {lit}});
    else it->second.push_back(lit);
  }
  Ctx inner;
  inner.end = merge;
  inner.header = blk.id;
  inner.merge = merge;
  inner.cont = 0;
  inner.outer = ctx.header ? &ctx : nullptr;
  b_.emit(Op::loop);
  size_t opened = 0;
  for (auto& [target, lits] : targets) {
    // match = (sel == l0) | (sel == l1) ...
    Src match;
    for (size_t k = 0; k < lits.size(); ++k) {
      Src eq = b_.select(Cond::ueq, false, sel, Src::immediate(lits[k]), Src::immediate(1), Src::immediate(0));
      match = k == 0 ? eq : b_.binary(Op::ior, match, eq);
    }
    AGX_CHECK(if_cmp(Cmp{Cond::ueq, true, match, Src::immediate(0)}));
    ++opened;
    AGX_CHECK(walk(blk.id, target, inner, depth + 1));
    b_.emit(Op::else_);
  }
  AGX_CHECK(walk(blk.id, dflt, inner, depth + 1));
  for (size_t k = 0; k < opened; ++k) b_.emit(Op::end_if);
  b_.emit(Op::break_);
  b_.emit(Op::end_loop);
  return walk(0, merge, ctx, depth + 1);
}

Status Translator::run() {
  vals_.resize(m_.bound);
  phi_vars_.resize(m_.bound);
  if (o_.stage == Stage::vertex) AGX_CHECK(setup_vertex());  // translate_vertex.cpp
  AGX_CHECK(setup_resources());
  AGX_CHECK(setup_images());
  AGX_CHECK(setup_locals());
  AGX_CHECK(setup_fragment());
  // Phi results become variables, one per scalar component.
  for (const spirv::Block& blk : m_.blocks) {
    for (const spirv::Inst& phi : blk.phis) {
      if (phi.w.size() < 2 || phi.w[1] >= m_.bound) return Error::decode("{}: bad OpPhi", o_.file_name);
      // Composites (matrices, arrays, structs): a variable per flattened scalar.
      unsigned n = flat_count(phi.w[0]);
      if (!n) return unsupported(phi, "OpPhi of this type");
      TVal v = TVal::data(phi.w[0]);
      bool wide = is_wide64(phi.w[0]);  // 64-bit integers and doubles
      for (unsigned i = 0; i < n; ++i) {
        ValueId var = wide ? phi_var64() : b_.function().new_value(32, 1, true);
        phi_vars_[phi.w[1]].push_back(var);
        v.c.push_back(Src::val(var, wide ? 64 : 32));
      }
      vals_[phi.w[1]] = std::move(v);
    }
  }
  Ctx top;
  AGX_CHECK(block(m_.blocks[0].id, top, 0));
  AGX_CHECK(finish_fragment());
  drop_dead_local_inits();
  if (o_.stage == Stage::vertex) AGX_CHECK(store_vertex_outputs());
  b_.emit(Op::stop);
  return {};
}

}  // namespace agx::compiler::detail
