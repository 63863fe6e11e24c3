#include "runtime/uniform_blocks.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "compiler/spirv_walk.h"

namespace agx::runtime {
namespace {

// GL_MAX_UNIFORM_BLOCK_SIZE is 16 KiB at least: more members than this
// cannot be a block a program uses.
constexpr size_t kMaxMembers = 4096;

struct Type {
  spv::Op op = spv::Op::OpNop;
  uint32_t width = 0;         // scalars
  uint32_t count = 1;         // vector components, matrix columns, array length
  uint32_t elem = 0;          // vector component / matrix column / array element / pointee
  std::vector<uint32_t> members;
  spv::StorageClass storage{};
};

Type type_of(spv::Op op, uint32_t width, uint32_t count, uint32_t elem) {
  Type t;
  t.op = op;
  t.width = width;
  t.count = count;
  t.elem = elem;
  return t;
}

struct MemberDeco {
  uint32_t offset_B = 0, matrix_stride_B = 0;
  bool row_major = false;
};

struct Module {
  std::map<uint32_t, Type> types;
  std::map<uint32_t, uint32_t> constants;
  std::map<uint32_t, std::string> names;
  std::map<std::pair<uint32_t, uint32_t>, std::string> member_names;
  std::map<std::pair<uint32_t, uint32_t>, MemberDeco> member_decos;
  std::map<uint32_t, uint32_t> array_stride, binding;
  std::map<uint32_t, bool> block;
  std::vector<std::pair<uint32_t, uint32_t>> uniform_vars;  // (variable, pointer type)
};

std::string literal_string(std::span<const uint32_t> w) {
  std::string s;
  for (uint32_t word : w)
    for (int i = 0; i < 4; ++i) {
      const char c = char(word >> (8 * i));
      if (c == 0) return s;
      s += c;
    }
  return s;
}

Result<Module> scan_blocks(std::span<const uint32_t> words) {
  Module m;
  AGX_CHECK(compiler::spirv::for_each_instruction(words, [&](const compiler::spirv::SpirvInstruction& in) -> Status {
    const spv::Op op = in.op;
    std::span<const uint32_t> w = in.w;
    auto need = [&](size_t n) { return in.need(n); };
    switch (op) {
      case spv::Op::OpName: AGX_CHECK(need(1)); m.names[w[0]] = literal_string(w.subspan(1)); break;
      case spv::Op::OpMemberName: AGX_CHECK(need(2)); m.member_names[{w[0], w[1]}] = literal_string(w.subspan(2)); break;
      case spv::Op::OpDecorate:
        AGX_CHECK(need(2));
        if (spv::Decoration(w[1]) == spv::Decoration::Block) m.block[w[0]] = true;
        if (spv::Decoration(w[1]) == spv::Decoration::Binding && w.size() > 2) m.binding[w[0]] = w[2];
        if (spv::Decoration(w[1]) == spv::Decoration::ArrayStride && w.size() > 2) m.array_stride[w[0]] = w[2];
        break;
      case spv::Op::OpMemberDecorate: {
        AGX_CHECK(need(3));
        MemberDeco& d = m.member_decos[{w[0], w[1]}];
        const auto deco = spv::Decoration(w[2]);
        if (deco == spv::Decoration::Offset && w.size() > 3) d.offset_B = w[3];
        if (deco == spv::Decoration::MatrixStride && w.size() > 3) d.matrix_stride_B = w[3];
        if (deco == spv::Decoration::RowMajor) d.row_major = true;
        break;
      }
      case spv::Op::OpTypeBool: AGX_CHECK(need(1)); m.types[w[0]] = type_of(op, 32, 1, 0); break;
      case spv::Op::OpTypeInt:
      case spv::Op::OpTypeFloat: AGX_CHECK(need(2)); m.types[w[0]] = type_of(op, w[1], 1, 0); break;
      case spv::Op::OpTypeVector:
      case spv::Op::OpTypeMatrix: AGX_CHECK(need(3)); m.types[w[0]] = type_of(op, 0, w[2], w[1]); break;
      case spv::Op::OpTypeArray: {
        AGX_CHECK(need(3));
        auto c = m.constants.find(w[2]);
        if (c == m.constants.end()) return Error::parse("SPIR-V: array length %{} is not a constant", w[2]);
        m.types[w[0]] = type_of(op, 0, c->second, w[1]);
        break;
      }
      case spv::Op::OpTypeStruct: {
        AGX_CHECK(need(1));
        Type t = type_of(op, 0, 1, 0);
        t.members.assign(w.begin() + 1, w.end());
        m.types[w[0]] = t;
        break;
      }
      case spv::Op::OpTypePointer: {
        AGX_CHECK(need(3));
        Type t = type_of(op, 0, 1, w[2]);
        t.storage = spv::StorageClass(w[1]);
        m.types[w[0]] = t;
        break;
      }
      case spv::Op::OpConstant: AGX_CHECK(need(3)); m.constants[w[1]] = w[2]; break;
      case spv::Op::OpVariable:
        AGX_CHECK(need(3));
        if (spv::StorageClass(w[2]) == spv::StorageClass::Uniform) m.uniform_vars.push_back({w[1], w[0]});
        break;
      default: break;
    }
    return {};
  }));
  return m;
}

// Adds the leaves of `type` at `offset_B` named `name` (GL 4.6 section
// 7.3.1.1: structure members joined with '.', arrays of structures per
// element, arrays of basic types once).
Status add_members(const Module& m, uint32_t type_id, const std::string& name, uint32_t offset_B, MemberDeco deco,
                   UniformBlock& out, int depth) {
  if (depth > 16) return Error::parse("SPIR-V: uniform block types nested too deeply");
  if (out.members.size() > kMaxMembers)
    return Error::parse("SPIR-V: uniform block {} has more than {} members", out.name, kMaxMembers);
  auto it = m.types.find(type_id);
  if (it == m.types.end()) return Error::parse("SPIR-V: unknown type %{} in a uniform block", type_id);
  const Type& t = it->second;
  if (t.op == spv::Op::OpTypeStruct) {
    for (uint32_t i = 0; i < t.members.size(); ++i) {
      auto n = m.member_names.find({type_id, i});
      auto d = m.member_decos.find({type_id, i});
      const MemberDeco md = d == m.member_decos.end() ? MemberDeco{} : d->second;
      const std::string member = n == m.member_names.end() ? fmt::format("_{}", i) : n->second;
      AGX_CHECK(add_members(m, t.members[i], name.empty() ? member : name + "." + member, offset_B + md.offset_B, md,
                            out, depth + 1));
    }
    return {};
  }
  if (t.op == spv::Op::OpTypeArray) {
    auto s = m.array_stride.find(type_id);
    const uint32_t stride = s == m.array_stride.end() ? 0 : s->second;
    auto e = m.types.find(t.elem);
    if (e != m.types.end() && (e->second.op == spv::Op::OpTypeStruct || e->second.op == spv::Op::OpTypeArray)) {
      if (t.count > kMaxMembers)
        return Error::parse("SPIR-V: an array of {} aggregates in uniform block {}", t.count, out.name);
      for (uint32_t i = 0; i < t.count; ++i)
        AGX_CHECK(add_members(m, t.elem, fmt::format("{}[{}]", name, i), offset_B + i * stride, deco, out, depth + 1));
      return {};
    }
    const size_t before = out.members.size();
    AGX_CHECK(add_members(m, t.elem, name, offset_B, deco, out, depth + 1));
    for (size_t i = before; i < out.members.size(); ++i) {
      out.members[i].array_stride_B = stride;
      out.members[i].array_length = t.count;
    }
    return {};
  }
  BlockMember b;
  b.name = name;
  b.offset_B = offset_B;
  if (t.op == spv::Op::OpTypeMatrix) {
    auto col = m.types.find(t.elem);
    const uint32_t rows = col == m.types.end() ? 4 : col->second.count;
    b.matrix_stride_B = deco.matrix_stride_B;
    b.row_major = deco.row_major;
    b.size_B = (b.row_major ? rows - 1 : t.count - 1) * deco.matrix_stride_B + 4 * (b.row_major ? t.count : rows);
  } else {
    const uint32_t n = t.op == spv::Op::OpTypeVector ? t.count : 1;
    auto sc = m.types.find(t.op == spv::Op::OpTypeVector ? t.elem : type_id);
    const uint32_t width = sc == m.types.end() ? 32 : sc->second.width;
    b.size_B = n * std::max<uint32_t>(width, 32) / 8;
  }
  out.members.push_back(b);
  return {};
}

}  // namespace

Result<std::vector<UniformBlock>> uniform_blocks(std::span<const uint32_t> spirv) {
  AGX_TRY(Module m, scan_blocks(spirv));
  std::vector<UniformBlock> blocks;
  for (const auto& [var, ptr] : m.uniform_vars) {
    auto p = m.types.find(ptr);
    if (p == m.types.end() || p->second.op != spv::Op::OpTypePointer) continue;
    uint32_t type = p->second.elem, count = 0;
    // An array of blocks: GL's blocks "U[0]", "U[1]", ... at consecutive
    // binding points (GLSL 4.60 section 4.4.5).
    if (auto a = m.types.find(type); a != m.types.end() && a->second.op == spv::Op::OpTypeArray && m.block.count(a->second.elem))
      count = a->second.count, type = a->second.elem;
    if (!m.block.count(type)) continue;  // BufferBlock: storage buffers
    for (uint32_t e = 0; e < std::max(count, 1u); ++e) {
      UniformBlock b;
      auto n = m.names.find(type);
      b.name = n == m.names.end() ? "" : n->second;
      auto bd = m.binding.find(var);
      b.binding = (bd == m.binding.end() ? 0 : bd->second) + e;
      // GL qualifies members with the block name when the block has an
      // instance name (GLSL 4.60 section 4.3.9).
      auto inst = m.names.find(var);
      const std::string prefix = inst != m.names.end() && !inst->second.empty() ? b.name : "";
      AGX_CHECK(add_members(m, type, prefix, 0, {}, b, 0));
      for (const BlockMember& mb : b.members)
        b.size_B = std::max(b.size_B, mb.offset_B + (mb.array_length - 1) * mb.array_stride_B + mb.size_B);
      b.size_B = (b.size_B + 15) & ~15u;
      if (count) b.name += "[" + std::to_string(e) + "]";
      blocks.push_back(std::move(b));
    }
  }
  return blocks;
}

Result<std::vector<uint32_t>> bind_uniform_blocks_by_index(std::span<const uint32_t> spirv) {
  AGX_TRY(Module m, scan_blocks(spirv));
  std::map<uint32_t, uint32_t> index;  // uniform block variable -> its (first) block index
  uint32_t next = 0;
  for (const auto& [var, ptr] : m.uniform_vars) {
    auto p = m.types.find(ptr);
    if (p == m.types.end()) continue;
    if (m.block.count(p->second.elem)) index.emplace(var, next++);
    // An array of blocks: one index per element, the elements at
    // consecutive binding points from the first.
    else if (auto a = m.types.find(p->second.elem);
             a != m.types.end() && a->second.op == spv::Op::OpTypeArray && m.block.count(a->second.elem)) {
      index.emplace(var, next);
      next += a->second.count;
    }
  }
  std::vector<uint32_t> out(spirv.begin(), spirv.begin() + 5);
  std::set<uint32_t> bound;
  size_t last_annotation = 0;  // where new decorations go: after the module's last OpDecorate
  AGX_CHECK(compiler::spirv::for_each_instruction(spirv, [&](const compiler::spirv::SpirvInstruction& in) -> Status {
    const size_t from = out.size();
    out.insert(out.end(), spirv.begin() + ptrdiff_t(in.at), spirv.begin() + ptrdiff_t(in.at + 1 + in.w.size()));
    const spv::Op op = in.op;
    if (op == spv::Op::OpDecorate || op == spv::Op::OpMemberDecorate || op == spv::Op::OpDecorationGroup ||
        op == spv::Op::OpGroupDecorate || op == spv::Op::OpGroupMemberDecorate)
      last_annotation = out.size();
    if (op == spv::Op::OpDecorate && in.w.size() >= 3 && spv::Decoration(in.w[1]) == spv::Decoration::Binding) {
      auto i = index.find(in.w[0]);
      if (i != index.end()) out[from + 3] = i->second, bound.insert(i->first);
    }
    return {};
  }));
  std::vector<uint32_t> added;
  for (const auto& [var, i] : index)
    if (!bound.count(var))
      added.insert(added.end(), {(4u << 16) | uint32_t(spv::Op::OpDecorate), var, uint32_t(spv::Decoration::Binding), i});
  if (!added.empty()) {
    if (last_annotation == 0) return Error::parse("SPIR-V: uniform blocks in a module without decorations");
    out.insert(out.begin() + ptrdiff_t(last_annotation), added.begin(), added.end());
  }
  return out;
}

Result<MemberAt> find_block_member(const std::vector<UniformBlock>& blocks, const std::string& name) {
  std::string base = name;
  uint32_t index = 0;
  bool indexed = false;
  if (!name.empty() && name.back() == ']') {
    const size_t open = name.rfind('[');
    if (open == std::string::npos) return Error::invalid_argument("cannot parse uniform \"{}\"", name);
    index = uint32_t(std::strtoul(name.c_str() + open + 1, nullptr, 0));
    base = name.substr(0, open);
    indexed = true;
  }
  for (const UniformBlock& b : blocks)
    for (const BlockMember& m : b.members) {
      // An array of structures lists each element: "s[1].x" matches whole.
      if (m.name == name) return MemberAt{&b, &m, m.offset_B};
      if (m.name != base) continue;
      if (indexed && m.array_stride_B == 0 && index != 0)
        return Error::invalid_argument("uniform \"{}\": \"{}\" is not an array", name, base);
      if (index >= m.array_length)
        return Error::invalid_argument("uniform \"{}\": element {} of {}", name, index, m.array_length);
      return MemberAt{&b, &m, m.offset_B + index * m.array_stride_B};
    }
  return Error::not_found("uniform \"{}\" is not a uniform block member", name);
}

}  // namespace agx::runtime
