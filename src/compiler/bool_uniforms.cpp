// OpenGL `uniform bool` / `uniform bvecN` as 32-bit integers (spirv_module.h).
//
// glslang's OpenGL SPIR-V declares such a loose uniform as a UniformConstant
// variable of OpTypeBool, which SPIR-V forbids ("If OpTypeBool is stored in
// conjunction with OpVariable, it can only be used with non-externally
// visible shader Storage Classes", SPIR-V specification 2.16.1), so the
// validator rejects the module. An OpenGL bool uniform is a 32-bit value set
// through glUniform*i (zero is false, anything else true; OpenGL 4.6 section
// 7.6.1), so the variable becomes a uint/uvecN and every load of it (or of
// an access chain into it) is followed by OpINotEqual against zero, which
// gives the bool the shader expected.
#include <fmt/format.h>

#include <map>
#include <set>

#include "compiler/spirv_module.h"

namespace agx::compiler::spirv {

namespace {

uint32_t word0(spv::Op op, size_t count) { return static_cast<uint32_t>(count << 16) | static_cast<uint32_t>(op); }

struct InstSpan {
  size_t pos;
  spv::Op op;
  std::span<const uint32_t> w;  // operands
};

}  // namespace

Result<std::vector<uint32_t>> widen_bool_uniforms(std::span<const uint32_t> words) {
  if (words.size() < 5 || words[0] != spv::MagicNumber) return std::vector<uint32_t>(words.begin(), words.end());
  std::vector<InstSpan> insts;
  for (size_t pos = 5; pos < words.size();) {
    uint32_t count = words[pos] >> 16;
    if (count == 0 || pos + count > words.size())
      return Error::decode("SPIR-V: word {}: instruction length {} runs past the end", pos, count);
    insts.push_back({pos, static_cast<spv::Op>(words[pos] & 0xFFFF), words.subspan(pos + 1, count - 1)});
    pos += count;
  }
  uint32_t bool_id = 0, uint_id = 0;
  std::map<uint32_t, uint32_t> bvec_n;   // bvecN type -> N
  std::map<uint32_t, uint32_t> uvec_of;  // N -> existing uvecN type
  std::map<uint32_t, uint32_t> bool_ptr; // UniformConstant pointer type -> bool/bvec pointee
  std::map<uint32_t, uint32_t> vars;     // bool variable -> bool/bvec type
  for (const InstSpan& in : insts) {
    const auto& w = in.w;
    switch (in.op) {
      case spv::Op::OpTypeBool: if (w.size() >= 1) bool_id = w[0]; break;
      case spv::Op::OpTypeInt: if (w.size() >= 3 && w[1] == 32 && w[2] == 0) uint_id = w[0]; break;
      case spv::Op::OpTypeVector:
        if (w.size() >= 3 && bool_id && w[1] == bool_id) bvec_n[w[0]] = w[2];
        if (w.size() >= 3 && uint_id && w[1] == uint_id) uvec_of[w[2]] = w[0];
        break;
      case spv::Op::OpTypePointer:
        if (w.size() >= 3 && static_cast<spv::StorageClass>(w[1]) == spv::StorageClass::UniformConstant &&
            ((bool_id && w[2] == bool_id) || bvec_n.count(w[2])))
          bool_ptr[w[0]] = w[2];
        break;
      case spv::Op::OpVariable:
        if (w.size() >= 3 && bool_ptr.count(w[0]) && static_cast<spv::StorageClass>(w[2]) == spv::StorageClass::UniformConstant)
          vars[w[1]] = bool_ptr[w[0]];
        break;
      default: break;
    }
  }
  if (vars.empty()) return std::vector<uint32_t>(words.begin(), words.end());

  uint32_t bound = words[3];
  std::vector<uint32_t> decls;  // new types and constants, then the moved variables
  auto emit = [](std::vector<uint32_t>& out, spv::Op op, std::initializer_list<uint32_t> ops) {
    out.push_back(word0(op, ops.size() + 1));
    out.insert(out.end(), ops.begin(), ops.end());
  };
  if (!uint_id) {
    uint_id = bound++;
    emit(decls, spv::Op::OpTypeInt, {uint_id, 32, 0});
  }
  // Per bool type: its integer type, a UniformConstant pointer to it, zero.
  struct Wide { uint32_t int_type, ptr, zero; };
  std::map<uint32_t, Wide> wide;
  auto widen = [&](uint32_t bt) -> Wide& {
    auto it = wide.find(bt);
    if (it != wide.end()) return it->second;
    uint32_t it_type = uint_id;
    if (bt != bool_id) {
      uint32_t n = bvec_n[bt];
      if (!uvec_of.count(n)) {
        uvec_of[n] = bound++;
        emit(decls, spv::Op::OpTypeVector, {uvec_of[n], uint_id, n});
      }
      it_type = uvec_of[n];
    }
    Wide wd{it_type, bound++, bound++};
    emit(decls, spv::Op::OpTypePointer, {wd.ptr, static_cast<uint32_t>(spv::StorageClass::UniformConstant), it_type});
    emit(decls, spv::Op::OpConstantNull, {it_type, wd.zero});
    return wide.emplace(bt, wd).first->second;
  };
  for (auto& [var, bt] : vars) widen(bt);
  if (bool_id) widen(bool_id);  // access chains into a bvec give bool pointers
  for (auto& [var, bt] : vars)
    emit(decls, spv::Op::OpVariable, {wide.at(bt).ptr, var, static_cast<uint32_t>(spv::StorageClass::UniformConstant)});

  std::vector<uint32_t> out(words.begin(), words.begin() + 5);
  std::map<uint32_t, uint32_t> ptrs = vars;  // pointers into the widened variables -> bool type
  bool placed = false;
  for (const InstSpan& in : insts) {
    const auto& w = in.w;
    std::span<const uint32_t> whole = words.subspan(in.pos, w.size() + 1);
    if (in.op == spv::Op::OpFunction && !placed) {
      out.insert(out.end(), decls.begin(), decls.end());
      placed = true;
    }
    if (in.op == spv::Op::OpVariable && w.size() >= 2 && vars.count(w[1])) continue;  // moved
    if ((in.op == spv::Op::OpAccessChain || in.op == spv::Op::OpInBoundsAccessChain) && w.size() >= 3 && ptrs.count(w[2])) {
      uint32_t pointee = bool_ptr.count(w[0]) ? bool_ptr[w[0]] : 0;
      if (!pointee) return Error::unsupported("SPIR-V: word {}: access chain into a bool uniform to a non-bool", in.pos);
      ptrs[w[1]] = pointee;
      out.push_back(whole[0]);
      out.push_back(widen(pointee).ptr);
      out.insert(out.end(), w.begin() + 1, w.end());
      continue;
    }
    if (in.op == spv::Op::OpLoad && w.size() >= 3 && ptrs.count(w[2])) {
      uint32_t bt = ptrs[w[2]];
      const Wide& wd = wide.at(bt);
      uint32_t tmp = bound++;
      out.push_back(whole[0]);
      out.push_back(wd.int_type);
      out.push_back(tmp);
      out.insert(out.end(), w.begin() + 2, w.end());
      emit(out, spv::Op::OpINotEqual, {w[0], w[1], tmp, wd.zero});
      continue;
    }
    out.insert(out.end(), whole.begin(), whole.end());
  }
  if (!placed) return Error::decode("SPIR-V: bool uniforms but no function");
  if (bound > (1u << 22)) return Error::decode("SPIR-V: id bound {} too large", bound);
  out[3] = bound;
  return out;
}

}  // namespace agx::compiler::spirv
