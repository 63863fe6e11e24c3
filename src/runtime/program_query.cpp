#include "runtime/program_query.h"

#include <map>
#include <set>
#include <vector>

#include "compiler/spirv_walk.h"

namespace agx::runtime {
namespace {

struct TypeInfo {
  spv::Op op = spv::Op::OpNop;
  uint32_t elem = 0;           // array element / pointer pointee
  uint32_t length_id = 0;      // OpTypeArray length constant
  std::vector<uint32_t> members;
  spv::StorageClass storage{};
};

struct Scan {
  std::map<uint32_t, TypeInfo> types;
  std::map<uint32_t, uint64_t> constants;  // 32-bit integer constants
  std::map<uint32_t, std::pair<uint32_t, spv::StorageClass>> globals;  // id -> (pointer type, class)
  std::set<uint32_t> block, buffer_block;
  std::map<uint32_t, uint32_t> binding;
  std::set<uint32_t> used;
};

bool is_atomic_op(spv::Op op) {
  auto o = uint32_t(op);
  return (o >= uint32_t(spv::Op::OpAtomicLoad) && o <= uint32_t(spv::Op::OpAtomicXor)) ||
         op == spv::Op::OpAtomicFAddEXT || op == spv::Op::OpAtomicFMinEXT || op == spv::Op::OpAtomicFMaxEXT;
}

// The operands of `op` that are pointers a function uses (Logical
// addressing: a variable reaches every use through one of these).
void note_uses(spv::Op op, std::span<const uint32_t> w, std::set<uint32_t>& used) {
  auto at = [&](size_t i) {
    if (i < w.size()) used.insert(w[i]);
  };
  switch (op) {
    case spv::Op::OpStore:
    case spv::Op::OpCopyMemory:
      at(0);
      at(1);
      return;
    case spv::Op::OpLoad:
    case spv::Op::OpAccessChain:
    case spv::Op::OpInBoundsAccessChain:
    case spv::Op::OpPtrAccessChain:
    case spv::Op::OpArrayLength:
    case spv::Op::OpImageTexelPointer:
    case spv::Op::OpCopyObject:
      at(2);
      return;
    case spv::Op::OpAtomicStore:
      at(0);
      return;
    case spv::Op::OpFunctionCall:
      for (size_t i = 3; i < w.size(); ++i) at(i);
      return;
    default:
      if (is_atomic_op(op)) at(2);
      return;
  }
}

Result<Scan> scan_program(std::span<const uint32_t> words) {
  Scan s;
  bool in_function = false;
  AGX_CHECK(compiler::spirv::for_each_instruction(words, [&](const compiler::spirv::SpirvInstruction& in) -> Status {
    const spv::Op op = in.op;
    std::span<const uint32_t> w = in.w;
    auto need = [&](size_t n) { return in.need(n); };
    switch (op) {
      case spv::Op::OpFunction: in_function = true; break;
      case spv::Op::OpFunctionEnd: in_function = false; break;
      case spv::Op::OpDecorate:
        AGX_CHECK(need(2));
        if (w[1] == uint32_t(spv::Decoration::Block)) s.block.insert(w[0]);
        if (w[1] == uint32_t(spv::Decoration::BufferBlock)) s.buffer_block.insert(w[0]);
        if (w[1] == uint32_t(spv::Decoration::Binding)) {
          AGX_CHECK(need(3));
          s.binding[w[0]] = w[2];
        }
        break;
      case spv::Op::OpConstant:
        AGX_CHECK(need(3));
        s.constants[w[1]] = w[2];
        break;
      case spv::Op::OpTypeArray:
        AGX_CHECK(need(3));
        s.types[w[0]] = TypeInfo{op, w[1], w[2], {}, {}};
        break;
      case spv::Op::OpTypeRuntimeArray:
        AGX_CHECK(need(2));
        s.types[w[0]] = TypeInfo{op, w[1], 0, {}, {}};
        break;
      case spv::Op::OpTypeStruct:
        AGX_CHECK(need(1));
        s.types[w[0]] = TypeInfo{op, 0, 0, std::vector<uint32_t>(w.begin() + 1, w.end()), {}};
        break;
      case spv::Op::OpTypePointer:
        AGX_CHECK(need(3));
        s.types[w[0]] = TypeInfo{op, w[2], 0, {}, spv::StorageClass(w[1])};
        break;
      case spv::Op::OpVariable:
        AGX_CHECK(need(3));
        if (!in_function) s.globals[w[1]] = {w[0], spv::StorageClass(w[2])};
        break;
      default:
        if (in_function) note_uses(op, w, s.used);
        break;
    }
    return {};
  }));
  return s;
}

// More active uniforms than any GL implementation could list.
constexpr uint64_t kMaxEnumerated = uint64_t{1} << 31;

Result<uint64_t> enumerated_uncached(const Scan& s, uint32_t type, int depth, std::map<uint32_t, uint64_t>& memo);

// GL 4.6 section 7.3.1.1: the active resources one variable of `type`
// enumerates. Memoized by type: nested structures share their members'
// counts instead of walking them again.
Result<uint64_t> enumerated(const Scan& s, uint32_t type, int depth, std::map<uint32_t, uint64_t>& memo) {
  if (auto m = memo.find(type); m != memo.end()) return m->second;
  AGX_TRY(uint64_t n, enumerated_uncached(s, type, depth, memo));
  if (n > kMaxEnumerated) return Error::unsupported("SPIR-V: type %{} enumerates {} uniforms", type, n);
  memo[type] = n;
  return n;
}

Result<uint64_t> enumerated_uncached(const Scan& s, uint32_t type, int depth, std::map<uint32_t, uint64_t>& memo) {
  if (depth > 64) return Error::parse("SPIR-V: type %{} nests too deep", type);
  auto it = s.types.find(type);
  if (it == s.types.end()) return uint64_t{1};  // scalar, vector, matrix, opaque
  const TypeInfo& t = it->second;
  if (t.op == spv::Op::OpTypeStruct) {
    uint64_t n = 0;
    for (uint32_t m : t.members) {
      AGX_TRY(auto k, enumerated(s, m, depth + 1, memo));
      n += k;
      if (n > kMaxEnumerated) return n;
    }
    return n;
  }
  if (t.op == spv::Op::OpTypeArray || t.op == spv::Op::OpTypeRuntimeArray) {
    auto e = s.types.find(t.elem);
    bool aggregate = e != s.types.end() &&
                     (e->second.op == spv::Op::OpTypeArray || e->second.op == spv::Op::OpTypeStruct);
    if (!aggregate) return uint64_t{1};  // the innermost array of a basic type
    if (t.op == spv::Op::OpTypeRuntimeArray)
      return Error::unsupported("SPIR-V: a runtime array of aggregates (%{}) in a uniform", type);
    auto len = s.constants.find(t.length_id);
    if (len == s.constants.end()) return Error::parse("SPIR-V: array %{} has no constant length", type);
    AGX_TRY(auto k, enumerated(s, t.elem, depth + 1, memo));
    if (k != 0 && len->second > kMaxEnumerated / k) return kMaxEnumerated + 1;
    return len->second * k;
  }
  return uint64_t{1};
}

}  // namespace

Result<ProgramResources> program_resources(std::span<const uint32_t> spirv) {
  AGX_TRY(auto s, scan_program(spirv));
  ProgramResources r;
  std::set<uint32_t> counter_bindings;
  std::map<uint32_t, uint64_t> memo;
  for (const auto& [id, var] : s.globals) {
    if (!s.used.count(id)) continue;
    auto ptr = s.types.find(var.first);
    if (ptr == s.types.end() || ptr->second.op != spv::Op::OpTypePointer)
      return Error::parse("SPIR-V: variable %{} has no pointer type", id);
    uint32_t pointee = ptr->second.elem;
    uint64_t n = 0;
    switch (var.second) {
      case spv::StorageClass::UniformConstant:
      case spv::StorageClass::AtomicCounter: {
        AGX_TRY(n, enumerated(s, pointee, 0, memo));
        if (var.second == spv::StorageClass::AtomicCounter) {
          auto b = s.binding.find(id);
          counter_bindings.insert(b == s.binding.end() ? 0 : b->second);
        }
        break;
      }
      case spv::StorageClass::Uniform: {
        // A uniform block (or an array of them: one set of members); a
        // BufferBlock is a shader storage block, whose members are not uniforms.
        uint32_t block = pointee;
        for (auto t = s.types.find(block); t != s.types.end() && t->second.op == spv::Op::OpTypeArray;
             t = s.types.find(block))
          block = t->second.elem;
        if (s.buffer_block.count(block)) break;
        AGX_TRY(n, enumerated(s, block, 0, memo));
        break;
      }
      default: break;
    }
    if (r.active_uniforms + n > kMaxEnumerated) return Error::unsupported("SPIR-V: more than 2^31 active uniforms");
    r.active_uniforms += uint32_t(n);
  }
  r.active_atomic_counter_buffers = uint32_t(counter_bindings.size());
  return r;
}

Result<int64_t> program_query(const ProgramResources& resources, std::string_view name) {
  if (name == "GL_ACTIVE_UNIFORMS") return int64_t(resources.active_uniforms);
  if (name == "GL_ACTIVE_ATOMIC_COUNTER_BUFFERS") return int64_t(resources.active_atomic_counter_buffers);
  return Error::unsupported("program query {} is not supported (GL_ACTIVE_UNIFORMS, GL_ACTIVE_ATOMIC_COUNTER_BUFFERS)",
                            name);
}

}  // namespace agx::runtime
