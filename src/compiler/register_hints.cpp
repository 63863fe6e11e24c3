// Copies and fixed-register writes seen by the register allocator
// (register_hints.h), in the spirit of the affinities bminor/mesa-mesa
// src/asahi/compiler/agx_register_allocate.c gives collects, splits and
// exports: a copy whose registers equal its source's needs no move.
#include "compiler/register_hints.h"

#include "compiler/regs.h"

namespace agx::compiler::detail {

namespace {

// A register-sized component read without modifiers from an SSA value of
// the same element size: its bits can be shared.
bool plain_copy_source(const Function& f, const Src& s, unsigned bits) {
  if (!s.is_value() || s.neg || s.abs || s.bits != bits) return false;
  const Value& v = f.values[s.value];
  return !v.variable && v.bits == bits;
}

}  // namespace

CopyHints::CopyHints(const Function& f)
    : first_(f.values.size() + 1, 0),
      share_src_(f.values.size(), kNoValue),
      share_off_(f.values.size(), 0),
      fixed_hint_(f.values.size(), -1),
      collect_use_(f.values.size()),
      reserved_(kRegisterHalves) {
  for (size_t v = 0; v < f.values.size(); ++v) first_[v + 1] = first_[v] + f.values[v].halves();
  tags_.resize(first_.back());
  for (size_t v = 0; v < f.values.size(); ++v)
    for (unsigned k = 0; k < f.values[v].halves(); ++k) tags_[first_[v] + k] = {static_cast<ValueId>(v), k};
  // Definitions come before uses (SSA), so a source's tags are final when
  // its copy is reached.
  for (size_t at = 0; at < f.instrs.size(); ++at) {
    const Instr& in = f.instrs[at];
    if ((in.op != Op::mov && in.op != Op::collect) || in.dest == kNoValue) continue;
    const Value& d = f.values[in.dest];
    if (d.variable || d.bits == 64) continue;
    const unsigned hs = d.bits / 16u;
    for (size_t i = 0; i < in.srcs.size() && (i + 1) * hs <= d.halves(); ++i) {
      const Src& s = in.srcs[i];
      if (!plain_copy_source(f, s, d.bits)) continue;
      for (unsigned k = 0; k < hs; ++k) tags_[first_[in.dest] + i * hs + k] = tag(s.value, s.comp * hs + k);
      if (in.op == Op::collect && collect_use_[s.value].instr < 0)
        collect_use_[s.value] = {static_cast<int64_t>(at), static_cast<uint32_t>(i), s.comp};
      if (share_src_[in.dest] == kNoValue) {
        share_src_[in.dest] = s.value;
        share_off_[in.dest] = static_cast<int32_t>(s.comp * hs) - static_cast<int32_t>(i * hs);
      }
    }
  }
  // reg_write targets written once: what they will hold, and the value
  // (and the root it copies) that could be computed right there.
  std::vector<uint8_t> writes(kRegisterHalves, 0);
  for (const Instr& in : f.instrs)
    if (in.op == Op::reg_write && in.imm + 1 < kRegisterHalves) ++writes[in.imm];
  for (const Instr& in : f.instrs) {
    if (in.op != Op::reg_write || in.imm + 1 >= kRegisterHalves || writes[in.imm] != 1) continue;
    const Src& s = in.srcs[0];
    if (!s.is_value() || s.neg || s.abs || s.bits != 32 || f.values[s.value].bits != 32) continue;
    const auto target = static_cast<int32_t>(in.imm);
    for (unsigned k = 0; k < 2; ++k) reserved_[target + k] = tag(s.value, s.comp * 2 + k);
    const HalfTag root = tag(s.value, s.comp * 2);
    for (auto [v, half] : {std::pair{s.value, s.comp * 2u}, std::pair{root.root, root.half}})
      if (fixed_hint_[v] < 0 && target >= static_cast<int32_t>(half)) fixed_hint_[v] = target - static_cast<int32_t>(half);
  }
}

std::vector<bool> reg_write_halves(const Function& f) {
  std::vector<bool> h(kRegisterHalves, false);
  for (const Instr& in : f.instrs)
    if (in.op == Op::reg_write && in.imm + 1 < kRegisterHalves) h[in.imm] = h[in.imm + 1] = true;
  return h;
}

}  // namespace agx::compiler::detail
