// Packing: instruction selection (select_*.cpp) turns every IR instruction
// and control marker into machine instructions -- isa table rows with
// their fields and operands -- each encoded by the isa unit (isa::encode);
// then the layout: branch offsets from the encoded lengths, the branches
// encoded again with them. No assembly text is involved.
#include <fmt/format.h>

#include "compiler/machine.h"
#include "compiler/passes.h"

namespace agx::compiler {

namespace {

// Regions at least this many IR instructions long are jumped over
// (jmp_exec_none) when no lane runs them; shorter ones just run with an
// empty mask (the jump would cost more than it saves).
constexpr size_t kSkipRegionInstrs = 6;

constexpr size_t kOffsetField = isa::field_id(isa::Opcode::jmp_exec_any, "off");
static_assert(kOffsetField == isa::field_id(isa::Opcode::jmp_exec_none, "off"));

// The fewest sources the ops with a variable count read.
size_t min_sources(Op op) {
  switch (op) {
    case Op::atomic: case Op::image_write: return 3;
    case Op::local_atomic: case Op::texture_load: case Op::texture_sample: return 2;
    default: return 0;
  }
}

Status select_one(const Function& f, const Instr& in, Selection& s) {
  const OpInfo& info = op_info(in.op);
  const size_t want = info.srcs >= 0 ? static_cast<size_t>(info.srcs) : min_sources(in.op);
  if (info.srcs >= 0 ? in.srcs.size() != want : in.srcs.size() < want)
    return Error::invalid_argument("{} sources where {}{} are read", in.srcs.size(), info.srcs >= 0 ? "" : "at least ", want);
  if ((info.flags & kOpDest) && in.dest == kNoValue) return Error::invalid_argument("no destination");
  for (const Src& src : in.srcs)
    if (src.is_value() && (src.value >= f.values.size() || f.values[src.value].reg < 0))
      return Error::invalid_argument("a source without a register");
  if (in.dest != kNoValue && (in.dest >= f.values.size() || f.values[in.dest].reg < 0))
    return Error::invalid_argument("a destination without a register");
  switch (in.op) {
    case Op::udiv: case Op::umod: case Op::sdiv: case Op::smod:
      return Error::unsupported("integer division reached the packer (lower_idiv did not run)");
    case Op::device_load: case Op::device_store: case Op::local_load: case Op::local_store: case Op::atomic:
    case Op::local_atomic: case Op::stack_load: case Op::stack_store: case Op::uniform_store:
      return select_memory(f, in, s);
    case Op::texture_load: case Op::texture_sample: case Op::image_write: return select_texture(f, in, s);
    case Op::wait: case Op::barrier: case Op::memory_barrier: return select_control(f, in, s);
    case Op::preload:  // already there: the allocator pinned it
      if (f.values[in.dest].reg != static_cast<int32_t>(in.imm)) return Error::invalid_argument("a preload not in its register");
      return {};
    case Op::store_output: return select_store_output(f, in, s);
    case Op::iter: case Op::sample_mask: case Op::tile_load: case Op::tile_store: case Op::zs_emit:
      return select_fragment(f, in, s);
    default: break;
  }
  if (info.flags & kOpControl) return select_control(f, in, s);
  return select_alu(f, in, s);
}

// The else_/end_if that ends each if_/else_ region (-1: none).
std::vector<int> region_ends(const Function& f) {
  std::vector<int> end(f.instrs.size(), -1);
  std::vector<size_t> open;
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    const Op op = f.instrs[i].op;
    if ((op == Op::else_ || op == Op::end_if) && !open.empty()) {
      end[open.back()] = static_cast<int>(i);
      open.pop_back();
    }
    if (op == Op::if_ || op == Op::else_) open.push_back(i);
  }
  return end;
}

std::string where(const Function& f, const Instr& in) {
  std::string line = in.line ? fmt::format(" (source line {})", in.line) : "";
  return fmt::format("packing '{}'{}", print_instr(f, in), line);
}

}  // namespace

Result<std::vector<MachineInstr>> select(const Function& f) {
  Selection s;
  const std::vector<int> region_end = region_ends(f);
  std::vector<size_t> first(f.instrs.size() + 1, 0);
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    const Instr& in = f.instrs[i];
    first[i] = s.out.size();
    if (auto st = select_one(f, in, s); !st) return std::move(st).error().context(where(f, in));
    if ((in.op == Op::if_ || in.op == Op::else_) && region_end[i] > 0 &&
        static_cast<size_t>(region_end[i]) - i > kSkipRegionInstrs)
      skip_region(s, region_end[i]);
    for (size_t m = first[i]; m < s.out.size(); ++m) {
      auto enc = isa::encode(s.out[m].instr);
      if (!enc) return std::move(enc).error().context(where(f, in));
      s.out[m].encoded = *enc;
    }
  }
  first[f.instrs.size()] = s.out.size();
  for (MachineInstr& m : s.out)
    if (m.target_ir >= 0) m.target = static_cast<int>(first[static_cast<size_t>(m.target_ir)]);
  return std::move(s.out);
}

Result<std::vector<uint8_t>> encode_all(std::vector<MachineInstr>& code) {
  std::vector<uint64_t> pc(code.size() + 1, 0);
  for (size_t i = 0; i < code.size(); ++i) pc[i + 1] = pc[i] + code[i].encoded.length_B;
  std::vector<uint8_t> bytes;
  bytes.reserve(pc.back());
  for (size_t i = 0; i < code.size(); ++i) {
    MachineInstr& m = code[i];
    if (m.target >= 0) {
      if (static_cast<size_t>(m.target) > code.size()) return Error::invalid_argument("a branch to instruction {} of {}", m.target, code.size());
      // The branch rows' one operand and field is the offset (applegpu
      // BranchOffsetDesc).
      const int64_t offset = static_cast<int64_t>(pc[static_cast<size_t>(m.target)]) - static_cast<int64_t>(pc[i]);
      m.instr.operands[0].value = offset;
      m.instr.fields[kOffsetField] = static_cast<uint32_t>(offset);
      AGX_TRY(m.encoded, isa::encode(m.instr));
      if (m.encoded.length_B != pc[i + 1] - pc[i]) return Error::invalid_argument("a branch changed length");
    }
    bytes.insert(bytes.end(), m.encoded.bytes.begin(), m.encoded.bytes.begin() + m.encoded.length_B);
  }
  return bytes;
}

Result<std::vector<std::string>> pack_text(const Function& f) {
  AGX_TRY(auto code, select(f));
  AGX_CHECK(encode_all(code));
  std::vector<std::string> out;
  for (const MachineInstr& m : code) {
    AGX_TRY(auto in, isa::decode(m.encoded.span()));
    // applegpu pads the mnemonic to 16 columns: one space here.
    std::string text = isa::disassemble(in, std::nullopt);
    const size_t end = text.find(' '), next = text.find_first_not_of(' ', end);
    if (end != std::string::npos && next != std::string::npos) text.erase(end + 1, next - end - 1);
    else if (end != std::string::npos) text.erase(end);
    out.push_back(std::move(text));
  }
  return out;
}

Result<std::vector<uint8_t>> pack(const Function& f, Stats& stats) {
  AGX_TRY(auto code, select(f));
  AGX_TRY(auto bytes, encode_all(code));
  stats.instructions = static_cast<uint32_t>(code.size());
  stats.bytes = static_cast<uint32_t>(bytes.size());
  return bytes;
}

}  // namespace agx::compiler
