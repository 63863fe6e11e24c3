// Word-level SPIR-V rewrites done before SPIRV-Tools' legalization.
//
// modf(x, out i) / frexp(x, out e) come from glslang as GLSL.std.450 Modf /
// Frexp writing through a pointer to a function variable, which keeps that
// variable alive through the SSA passes (an extended instruction's pointer
// operand is not a load or store they can rewrite). Each becomes the
// struct form plus a store:
//   %s = ModfStruct %x          (struct {T, T2}, T2 the pointee type)
//   %r = OpCompositeExtract %s 0
//   %w = OpCompositeExtract %s 1 ; OpStore %ptr %w
// after which the variable is an ordinary one the legalization removes.
#include <map>
#include <string>

#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.hpp11>

#include "compiler/passes.h"
#include "compiler/spirv_walk.h"

namespace agx::compiler {

namespace {

std::string literal(std::span<const uint32_t> w, size_t first) {
  std::string s;
  for (size_t i = first; i < w.size(); ++i)
    for (int b = 0; b < 4; ++b) {
      char c = static_cast<char>((w[i] >> (8 * b)) & 0xFF);
      if (!c) return s;
      s += c;
    }
  return s;
}


}  // namespace

std::vector<uint32_t> rewrite_output_pointers(std::span<const uint32_t> words) {
  std::vector<uint32_t> in(words.begin(), words.end());
  if (in.size() < 5) return in;
  uint32_t bound = in[3];
  std::vector<uint8_t> glsl(bound);
  std::map<uint32_t, uint32_t> pointee, type_of;  // pointer type -> pointee; pointer id -> its type
  size_t first_function = 0;
  bool any = false;
  for (size_t i = 5; i < in.size();) {
    uint32_t n = in[i] >> 16;
    auto op = static_cast<spv::Op>(in[i] & 0xFFFF);
    if (n == 0 || i + n > in.size()) return in;  // malformed: leave it to the validator's verdict
    std::span<const uint32_t> w(in.data() + i + 1, n - 1);
    if (op == spv::Op::OpExtInstImport && w.size() >= 2 && w[0] < bound && literal(w, 1) == "GLSL.std.450") glsl[w[0]] = 1;
    if (op == spv::Op::OpTypePointer && w.size() >= 3) pointee[w[0]] = w[2];
    if ((op == spv::Op::OpVariable || op == spv::Op::OpAccessChain || op == spv::Op::OpInBoundsAccessChain ||
         op == spv::Op::OpFunctionParameter) && w.size() >= 2)
      type_of[w[1]] = w[0];
    if (op == spv::Op::OpFunction && !first_function) first_function = i;
    if (op == spv::Op::OpExtInst && w.size() == 6 && w[2] < bound && glsl[w[2]] &&
        (w[3] == GLSLstd450Modf || w[3] == GLSLstd450Frexp))
      any = true;
    i += n;
  }
  if (!any || !first_function) return in;
  std::vector<uint32_t> types, body;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> structs;
  for (size_t i = first_function; i < in.size();) {
    uint32_t n = in[i] >> 16;
    auto op = static_cast<spv::Op>(in[i] & 0xFFFF);
    std::span<const uint32_t> w(in.data() + i + 1, n - 1);
    uint32_t ptr_type = 0, second = 0;
    bool rewrite = op == spv::Op::OpExtInst && w.size() == 6 && w[2] < bound && glsl[w[2]] &&
                   (w[3] == GLSLstd450Modf || w[3] == GLSLstd450Frexp);
    if (rewrite) {
      auto t = type_of.find(w[5]);
      if (t != type_of.end()) ptr_type = t->second;
      auto p = pointee.find(ptr_type);
      if (p != pointee.end()) second = p->second;
      rewrite = second != 0;
    }
    if (!rewrite) {
      body.insert(body.end(), in.begin() + i, in.begin() + i + n);
      i += n;
      continue;
    }
    uint32_t rtype = w[0], rid = w[1], set = w[2], x = w[4], ptr = w[5];
    auto [it, added] = structs.try_emplace({rtype, second}, 0);
    if (added) {
      it->second = bound++;
      types.insert(types.end(), {spirv::opcode_word(spv::Op::OpTypeStruct, 4), it->second, rtype, second});
    }
    uint32_t s = bound++, part = bound++;
    uint32_t form = w[3] == GLSLstd450Modf ? GLSLstd450ModfStruct : GLSLstd450FrexpStruct;
    body.insert(body.end(), {spirv::opcode_word(spv::Op::OpExtInst, 6), it->second, s, set, form, x});
    body.insert(body.end(), {spirv::opcode_word(spv::Op::OpCompositeExtract, 5), rtype, rid, s, 0});
    body.insert(body.end(), {spirv::opcode_word(spv::Op::OpCompositeExtract, 5), second, part, s, 1});
    body.insert(body.end(), {spirv::opcode_word(spv::Op::OpStore, 3), ptr, part});
    i += n;
  }
  std::vector<uint32_t> out(in.begin(), in.begin() + first_function);
  out[3] = bound;
  out.insert(out.end(), types.begin(), types.end());
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

// SPIRV-Tools' local-variable passes (SSA rewrite, single-store and
// single-block elimination) skip a module declaring an extension missing
// from their allow list, as the float-atomic ones are in the SPIRV-Tools
// Debian 12 ships. These extensions add only atomic instructions on
// shared/buffer pointers, nothing those passes rewrite, so their
// OpExtension goes (the validator has already seen the module).
std::vector<uint32_t> drop_float_atomic_extensions(std::span<const uint32_t> words) {
  std::vector<uint32_t> out(words.begin(), words.end());
  if (out.size() < 5) return out;
  for (size_t i = 5; i < out.size();) {
    uint32_t n = out[i] >> 16;
    if (n == 0 || i + n > out.size()) return out;  // malformed: left as is
    auto op = static_cast<spv::Op>(out[i] & 0xFFFF);
    if (op == spv::Op::OpFunction) break;
    if (op == spv::Op::OpExtension) {
      std::string name = literal(std::span<const uint32_t>(out.data() + i + 1, n - 1), 0);
      if (name == "SPV_EXT_shader_atomic_float_add" || name == "SPV_EXT_shader_atomic_float_min_max") {
        out.erase(out.begin() + static_cast<std::ptrdiff_t>(i), out.begin() + static_cast<std::ptrdiff_t>(i + n));
        continue;
      }
    }
    i += n;
  }
  return out;
}

}  // namespace agx::compiler
