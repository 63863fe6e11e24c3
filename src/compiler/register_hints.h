// What the register allocator knows about copies (register_hints.cpp):
// which register halves hold the same bits, so a copy may share its
// source's registers and its move disappears, and where a value would
// make the move after it (a reg_write into a fixed output register, a
// collect of it) unnecessary.
#pragma once

#include <vector>

#include "compiler/ir.h"

namespace agx::compiler::detail {

// The content of a register half: half `half` of SSA value `root`, the
// value at the start of a chain of copies (mov, collect components).
// Values are written once, so two halves with the same tag hold the same
// bits for as long as both are live.
struct HalfTag {
  ValueId root = kNoValue;
  uint32_t half = 0;
  bool operator==(const HalfTag&) const = default;
};

class CopyHints {
 public:
  explicit CopyHints(const Function& f);
  // Half k of value v.
  HalfTag tag(ValueId v, unsigned k) const { return tags_[first_[v] + k]; }
  // A copy's source (a value allocated before it) and where the copy
  // would share its registers: base = source's register + offset (halves);
  // kNoValue when v is no copy.
  ValueId share_source(ValueId v) const { return share_src_[v]; }
  int32_t share_offset(ValueId v) const { return share_off_[v]; }
  // The first collect that reads v as one of its components: which
  // instruction, its component and v's component there (instr -1: none).
  // Placed in line with the collect's other sources, v lets the collect
  // share all their registers.
  struct CollectUse {
    int64_t instr = -1;
    uint32_t comp = 0, src_comp = 0;
  };
  const CollectUse& collect_use(ValueId v) const { return collect_use_[v]; }
  // The first half a reg_write of one of v's components asks for, -1 none.
  int32_t fixed_hint(ValueId v) const { return fixed_hint_[v]; }
  // What the only reg_write into reserved half h puts there (root
  // kNoValue: no such write, nothing may live there).
  HalfTag reserved(unsigned h) const { return h < reserved_.size() ? reserved_[h] : HalfTag{}; }

 private:
  std::vector<uint32_t> first_;
  std::vector<HalfTag> tags_;
  std::vector<ValueId> share_src_;
  std::vector<int32_t> share_off_, fixed_hint_;
  std::vector<CollectUse> collect_use_;
  std::vector<HalfTag> reserved_;
};

// The registers reg_write instructions target, a bit per half (the
// validator lets values live there: register_allocate.cpp places them only
// where they hold what the reg_write stores).
std::vector<bool> reg_write_halves(const Function& f);

}  // namespace agx::compiler::detail
