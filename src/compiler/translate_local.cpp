// Local variables (Function and Private storage classes) that SPIRV-Tools'
// scalar replacement and SSA rewrite leave behind: the arrays, vectors,
// structs and matrices a shader indexes with a value only known at run
// time. Each lives in one of two places (docs/compiler.md, "Local
// arrays"):
//  - registers, when the variable is at most kRegisterArrayMax_B bytes:
//    one IR variable per 32-bit word; a dynamic read is a select chain
//    over the words it may reach, a dynamic write a select per word;
//  - the thread's stack (scratch) otherwise, at a fixed offset of the
//    frame: stack_load / stack_store of up to four words at a computed
//    byte offset (Mesa lowers large local arrays to scratch the same way:
//    bminor/mesa-mesa src/asahi/compiler/agx_compile.c load/store_scratch
//    become stack_load / stack_store with the offset as a register).
// Every dynamic index is clamped to its array's last element in
// access_chain (translate_memory.cpp), so an out-of-range index reads or
// writes inside the variable and never another thread's stack.
#include <numeric>

#include <fmt/format.h>

#include "compiler/regs.h"
#include "compiler/translate.h"

namespace agx::compiler::detail {

using spv::StorageClass;
using Kind = spirv::Type::Kind;

namespace {
// Mesa's AGX compiler keeps local arrays of up to 16 bytes in registers
// (select chains, nir_lower_indirect_derefs) and lowers bigger ones to
// scratch (nir_lower_vars_to_scratch with threshold 16 in
// agx_preprocess_nir, bminor/mesa-mesa src/asahi/compiler/agx_compile.c).
// At 4 words a dynamic read costs at most 3 selects and a write 4, no
// more than a stack access (clamp, address, load or store, wait).
constexpr uint32_t kRegisterArrayMax_B = 16;
}  // namespace

Result<std::vector<LocalLeaf>> Translator::local_leaves(uint32_t t) const {
  std::vector<LocalLeaf> out;
  std::string why;
  auto walk = [&](auto& self, uint32_t ty_id, uint32_t off) -> bool {
    const spirv::Type& ty = type(ty_id);
    switch (ty.kind) {
      case Kind::bool_: out.push_back({off, false}); return true;
      case Kind::int_: case Kind::float_:
        if (ty.width == 32) { out.push_back({off, false}); return true; }
        // 64-bit integers and doubles: a word pair, low word first.
        if (ty.width == 64) { out.push_back({off, true}); return true; }
        // 8/16-bit: a word holding the widened value (an integer's low
        // bits, a half's f32).
        if (ty.width == 8 || ty.width == 16) { out.push_back({off, false}); return true; }
        why = fmt::format("{}-bit scalars are not supported", ty.width);
        return false;
      case Kind::vector: case Kind::matrix: case Kind::array: {
        uint32_t ea = 4;
        uint32_t e = natural_size_B(ty.elem, &ea, true);
        // Matrices are arrays of their columns (a dvec3 column 32 bytes).
        uint32_t stride = ty.kind == Kind::vector ? e : (e + ea - 1) / ea * ea;
        for (uint32_t i = 0; i < ty.count; ++i)
          if (!self(self, ty.elem, off + i * stride)) return false;
        return true;
      }
      case Kind::struct_: {
        uint32_t mo = 0;
        for (uint32_t m : ty.members) {
          uint32_t ma = 4;
          uint32_t ms = natural_size_B(m, &ma, true);
          mo = (mo + ma - 1) / ma * ma;
          if (!self(self, m, off + mo)) return false;
          mo += ms;
        }
        return true;
      }
      default:
        why = "only scalars, vectors, matrices, arrays and structs can be local variables";
        return false;
    }
  };
  if (!walk(walk, t, 0)) return Error::unsupported("{}", why);
  return out;
}

// The ids the function mentions (SPIRV-Tools leaves unused variables).
std::vector<uint8_t> Translator::mentioned_ids() const {
  std::vector<uint8_t> used(m_.bound, 0);
  auto mark = [&](const spirv::Inst& in) {
    for (uint32_t w : in.w)
      if (w < m_.bound) used[w] = 1;
  };
  for (const spirv::Block& blk : m_.blocks) {
    for (const spirv::Inst& in : blk.phis) mark(in);
    for (const spirv::Inst& in : blk.body)
      if (in.op != spv::Op::OpVariable) mark(in);
    mark(blk.terminator);
  }
  return used;
}

Status Translator::setup_locals() {
  local_index_.assign(m_.bound, -1);
  const std::vector<uint8_t> used = mentioned_ids();
  std::vector<uint32_t> vars;
  // Private variables, and a fragment shader's inputs and outputs
  // (translate_fragment.cpp).
  for (uint32_t v : m_.globals)
    if (m_.variables[v].storage == StorageClass::Private || vertex_local(v) || fragment_io(v)) vars.push_back(v);
  for (uint32_t v : m_.function_variables)
    if (m_.variables[v].storage == StorageClass::Function) vars.push_back(v);
  uint32_t frame_B = 0;
  for (uint32_t v : vars) {
    if (!used[v]) continue;
    const spirv::Variable& var = m_.variables[v];
    const uint32_t pointee = type(var.type).elem;
    auto named = [&](const Error& e) {
      return Error::unsupported("{}: local variable %{}{}: {}", o_.file_name, v, m_.names[v].empty() ? "" : " (" + m_.names[v] + ")",
                                e.message());
    };
    // Words before padding, saturating: a huge array is refused before its
    // layout (whose byte counts are 32-bit) is worked out.
    auto words_of = [&](auto& self, uint32_t t, int depth) -> uint64_t {
      const spirv::Type& ty = type(t);
      if (depth > 64) return UINT64_MAX;
      switch (ty.kind) {
        case Kind::vector: case Kind::matrix: case Kind::array: {
          uint64_t e = self(self, ty.elem, depth + 1);
          return ty.count == 0 || e == 0 ? 0 : e > UINT64_MAX / ty.count ? UINT64_MAX : e * ty.count;
        }
        case Kind::struct_: {
          uint64_t n = 0;
          for (uint32_t m : ty.members) n = std::min<uint64_t>(UINT64_MAX / 2, n + self(self, m, depth + 1));
          return n;
        }
        case Kind::int_: case Kind::float_: return ty.width == 64 ? 2 : 1;
        default: return 1;
      }
    };
    const uint64_t words = words_of(words_of, pointee, 0);
    if (words == 0) return named(Error::unsupported("an empty type"));
    if (words > kMaxScratch_B / 4)
      return Error::unsupported("{}: local arrays need at least {} bytes of stack per thread (at most {})", o_.file_name,
                                words > UINT32_MAX ? std::string("4 G") : std::to_string(words * 4), kMaxScratch_B);
    auto leaves = local_leaves(pointee);
    if (!leaves) return named(leaves.error());
    Local l;
    l.var = v;
    l.type = pointee;
    uint32_t align_B = 4;
    l.size_B = natural_size_B(pointee, &align_B, true);
    // Vertex attributes and outputs, fragment inputs and outputs stay in
    // registers whatever their size (at most 16 locations of 4 words, or
    // gl_PerVertex).
    l.registers = l.size_B <= kRegisterArrayMax_B || vertex_local(v) || fragment_io(v);
    if (l.registers && vertex_local(v) && var.storage == StorageClass::Input) {
      AGX_CHECK(init_vertex_input(l));
    } else if (l.registers) {
      // Defined at the top: every later read, even on a path that never
      // wrote the word, sees a value the allocator keeps alive. Words an
      // initializer sets (below) start there; the others are set to 0.
      std::vector<uint8_t> initialized((l.size_B + 3) / 4, 0);
      if (var.initializer)
        for (const LocalLeaf& leaf : *leaves)
          for (uint32_t k = leaf.off_B / 4; k < (leaf.off_B + (leaf.wide ? 8 : 4)) / 4 && k < initialized.size(); ++k)
            initialized[k] = 1;
      for (uint32_t k = 0; k < (l.size_B + 3) / 4; ++k) {
        ValueId w = b_.function().new_value(32, 1, true);
        if (!initialized[k]) b_.def_into(w, Op::mov, {Src::immediate(0)});
        l.words.push_back(w);
      }
    } else {
      align_B = std::max(align_B, 4u);
      frame_B = (frame_B + align_B - 1) / align_B * align_B;
      l.offset_B = frame_B;
      frame_B += l.size_B;
    }
    local_index_[v] = static_cast<int32_t>(locals_.size());
    locals_.push_back(std::move(l));
  }
  b_.function().stack_B = frame_B;
  if (frame_B > kMaxScratch_B)
    return Error::unsupported("{}: local arrays need {} bytes of stack per thread (at most {})", o_.file_name, frame_B,
                              kMaxScratch_B);
  // Initializers (OpVariable's optional operand) are stored at the top.
  for (const Local& l : locals_) {
    const spirv::Variable& var = m_.variables[l.var];
    if (!var.initializer) continue;
    spirv::Inst at;
    at.op = spv::Op::OpVariable;
    at.w = {var.type, l.var, static_cast<uint32_t>(var.storage), var.initializer};
    AGX_TRY(auto init, get(var.initializer, at));
    std::vector<Src> data = init->cmp ? std::vector<Src>{materialize(*init->cmp)} : init->c;
    AGX_TRY(auto p, variable_pointer(l.var, at));
    AGX_CHECK(local_store(p, data, at));
  }
  return {};
}

void Translator::drop_dead_local_inits() {
  // A register word's zero at the top is dead when its first mention after
  // it is an unconditional write (outside any if or loop) that does not
  // read it: the usual `float a[4] = float[](...)`.
  std::vector<uint8_t> is_word(b_.function().values.size(), 0);
  for (const Local& l : locals_)
    for (ValueId w : l.words) is_word[w] = 1;
  std::vector<Instr>& code = b_.function().instrs;
  std::vector<size_t> zero_at(is_word.size(), SIZE_MAX);
  std::vector<uint8_t> decided(is_word.size(), 0), dead(code.size(), 0);
  int depth = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    const Instr& in = code[i];
    for (const Src& s : in.srcs)
      if (s.is_value() && is_word[s.value]) decided[s.value] = 1;  // read first: the zero stays
    if (in.dest != kNoValue && in.dest < is_word.size() && is_word[in.dest] && !decided[in.dest]) {
      if (zero_at[in.dest] == SIZE_MAX) {
        zero_at[in.dest] = i;
      } else {
        if (depth == 0) dead[zero_at[in.dest]] = 1;
        decided[in.dest] = 1;
      }
    }
    if (in.op == Op::if_ || in.op == Op::loop) ++depth;
    if (in.op == Op::end_if || in.op == Op::end_loop) --depth;
  }
  size_t k = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    if (dead[i]) continue;
    if (k != i) code[k] = std::move(code[i]);
    ++k;
  }
  code.resize(k);
}

