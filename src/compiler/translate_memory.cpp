// SPIR-V variables, access chains, loads, stores and atomics -> IR, on the
// compute ABI of docs/compiler.md: buffer base addresses in uniform pairs,
// push constants / loose uniforms in uniforms, shared variables in
// threadgroup memory, built-ins in special registers.
#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "compiler/regs.h"
#include "compiler/translate.h"

namespace agx::compiler::detail {

using spv::StorageClass;
using Kind = spirv::Type::Kind;

namespace {
// Special registers of the compute built-ins (dougallj/applegpu SR_NAMES,
// as the usc unit's Placement fills them): threadgroup_position_in_grid
// sr0-2, thread_position_in_threadgroup sr48-50,
// thread_index_in_threadgroup sr51, thread_index_in_simdgroup sr52,
// simdgroup_index_in_threadgroup sr53, thread_position_in_grid sr80-82.
int builtin_sr(int32_t builtin) {
  switch (static_cast<spv::BuiltIn>(builtin)) {
    case spv::BuiltIn::GlobalInvocationId: return 80;
    case spv::BuiltIn::LocalInvocationId: return 48;
    case spv::BuiltIn::WorkgroupId: return 0;
    case spv::BuiltIn::LocalInvocationIndex: return 51;
    case spv::BuiltIn::SubgroupLocalInvocationId: return 52;
    case spv::BuiltIn::SubgroupId: return 53;
    default: return -1;
  }
}
}  // namespace

// Natural (std430-like) size and alignment of a type, for threadgroup
// memory, which has no explicit layout in SPIR-V. `widened` (local
// variables): an 8/16-bit scalar takes a whole word, its widened 32-bit
// form (docs/compiler.md, "Local arrays and the stack frame").
uint32_t Translator::natural_size_B(uint32_t t, uint32_t* align_B, bool widened) const {
  const spirv::Type& ty = type(t);
  uint32_t a = 4, size = 4;
  switch (ty.kind) {
    case Kind::bool_: case Kind::int_: case Kind::float_:
      size = a = ty.kind != Kind::bool_ && ty.width < 32 && !widened ? ty.width / 8 : std::max(4u, ty.width / 8);  // 8/16-bit: 1/2 bytes
      break;
    case Kind::vector: {
      uint32_t e = natural_size_B(ty.elem, nullptr, widened);
      size = e * ty.count;
      a = e * (ty.count == 3 ? 4 : ty.count);
      break;
    }
    case Kind::matrix:  // columns like an array of vectors (vec3 columns 16 bytes apart)
    case Kind::array:
      size = natural_stride_B(ty.elem, widened) * ty.count;
      natural_size_B(ty.elem, &a, widened);
      break;
    case Kind::struct_: {
      size = 0;
      a = 4;
      for (uint32_t mem : ty.members) {
        uint32_t ma = 4;
        uint32_t ms = natural_size_B(mem, &ma, widened);
        size = (size + ma - 1) / ma * ma + ms;
        a = std::max(a, ma);
      }
      size = (size + a - 1) / a * a;
      break;
    }
    default: break;
  }
  if (align_B) *align_B = a;
  return size;
}

uint32_t Translator::natural_stride_B(uint32_t elem, bool widened) const {
  uint32_t ea = 4;
  const uint32_t e = natural_size_B(elem, &ea, widened);
  return (e + ea - 1) / ea * ea;
}

// OpenGL SPIR-V leaves ArrayStride off atomic counter arrays (the counters
// are 4 bytes apart, GLSL 4.60 4.4.6.1) and loose uniform arrays: those
// get their natural stride, loose uniforms the loose layout's
// (loose_size_B: the one rule, LooseUniform::array_strides_B tells the
// runtime, docs/compiler.md).
Result<uint32_t> Translator::explicit_array_stride_B(const Ptr& p, uint32_t t, const spirv::Inst& in) const {
  const spirv::Type& ty = type(t);
  if (ty.array_stride) return ty.array_stride;
  const bool loose = p.space == Ptr::Space::push && p.uniform == abi_.push_constants_uniform && !abi_.loose_uniforms.empty();
  bool counters = false;
  for (const Resource& r : abi_.resources)
    counters |= p.space == Ptr::Space::buffer && r.uniform == p.uniform && r.kind == Resource::Kind::atomic_counter;
  if (!(loose || counters) || ty.kind != Kind::array) return unsupported(in, "array without an ArrayStride decoration");
  return loose ? loose_stride_B(ty.elem) : natural_stride_B(ty.elem);
}

// A loose uniform's bytes: a matrix its columns packed, column after column
// (as glUniformMatrix*fv / *dv take them), an array its elements
// loose_stride_B apart, other types their natural size.
uint32_t Translator::loose_size_B(uint32_t t) const {
  const spirv::Type& ty = type(t);
  if (ty.kind == Kind::matrix) return flat_count(t) * (holds_doubles(t) ? 8 : 4);
  if (ty.kind == Kind::array) return ty.count * loose_stride_B(ty.elem);
  uint32_t align = 4;
  return natural_size_B(t, &align);
}

// The step between a loose array's elements: a scalar or vector its
// natural stride (a vec3 16 bytes, a dvec3 32), a matrix or an array its
// loose size (a mat3 36 bytes, a dmat2x3 48: 8-byte multiples with
// doubles, so each element's doubles stay 8-byte aligned).
uint32_t Translator::loose_stride_B(uint32_t elem) const {
  const Kind k = type(elem).kind;
  return k == Kind::matrix || k == Kind::array ? loose_size_B(elem) : natural_stride_B(elem);
}

Status Translator::setup_resources() {
  resource_uniform_.assign(m_.bound, -1);
  loose_uniform_.assign(m_.bound, UINT32_MAX);
  shared_offset_B_.assign(m_.bound, UINT32_MAX);
  struct Res { uint32_t set, binding, var; Resource::Kind kind; uint32_t element = 0, array_size = 0; };
  std::vector<Res> res;
  std::vector<uint32_t> loose;
  uint32_t push_var = 0;
  uint32_t shared_B = 0;
  for (uint32_t v : m_.globals) {
    const spirv::Variable& var = m_.variables[v];
    const spirv::Decorations& d = m_.decorations[v];
    uint32_t pointee = type(var.type).elem;
    switch (var.storage) {
      case StorageClass::StorageBuffer: case StorageClass::Uniform: {
        // A descriptor array: one resource per element (Vulkan: elements
        // of one binding; OpenGL: consecutive binding points).
        uint32_t count = 0, block = pointee;
        if (type(pointee).kind == Kind::array && type(type(pointee).elem).kind == Kind::struct_) {
          count = type(pointee).count;
          block = type(pointee).elem;
        }
        if (type(block).kind != Kind::struct_ || (block != pointee && !count))
          return Error::unsupported("{}: buffer variable %{} ({}) is neither a block nor a sized array of blocks",
                                    o_.file_name, v, m_.names[v]);
        bool ssbo = var.storage == StorageClass::StorageBuffer || type(block).buffer_block;
        uint32_t set = d.set == UINT32_MAX ? 0 : d.set, binding = d.binding == UINT32_MAX ? 0 : d.binding;
        Resource::Kind kind = ssbo ? Resource::Kind::storage_buffer : Resource::Kind::uniform_buffer;
        for (uint32_t i = 0; i < std::max(count, 1u); ++i)
          res.push_back({set, binding + (o_.env == TargetEnv::opengl ? i : 0), v, kind, i, count});
        break;
      }
      case StorageClass::AtomicCounter:
        res.push_back({0, d.binding == UINT32_MAX ? 0 : d.binding, v, Resource::Kind::atomic_counter});
        break;
      case StorageClass::PushConstant: push_var = v; break;
      case StorageClass::UniformConstant: {
        Kind k = type(pointee).kind;
        if (k == Kind::array || k == Kind::runtime_array) k = type(type(pointee).elem).kind;  // arrays of images or samplers: setup_images
        if (k == Kind::other) break;  // other opaque types: only an error if used
        if (k == Kind::image || k == Kind::sampled_image || k == Kind::sampler) break;  // setup_images
        if (d.builtin >= 0) break;  // GL_ARB_shader_ballot's gl_SubGroupSizeARB: a built-in, not a uniform
        loose.push_back(v);
        break;
      }
      case StorageClass::Workgroup: {
        uint32_t align = 4;
        uint32_t size = natural_size_B(pointee, &align);
        align = std::max(align, 16u);
        shared_B = (shared_B + align - 1) / align * align;
        shared_offset_B_[v] = shared_B;
        shared_B += size;
        break;
      }
      default: break;
    }
  }
  // Buffers in (set, binding) order; atomic counters of one binding share
  // one buffer.
  std::stable_sort(res.begin(), res.end(), [](const Res& a, const Res& b) {
    return std::tie(a.kind, a.set, a.binding, a.element) < std::tie(b.kind, b.set, b.binding, b.element);
  });
  // Fragment shaders keep u0..u7 for the epilog and the driver
  // (fragment.h); vertex shaders start after the prolog's (vertex.h).
  uint32_t next_u = o_.stage == Stage::fragment ? FragmentAbi::kFirstShaderUniform : first_uniform_;
  for (const Res& r : res) {
    int32_t existing = -1;
    for (const Resource& x : abi_.resources)
      if (x.kind == r.kind && x.set == r.set && x.binding == r.binding && x.array_element == r.element)
        existing = static_cast<int32_t>(x.uniform);
    uint32_t u = existing >= 0 ? static_cast<uint32_t>(existing) : next_u;
    if (r.array_size) {
      auto& elems = resource_array_uniforms_[r.var];
      if (elems.size() <= r.element) elems.resize(r.element + 1);
      elems[r.element] = u;
    }
    if (r.element == 0) resource_uniform_[r.var] = static_cast<int32_t>(u);
    if (existing >= 0) continue;
    // The instance name, or the block's name for `buffer B { ... };`
    // (a descriptor array's element: the block's name).
    std::string name = m_.names[r.var];
    uint32_t pointee = type(m_.variables[r.var].type).elem;
    if (name.empty()) name = m_.names[r.array_size ? type(pointee).elem : pointee];
    Resource out{r.kind, r.set, r.binding, next_u, name};
    out.array_element = r.element;
    out.array_size = r.array_size;
    abi_.resources.push_back(std::move(out));
    next_u += 2;
  }
  abi_.workgroup_count_uniform = next_u;
  next_u += 4;  // x, y, z, padding: the push area starts 64-bit aligned
  abi_.push_constants_uniform = next_u;
  if (push_var) {
    uint32_t t = type(m_.variables[push_var].type).elem;
    const spirv::Type& st = type(t);
    uint32_t size = 0;
    for (size_t i = 0; i < st.members.size(); ++i) {
      uint32_t off = i < st.member_offsets.size() ? st.member_offsets[i] : UINT32_MAX;
      if (off == UINT32_MAX) return Error::unsupported("{}: push constant member {} has no Offset", o_.file_name, i);
      size = std::max(size, off + natural_size_B(st.members[i], nullptr));
    }
    abi_.push_constants_size_B = (size + 3) / 4 * 4;
  }
  std::stable_sort(loose.begin(), loose.end(), [&](uint32_t a, uint32_t b) {
    return m_.decorations[a].location < m_.decorations[b].location;
  });
  uint32_t loose_B = abi_.push_constants_size_B;
  for (uint32_t v : loose) {
    uint32_t pointee = type(m_.variables[v].type).elem;
    const uint32_t size = loose_size_B(pointee);
    loose_B = (loose_B + 3) / 4 * 4;
    if (is_wide64(pointee)) loose_B = (loose_B + 7) / 8 * 8;  // an even u<N>: a uniform pair
    loose_uniform_[v] = loose_B / 4;  // a word of the block until the block is placed
    LooseUniform lu{m_.names[v], m_.decorations[v].location, loose_uniform_[v], size, {}};
    for (uint32_t a = pointee; type(a).kind == Kind::array; a = type(a).elem)
      lu.array_strides_B.push_back(loose_stride_B(type(a).elem));
    abi_.loose_uniforms.push_back(std::move(lu));
    loose_B += size;
  }
  abi_.push_constants_size_B = loose_B;
  place_push_block();
  abi_.threadgroup_memory_B = shared_B;
  if (shared_B > 32 * 1024) return Error::unsupported("{}: {} bytes of shared variables (at most 32768)", o_.file_name, shared_B);
  abi_.workgroup_size = m_.local_size;
  if (abi_.uniform_count > kUniformRegisters)
    return Error::unsupported("{}: needs {} uniform registers (at most {}) with the push constant / loose uniform block's address",
                              o_.file_name, abi_.uniform_count, kUniformRegisters);
  return {};
}

// The block in uniform registers from push_constants_uniform when it fits,
// else in memory: its address pair there, its words numbered from
// Abi::kPushMemoryFirstWord (docs/compiler.md, "Push constants in memory").
static_assert(Abi::kPushMemoryFirstWord >= kUniformRegisters, "the block's words in memory are past the uniform file");
void Translator::place_push_block() {
  const uint32_t words = (abi_.push_constants_size_B + 3) / 4;
  if (abi_.push_constants_uniform + words > kUniformRegisters) {
    abi_.push_memory_uniform = abi_.push_constants_uniform;  // 64-bit aligned (the padding word above)
    abi_.uniform_count = abi_.push_memory_uniform + 2;
    abi_.push_constants_uniform = Abi::kPushMemoryFirstWord;
  } else {
    abi_.uniform_count = abi_.push_constants_uniform + words;
  }
  for (uint32_t& u : loose_uniform_)
    if (u != UINT32_MAX) u += abi_.push_constants_uniform;
  for (LooseUniform& lu : abi_.loose_uniforms) lu.uniform += abi_.push_constants_uniform;
}


Result<Ptr> Translator::variable_pointer(uint32_t base, const spirv::Inst& in) {
  Ptr p;
  const spirv::Variable& var = m_.variables[base];
  p.type = type(var.type).elem;
  switch (var.storage) {
    case StorageClass::StorageBuffer: case StorageClass::Uniform: case StorageClass::AtomicCounter:
      p.space = Ptr::Space::buffer;
      p.uniform = static_cast<uint32_t>(resource_uniform_[base]);
      if (var.storage == StorageClass::AtomicCounter && m_.decorations[base].offset != UINT32_MAX)
        p.const_B = m_.decorations[base].offset;
      break;
    case StorageClass::PushConstant: p.space = Ptr::Space::push; p.uniform = abi_.push_constants_uniform; break;
    case StorageClass::Workgroup: p.space = Ptr::Space::shared; p.const_B = shared_offset_B_[base]; break;
    case StorageClass::Input: case StorageClass::Output:
      if (local_index_[base] >= 0) {  // a vertex attribute or output (translate_vertex.cpp), a fragment in/out (translate_fragment.cpp)
        p.space = Ptr::Space::local;
        p.local = static_cast<uint32_t>(local_index_[base]);
        break;
      }
      if (var.storage == StorageClass::Output) return unsupported(in, "an output variable of this stage");
      p.space = Ptr::Space::builtin;
      p.builtin = m_.decorations[base].builtin;
      break;
    case StorageClass::Function: case StorageClass::Private:
      if (local_index_[base] < 0) return unsupported(in, "a local variable that was not laid out");
      p.space = Ptr::Space::local;
      p.local = static_cast<uint32_t>(local_index_[base]);
      break;
    case StorageClass::UniformConstant:
      if (m_.decorations[base].builtin >= 0) {
        p.space = Ptr::Space::builtin;
        p.builtin = m_.decorations[base].builtin;
        break;
      }
      if (loose_uniform_[base] == UINT32_MAX) return unsupported(in, "this image or sampler uniform is not supported (arrays of separate samplers, runtime-sized arrays of images)");
      p.space = Ptr::Space::push;
      p.uniform = abi_.push_constants_uniform;
      p.const_B = (loose_uniform_[base] - abi_.push_constants_uniform) * 4;
      break;
    default:
      return unsupported(in, fmt::format("pointer into storage class {} is not supported", static_cast<unsigned>(var.storage)));
  }
  return p;
}

// choices[index]: compare-and-select from the last choice down, so an
// index out of range reads the last one (GLSL leaves it undefined).
Src Translator::select_by_index(const Src& index, const std::vector<Src>& choices) {
  Src r = choices.back();
  for (size_t i = choices.size() - 1; i-- > 0;) r = b_.select(Cond::ueq, false, index, Src::immediate(i), choices[i], r);
  return r;
}

// The value of uniform `plus` words into the element `index` picks.
Src Translator::select_uniform(const Src& index, const std::vector<uint32_t>& uniforms, uint32_t plus) {
  std::vector<Src> choices;
  for (uint32_t u : uniforms) choices.push_back(Src::uniform(u + plus));
  return select_by_index(index, choices);
}

Src Translator::buffer_base(const Ptr& p) {
  if (p.desc_index.kind == Src::Kind::none) return Src::uniform(p.uniform, 64);
  Src lo = select_uniform(p.desc_index, p.desc_uniforms, 0);
  return pack64(lo, select_uniform(p.desc_index, p.desc_uniforms, 1));
}

Status Translator::access_chain(const spirv::Inst& in) {
  const auto& w = in.w;
  uint32_t base = w[2];
  if (base >= m_.bound) return unsupported(in, "access chain base out of range");
  Ptr p;
  if (m_.is_variable[base]) {
    AGX_TRY(auto vp, variable_pointer(base, in));
    p = std::move(vp);
  } else {
    AGX_TRY(auto bv, get(base, in));
    if (bv->kind != TVal::Kind::ptr) return unsupported(in, "access chain base is not a pointer");
    p = bv->ptr;
  }
  bool explicit_layout = p.space == Ptr::Space::buffer || p.space == Ptr::Space::push;
  const bool widened = p.space == Ptr::Space::local;  // 8/16-bit scalars a word each
  size_t first = 3;
  if (auto da = resource_array_uniforms_.find(base); m_.is_variable[base] && da != resource_array_uniforms_.end()) {
    // A descriptor array's element: a constant index names its uniform
    // pair; a run-time one (dynamically uniform or nonuniformEXT) picks the
    // pair with select chains at each access (buffer_base).
    if (w.size() < 4) return unsupported(in, "access chain to a whole descriptor array");
    AGX_TRY(auto idx, scalar(w[3], in));
    const std::vector<uint32_t>& elems = da->second;
    if (idx.is_imm()) {
      if (idx.imm >= elems.size()) return unsupported(in, fmt::format("descriptor array index {} out of range ({} elements)", idx.imm, elems.size()));
      p.uniform = elems[idx.imm];
    } else {
      p.desc_uniforms = elems;
      p.desc_index = idx;
    }
    p.type = type(p.type).elem;
    first = 4;
  }
  for (size_t k = first; k < w.size(); ++k) {
    AGX_TRY(auto idx, scalar(w[k], in));
    const spirv::Type& ty = type(p.type);
    if (ty.kind == Kind::struct_) {
      if (!idx.is_imm() || idx.imm >= ty.members.size()) return unsupported(in, "struct member index is not a constant in range");
      uint32_t off = 0;
      if (explicit_layout) {
        off = idx.imm < ty.member_offsets.size() ? ty.member_offsets[idx.imm] : UINT32_MAX;
        if (off == UINT32_MAX) return unsupported(in, "struct member without an Offset decoration");
      } else {
        for (uint32_t j = 0; j <= idx.imm; ++j) {
          uint32_t ma = 4;
          uint32_t ms = natural_size_B(ty.members[j], &ma, widened);
          off = (off + ma - 1) / ma * ma;
          if (j < idx.imm) off += ms;
        }
      }
      p.const_B += off;
      p.type = ty.members[idx.imm];
      // The member's matrix layout holds for a matrix or an array of them.
      p.matrix_stride_B = idx.imm < ty.member_matrix_stride.size() ? ty.member_matrix_stride[idx.imm] : 0;
      p.row_major = idx.imm < ty.member_row_major.size() && ty.member_row_major[idx.imm];
      p.comp_stride_B = 0;
      continue;
    }
    uint32_t stride = 0, comp_stride = 0;
    if (ty.kind == Kind::matrix) {
      if (p.space == Ptr::Space::builtin) return unsupported(in, "access chain into a matrix built-in");
      AGX_TRY(auto lay, matrix_layout(p.space, p.matrix_stride_B, p.row_major, p.type, in));
      stride = lay.col_stride_B;
      comp_stride = lay.comp_stride_B;
    } else if (ty.kind == Kind::array || ty.kind == Kind::runtime_array) {
      if (explicit_layout) {
        AGX_TRY(stride, explicit_array_stride_B(p, p.type, in));
      } else {
        stride = natural_stride_B(ty.elem, widened);
      }
    } else if (ty.kind == Kind::vector) {
      stride = p.comp_stride_B ? p.comp_stride_B : small_width(ty.elem) && !widened ? small_width(ty.elem) / 8 : std::max(4u, type(ty.elem).width / 8);
    } else {
      return unsupported(in, "access chain through a scalar");
    }
    if (p.space == Ptr::Space::local) {
      // Indices clamped to the last element (translate_local.cpp).
      idx = local_clamp(idx, ty.count);
      if (idx.is_imm()) p.const_B += static_cast<uint32_t>(idx.imm) * stride;
      else {
        p.terms.push_back({idx, stride});
        p.dynamic_max_B += (ty.count - 1) * stride;
      }
    } else if (p.space == Ptr::Space::builtin) {
      if (!idx.is_imm()) return unsupported(in, "dynamic index into a built-in");
      p.const_B += static_cast<uint32_t>(idx.imm) * 4;
    } else if (idx.is_imm()) {
      p.const_B += static_cast<uint32_t>(idx.imm) * stride;
    } else {
      p.terms.push_back({idx, stride});
    }
    p.type = ty.elem;
    p.comp_stride_B = comp_stride;  // a matrix column's scalars; otherwise packed
  }
  TVal v;
  v.kind = TVal::Kind::ptr;
  v.type = w[0];
  v.ptr = std::move(p);
  vals_[w[1]] = std::move(v);
  return {};
}

// Element index for device memory in units of elem_B: the offset is
// const_B + sum(index * stride), every stride a multiple of elem_B.
Result<Src> Translator::buffer_index(const Ptr& p, uint32_t elem_B, const spirv::Inst& in, uint32_t* shift) {
  if (p.const_B % elem_B) return unsupported(in, "unaligned buffer access");
  // index * 2 or * 4 elements: the memory instruction's own left shift
  // (field s) scales the index (vec2/vec4 arrays), no multiply needed.
  if (shift && p.const_B == 0 && p.terms.size() == 1 && p.terms[0].second % elem_B == 0) {
    uint32_t k = p.terms[0].second / elem_B;
    if (k == 2 || k == 4) {
      *shift = k == 2 ? 1 : 2;
      return p.terms[0].first;
    }
  }
  Src acc = Src::immediate(p.const_B / elem_B);
  for (const auto& [idx, stride] : p.terms) {
    if (stride % elem_B) return unsupported(in, "array stride not a multiple of the element size");
    acc = b_.imad(idx, Src::immediate(stride / elem_B), acc);
  }
  return acc;
}

Result<Src> Translator::shared_address(const Ptr& p) {
  Src acc = Src::immediate(p.const_B);
  for (const auto& [idx, stride] : p.terms) acc = b_.imad(idx, Src::immediate(stride), acc);
  return acc;
}

Src gather(Builder& b, const std::vector<Src>& c) {
  // One component: as it is, unless it is the first of a wider value (a
  // store would take that whole value), which gets a register of its own.
  if (c.size() == 1 && c[0].is_value()) {
    const Value& v = b.function().values[c[0].value];
    if (c[0].comp == 0 && c[0].bits == v.bits && v.comps > 1)
      return Src::val(b.def(Op::mov, {c[0]}), 32);
    return c[0];
  }
  // Already a whole vector in order (a loaded vector stored again).
  bool whole = c[0].is_value() && b.function().values[c[0].value].comps == c.size();
  for (size_t i = 0; whole && i < c.size(); ++i)
    whole = c[i].is_value() && c[i].value == c[0].value && c[i].comp == i && !c[i].neg && !c[i].abs && c[i].bits == 32;
  if (whole) return Src::val(c[0].value, 32, 0);
  ValueId v = b.def(Op::collect, c, 32, static_cast<uint8_t>(c.size()));
  return Src::val(v, 32);
}

Status Translator::load(const spirv::Inst& in) {
  const auto& w = in.w;
  AGX_TRY(auto pv, get(w[2], in));
  if (pv->kind != TVal::Kind::ptr) return unsupported(in, "load through a non-pointer");
  Ptr p = pv->ptr;
  uint32_t rtype = w[0];
  TVal out = TVal::data(rtype);
  unsigned n = components(rtype);
  bool boolean = is_bool(rtype);
  if (p.space == Ptr::Space::local) {
    AGX_TRY(auto c, local_load(p, in));
    out.c = std::move(c);
    if (boolean && n == 1) { out.cmp = Cmp{Cond::ueq, true, out.c[0], Src::immediate(0)}; out.c.clear(); }
    vals_[w[1]] = std::move(out);
    return {};
  }
  auto finish_bool = [&]() {
    if (boolean && n == 1) { out.cmp = Cmp{Cond::ueq, true, out.c[0], Src::immediate(0)}; out.c.clear(); }
  };
  if (p.space == Ptr::Space::builtin) {
    int32_t bi = p.builtin;
    unsigned first = p.const_B / 4;
    if (!n) return unsupported(in, "load of a composite built-in");
    for (unsigned i = 0; i < n; ++i) {
      unsigned c = first + i;
      if (o_.stage == Stage::fragment) {
        AGX_TRY(auto s, fragment_builtin(bi, c, in));
        out.c.push_back(s);
        continue;
      }
      if (bi == static_cast<int32_t>(spv::BuiltIn::NumWorkgroups)) {
        out.c.push_back(Src::uniform(abi_.workgroup_count_uniform + c));
        continue;
      }
      if (auto sg = subgroup_builtin(bi, c)) {  // translate_subgroup.cpp
        out.c.push_back(*sg);
        continue;
      }
      if (auto vb = vertex_builtin(bi)) {  // translate_vertex.cpp
        out.c.push_back(*vb);
        continue;
      }
      int sr = builtin_sr(bi);
      if (sr < 0) return unsupported(in, fmt::format("built-in {} is not supported", bi));
      out.c.push_back(Src::val(b_.def(Op::get_sr, {}, 32, 1, static_cast<uint64_t>(sr + c))));
    }
    vals_[w[1]] = std::move(out);
    return {};
  }
  if (type(rtype).kind == Kind::matrix && type(p.type).kind == Kind::matrix) {
    if (holds_doubles(rtype)) return load_double_matrix(in, p);  // translate_fp64_memory.cpp
    if (small_width(element_scalar(rtype))) {  // f16mat: scalar by scalar (translate_struct_copy.cpp)
      AGX_TRY(auto c, load_composite(p, in));
      out.c = std::move(c);
      vals_[w[1]] = std::move(out);
      return {};
    }
    AGX_CHECK(load_matrix(in, p, out));
    vals_[w[1]] = std::move(out);
    return {};
  }
  if (is_double(rtype) && n > 1 && p.comp_stride_B) return load_double_vector(in, p);  // a dmat column
  if (n > 1 && p.comp_stride_B && p.comp_stride_B != 4 && !small_width(rtype)) {
    // A column of a row-major matrix: its scalars a row apart.
    if (type(scalar_type(rtype)).width != 32) return unsupported(in, "64-bit load (32-bit only)");
    AGX_TRY(auto c, load_vector_at(p, n, p.comp_stride_B, in));
    out.c = std::move(c);
    vals_[w[1]] = std::move(out);
    return {};
  }
  if (type(scalar_type(rtype)).kind != Kind::bool_ && !n) {
    // A whole struct/array: one load per scalar (translate_struct_copy.cpp).
    if (p.space != Ptr::Space::buffer && p.space != Ptr::Space::push && p.space != Ptr::Space::shared)
      return unsupported(in, "composite load from this storage class");
    AGX_TRY(auto c, load_composite(p, in));
    out.c = std::move(c);
    vals_[w[1]] = std::move(out);
    return {};
  }
  if (is_int64(rtype) || is_double(rtype)) return load64(in, p);  // translate_int64_memory.cpp
  if (small_width(rtype)) return load_small(in, p);  // translate_small_memory.cpp
  if (type(scalar_type(rtype)).kind != Kind::bool_ && type(scalar_type(rtype)).width != 32)
    return unsupported(in, fmt::format("{}-bit load (32-bit only)", type(scalar_type(rtype)).width));
  AGX_TRY(p, memory_view(p, in));  // a block in memory: a buffer load
  switch (p.space) {
    case Ptr::Space::push:
      for (unsigned i = 0; i < n; ++i) {  // translate_push_dynamic.cpp: select chains for run-time indices
        AGX_TRY(auto u, push_word(p, 4 * i, in));
        out.c.push_back(u);
      }
      break;
    case Ptr::Space::buffer: {
      uint32_t shift = 0;
      AGX_TRY(auto idx, buffer_index(p, 4, in, &shift));
      ValueId d = b_.def(Op::device_load, {buffer_base(p), idx}, 32, static_cast<uint8_t>(n), shift);
      for (unsigned i = 0; i < n; ++i) out.c.push_back(Src::val(d, 32, static_cast<uint8_t>(i)));
      break;
    }
    case Ptr::Space::shared: {
      AGX_TRY(auto addr, shared_address(p));
      ValueId d = b_.def(Op::local_load, {addr}, 32, static_cast<uint8_t>(n));
      for (unsigned i = 0; i < n; ++i) out.c.push_back(Src::val(d, 32, static_cast<uint8_t>(i)));
      break;
    }
    default: return unsupported(in, "load from this storage class");
  }
  finish_bool();
  vals_[w[1]] = std::move(out);
  return {};
}

Status Translator::store(const spirv::Inst& in) {
  const auto& w = in.w;
  bool atomic_store = in.op == spv::Op::OpAtomicStore;
  if (w.size() < (atomic_store ? 4u : 2u)) return Error::decode("{}: bad OpStore", o_.file_name);
  uint32_t ptr_id = w[0], val_id = atomic_store ? w[3] : w[1];
  AGX_TRY(auto pv, get(ptr_id, in));
  if (pv->kind != TVal::Kind::ptr) return unsupported(in, "store through a non-pointer");
  const Ptr p = pv->ptr;
  AGX_TRY(auto vv, get(val_id, in));
  std::vector<Src> data;
  if (vv->cmp) data.push_back(materialize(*vv->cmp));
  else data = vv->c;
  if (data.empty()) return unsupported(in, "store of an empty value");
  if (p.space == Ptr::Space::local) return local_store(p, data, in);
  unsigned n = components(p.type);
  if (type(p.type).kind == Kind::matrix && holds_doubles(p.type)) return store_double_matrix(in, p, data);
  if (type(p.type).kind == Kind::matrix && small_width(element_scalar(p.type))) return store_composite(in, p, data);  // f16mat
  if (type(p.type).kind == Kind::matrix) return store_matrix(in, p, data);
  if (is_double(p.type) && n > 1 && p.comp_stride_B) return store_double_vector(in, p, data);  // a dmat column
  if (n > 1 && p.comp_stride_B && p.comp_stride_B != 4 && !small_width(p.type)) {
    if (data.size() != n) return unsupported(in, "store of a value of another shape");
    return store_vector_at(p, data, p.comp_stride_B, in);
  }
  if (!n) return store_composite(in, p, data);  // a whole struct/array: translate_struct_copy.cpp
  if (is_int64(p.type) || is_double(p.type)) return store64(in, p, data);
  if (small_width(p.type)) return store_small(in, p, data);  // translate_small_memory.cpp
  if (type(scalar_type(p.type)).kind != Kind::bool_ && type(scalar_type(p.type)).width != 32)
    return unsupported(in, fmt::format("{}-bit store (32-bit only)", type(scalar_type(p.type)).width));
  if (data.size() != n) return unsupported(in, "store of a value of another shape");
  switch (p.space) {
    case Ptr::Space::buffer: {
      uint32_t shift = 0;
      AGX_TRY(auto idx, buffer_index(p, 4, in, &shift));
      b_.emit(Op::device_store, {gather(b_, data), buffer_base(p), idx}, shift);
      return {};
    }
    case Ptr::Space::shared: {
      AGX_TRY(auto addr, shared_address(p));
      b_.emit(Op::local_store, {gather(b_, data), addr});
      return {};
    }
    default: return unsupported(in, "store to a read-only or unsupported storage class");
  }
}

Status Translator::atomic(const spirv::Inst& in) {
  const auto& w = in.w;
  AGX_TRY(auto pv, get(w[2], in));
  if (pv->kind != TVal::Kind::ptr) return unsupported(in, "atomic on a non-pointer");
  const Ptr p = pv->ptr;
  if (is_int64(p.type)) return atomic64(in, p);
  // A float exchange moves the same 32 bits as an integer one.
  bool float_xchg = in.op == spv::Op::OpAtomicExchange && type(p.type).kind == Kind::float_;
  if ((type(p.type).kind != Kind::int_ && !float_xchg) || type(p.type).width != 32)
    return unsupported(in, "atomic on a non-32-bit-integer");
  AtomicOp op{};
  std::vector<Src> data;
  switch (in.op) {
    case spv::Op::OpAtomicIIncrement: op = AtomicOp::add; data.push_back(Src::immediate(1)); break;
    case spv::Op::OpAtomicIDecrement: op = AtomicOp::sub; data.push_back(Src::immediate(1)); break;
    case spv::Op::OpAtomicCompareExchange: {
      if (w.size() < 8) return Error::decode("{}: bad OpAtomicCompareExchange", o_.file_name);
      op = AtomicOp::cmpxchg;
      AGX_TRY(auto value, scalar(w[6], in));
      AGX_TRY(auto cmp, scalar(w[7], in));
      data = {value, cmp};  // the pair (new value, compare value)
      break;
    }
    default: {
      if (w.size() < 6) return Error::decode("{}: bad atomic", o_.file_name);
      AGX_TRY(auto value, scalar(w[5], in));
      data.push_back(value);
      switch (in.op) {
        case spv::Op::OpAtomicIAdd: op = AtomicOp::add; break;
        case spv::Op::OpAtomicISub: op = AtomicOp::sub; break;
        case spv::Op::OpAtomicExchange: op = AtomicOp::xchg; break;
        case spv::Op::OpAtomicUMin: op = AtomicOp::umin; break;
        case spv::Op::OpAtomicSMin: op = AtomicOp::imin; break;
        case spv::Op::OpAtomicUMax: op = AtomicOp::umax; break;
        case spv::Op::OpAtomicSMax: op = AtomicOp::imax; break;
        case spv::Op::OpAtomicAnd: op = AtomicOp::and_; break;
        case spv::Op::OpAtomicOr: op = AtomicOp::or_; break;
        case spv::Op::OpAtomicXor: op = AtomicOp::xor_; break;
        default: return unsupported(in, "atomic operation");
      }
    }
  }
  // Data in registers (a pair for cmpxchg).
  Src d = data.size() == 1 && data[0].is_value() ? data[0]
                                                  : gather(b_, data.size() == 1 ? data : data);
  if (data.size() == 1 && !data[0].is_value()) d = Src::val(b_.def(Op::mov, {data[0]}));
  ValueId result = b_.function().new_value();
  Instr atom;
  atom.imm = static_cast<uint64_t>(op);
  atom.dest = result;
  atom.line = b_.line;
  if (p.space == Ptr::Space::buffer) {
    AGX_TRY(auto idx, buffer_index(p, 4, in));
    atom.op = Op::atomic;
    atom.srcs = {buffer_base(p), idx, d};
  } else if (p.space == Ptr::Space::shared) {
    AGX_TRY(auto addr, shared_address(p));
    atom.op = Op::local_atomic;
    atom.srcs = {addr, d};
  } else {
    return unsupported(in, "atomic on this storage class");
  }
  b_.function().instrs.push_back(std::move(atom));
  TVal out = TVal::data(w[0]);
  out.c.push_back(Src::val(result));
  vals_[w[1]] = std::move(out);
  return {};
}

Result<Src> Translator::word_address(const Ptr& p, const spirv::Inst& in) {
  if (p.space == Ptr::Space::buffer) return buffer_index(p, 4, in);
  return shared_address(p);
}

}  // namespace agx::compiler::detail