Src Translator::local_clamp(Src idx, uint32_t count) {
  if (idx.bits == 64) idx = lo32(idx);  // a 64-bit index: its low word, clamped like any other
  if (idx.is_imm()) return Src::immediate(std::min<uint64_t>(static_cast<uint32_t>(idx.imm), count - 1));
  // Unsigned: a negative index is huge and clamps to the last element too.
  return b_.select(Cond::ult, false, idx, Src::immediate(count), idx, Src::immediate(count - 1));
}

// sum(index * stride) of the pointer's dynamic terms plus `plus_B`.
Src Translator::local_offset(const Ptr& p, uint32_t plus_B) {
  Src acc = Src::immediate(plus_B);
  for (const auto& [idx, stride] : p.terms) acc = b_.imad(idx, Src::immediate(stride), acc);
  return acc;
}

Result<std::vector<Src>> Translator::local_load(const Ptr& p, const spirv::Inst& in) {
  AGX_TRY(auto leaves, local_leaves(p.type));
  std::vector<uint32_t> offs;  // per leaf word, in leaf order
  for (const LocalLeaf& leaf : leaves) {
    offs.push_back(leaf.off_B);
    if (leaf.wide) offs.push_back(leaf.off_B + 4);
  }
  if (offs.empty()) return unsupported(in, "load of an empty local variable");
  AGX_TRY(auto words, local_load_words(p, offs, in));
  std::vector<Src> out;
  size_t w = 0;
  for (const LocalLeaf& leaf : leaves) {
    if (leaf.wide) {
      out.push_back(pack64(words[w], words[w + 1]));
      w += 2;
    } else {
      out.push_back(words[w++]);
    }
  }
  return out;
}

// The 32-bit words at byte offsets `rel_B` from the pointer, in that order.
Result<std::vector<Src>> Translator::local_load_words(const Ptr& p, const std::vector<uint32_t>& rel_B, const spirv::Inst& in) {
  const Local& l = locals_[p.local];
  std::vector<Src> words;
  std::vector<uint32_t> offs;
  for (uint32_t r : rel_B) offs.push_back(p.const_B + r);
  for (uint32_t off : offs)
    if (off + p.dynamic_max_B + 4 > l.size_B) return unsupported(in, "local variable access out of range");
  if (l.registers) {
    const bool dynamic = !p.terms.empty();
    Src dyn = dynamic ? local_offset(p, 0) : Src::immediate(0);
    uint32_t step = 0;
    for (const auto& t : p.terms) step = std::gcd(step, t.second);
    for (uint32_t off : offs) {
      Src r = Src::val(l.words[off / 4]);
      bool copied = false;
      // The words a dynamic offset in [0, dynamic_max_B] may reach.
      for (uint32_t d = step; dynamic && step && d <= p.dynamic_max_B && (off + d) / 4 < l.words.size(); d += step) {
        r = b_.select(Cond::ueq, false, dyn, Src::immediate(d), Src::val(l.words[(off + d) / 4]), r);
        copied = true;
      }
      // A read is a snapshot: a later store must not change it.
      if (!copied) r = Src::val(b_.def(Op::mov, {r}));
      words.push_back(r);
    }
  } else {
    // Runs of up to four consecutive words, one stack_load each.
    std::vector<std::pair<size_t, size_t>> runs;  // first word, count
    for (size_t i = 0; i < offs.size(); ++i) {
      if (!runs.empty() && runs.back().second < 4 && offs[runs.back().first] + 4 * runs.back().second == offs[i])
        ++runs.back().second;
      else runs.push_back({i, 1});
    }
    Src dyn = runs.size() > 1 && !p.terms.empty() ? local_offset(p, 0) : Src::immediate(0);
    for (auto [first, n] : runs) {
      const uint32_t at_B = l.offset_B + offs[first];
      Src off = p.terms.empty() ? Src::immediate(at_B) : runs.size() > 1 ? b_.iadd(dyn, Src::immediate(at_B)) : local_offset(p, at_B);
      ValueId d = b_.def(Op::stack_load, {off}, 32, static_cast<uint8_t>(n));
      for (size_t k = 0; k < n; ++k) words.push_back(Src::val(d, 32, static_cast<uint8_t>(k)));
    }
  }
  return words;
}

Status Translator::local_store(const Ptr& p, const std::vector<Src>& data, const spirv::Inst& in) {
  AGX_TRY(auto leaves, local_leaves(p.type));
  if (data.size() != leaves.size()) return unsupported(in, "store of a value of another shape");
  std::vector<LocalWord> words;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const uint32_t off = leaves[i].off_B;
    if (leaves[i].wide) {
      words.push_back({off, lo32(data[i])});
      words.push_back({off + 4, hi32(data[i])});
    } else {
      Src s = data[i];
      if (s.bits == 64) s = lo32(s);
      words.push_back({off, s});
    }
  }
  return local_store_words(p, words, in);
}

// Stores 32-bit words at byte offsets from the pointer (ascending).
Status Translator::local_store_words(const Ptr& p, std::vector<LocalWord> words, const spirv::Inst& in) {
  const Local& l = locals_[p.local];
  for (LocalWord& wd : words) {
    wd.off_B += p.const_B;
    if (wd.off_B + p.dynamic_max_B + 4 > l.size_B) return unsupported(in, "local variable access out of range");
  }
  if (l.registers) {
    const bool dynamic = !p.terms.empty();
    Src dyn = dynamic ? local_offset(p, 0) : Src::immediate(0);
    uint32_t step = 0;
    for (const auto& t : p.terms) step = std::gcd(step, t.second);
    for (const LocalWord& wd : words) {
      if (!dynamic) {
        b_.def_into(l.words[wd.off_B / 4], Op::mov, {wd.data});
        continue;
      }
      // Every word the offset may reach takes the data where it is the one.
      for (uint32_t d = 0; d <= p.dynamic_max_B && (wd.off_B + d) / 4 < l.words.size(); d += step) {
        ValueId w = l.words[(wd.off_B + d) / 4];
        b_.function().instrs.push_back(
            Instr{Op::icmpsel, Cond::ueq, false, w, {dyn, Src::immediate(d), wd.data, Src::val(w)}, 0, b_.line});
        if (!step) break;
      }
    }
    return {};
  }
  std::vector<std::pair<size_t, size_t>> runs;
  for (size_t i = 0; i < words.size(); ++i) {
    if (!runs.empty() && runs.back().second < 4 && words[runs.back().first].off_B + 4 * runs.back().second == words[i].off_B)
      ++runs.back().second;
    else runs.push_back({i, 1});
  }
  Src dyn = runs.size() > 1 && !p.terms.empty() ? local_offset(p, 0) : Src::immediate(0);
  for (auto [first, n] : runs) {
    const uint32_t at_B = l.offset_B + words[first].off_B;
    Src off = p.terms.empty() ? Src::immediate(at_B) : runs.size() > 1 ? b_.iadd(dyn, Src::immediate(at_B)) : local_offset(p, at_B);
    std::vector<Src> part;
    for (size_t k = 0; k < n; ++k) part.push_back(words[first + k].data);
    Src v = gather(b_, part);
    // The stack takes whole registers: an immediate or uniform word, or a
    // component other than the first, is copied into one.
    if (!v.is_value() || v.comp != 0 || v.bits != 32 || v.neg || v.abs ||
        b_.function().values[v.value].comps != n || b_.function().values[v.value].bits != 32)
      v = Src::val(b_.def(Op::collect, part, 32, static_cast<uint8_t>(n)));
    b_.emit(Op::stack_store, {v, off});
  }
  return {};
}

}  // namespace agx::compiler::detail
