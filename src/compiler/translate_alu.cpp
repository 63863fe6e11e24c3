// SPIR-V values, composites, arithmetic and comparisons -> IR (extended
// instructions: translate_glsl_std.cpp, translate_trinary.cpp).
#include <spirv/unified1/GLSL.std.450.h>

#include <bit>
#include <functional>

#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

unsigned Translator::flat_count(uint32_t t) const {
  const spirv::Type& ty = type(t);
  switch (ty.kind) {
    case spirv::Type::Kind::bool_: case spirv::Type::Kind::int_: case spirv::Type::Kind::float_: return 1;
    case spirv::Type::Kind::vector: case spirv::Type::Kind::matrix: case spirv::Type::Kind::array:
      return ty.count * flat_count(ty.elem);
    case spirv::Type::Kind::struct_: {
      unsigned n = 0;
      for (uint32_t mem : ty.members) n += flat_count(mem);
      return n;
    }
    default: return 0;
  }
}

unsigned Translator::components(uint32_t t) const {
  const spirv::Type& ty = type(t);
  switch (ty.kind) {
    case spirv::Type::Kind::bool_: case spirv::Type::Kind::int_: case spirv::Type::Kind::float_: return 1;
    case spirv::Type::Kind::vector: return ty.count;
    default: return 0;
  }
}

uint32_t Translator::scalar_type(uint32_t t) const {
  return type(t).kind == spirv::Type::Kind::vector ? type(t).elem : t;
}
bool Translator::is_float(uint32_t t) const { return type(scalar_type(t)).kind == spirv::Type::Kind::float_; }
bool Translator::is_bool(uint32_t t) const { return type(scalar_type(t)).kind == spirv::Type::Kind::bool_; }

TVal Translator::constant(uint32_t id) {
  const spirv::Constant& c = m_.constants[id];
  TVal v = TVal::data(c.type);
  std::function<void(uint32_t)> flatten = [&](uint32_t cid) {
    const spirv::Constant& k = m_.constants[cid];
    if (k.composite) {
      for (uint32_t p : k.parts) flatten(p);
    } else if (k.null) {
      unsigned n = std::max(1u, flat_count(k.type));
      for (unsigned i = 0; i < n; ++i) v.c.push_back(Src::immediate(0));
    } else {
      if (small_width(k.type)) v.c.push_back(small_constant(k.type, k.bits));  // translate_small.cpp
      else v.c.push_back(Src::immediate(k.bits, type(k.type).width == 64 ? 64 : 32));
    }
  };
  flatten(id);
  return v;
}

Result<const TVal*> Translator::get(uint32_t id, const spirv::Inst& in) {
  if (id >= m_.bound) return unsupported(in, fmt::format("operand %{} out of range", id));
  if (vals_[id].kind == TVal::Kind::none && m_.is_constant[id]) vals_[id] = constant(id);
  if (vals_[id].kind == TVal::Kind::none && m_.is_variable[id]) {
    AGX_TRY(auto p, variable_pointer(id, in));
    vals_[id].kind = TVal::Kind::ptr;
    vals_[id].type = m_.variables[id].type;
    vals_[id].ptr = std::move(p);
  }
  if (vals_[id].kind == TVal::Kind::none)
    return unsupported(in, fmt::format("operand %{}{} has no value here (unsupported instruction or type)", id,
                                       m_.names[id].empty() ? "" : " (" + m_.names[id] + ")"));
  return &vals_[id];
}

Result<Src> Translator::scalar(uint32_t id, const spirv::Inst& in, unsigned comp) {
  AGX_TRY(auto v, get(id, in));
  if (v->cmp) return materialize(*v->cmp);
  if (v->kind != TVal::Kind::data || comp >= v->c.size()) return unsupported(in, fmt::format("operand %{} is not a scalar/vector value", id));
  return v->c[comp];
}

Src Translator::materialize(const Cmp& c) {
  return b_.select(c.cond, c.invert, c.a, c.b, Src::immediate(1), Src::immediate(0));
}

Result<Cmp> Translator::condition(uint32_t id, const spirv::Inst& in) {
  AGX_TRY(auto v, get(id, in));
  if (v->cmp) return *v->cmp;
  if (v->kind != TVal::Kind::data || v->c.empty()) return unsupported(in, "condition is not a boolean");
  return Cmp{Cond::ueq, true, v->c[0], Src::immediate(0)};  // v != 0
}

namespace {

Src fneg(Src s) { s.neg = !s.neg; return s; }

}  // namespace

Status Translator::instruction(const spirv::Inst& in) {
  const auto& w = in.w;
  bool small_op = false;
  AGX_CHECK(small_instruction(in, small_op));  // translate_small.cpp: 8/16-bit types
  if (small_op) return {};
  bool fp64_op = false;
  AGX_CHECK(fp64_instruction(in, fp64_op));  // translate_fp64.cpp
  if (fp64_op) return {};
  bool int64_op = false;
  AGX_CHECK(int64_instruction(in, int64_op));  // translate_int64.cpp
  if (int64_op) return {};
  auto need = [&](size_t n) -> Status {
    if (w.size() < n) return Error::decode("{}: SPIR-V word {}: too few operands", o_.file_name, in.word_offset);
    if (w.size() >= 2 && w[1] >= m_.bound) return Error::decode("{}: SPIR-V word {}: result id out of range", o_.file_name, in.word_offset);
    return {};
  };
  bool image_op = false;
  AGX_CHECK(image_instruction(in, image_op));
  if (image_op) return {};
  if (is_subgroup_op(in.op)) return subgroup(in);  // translate_subgroup.cpp
  if (in.op == SpvOp::OpCopyMemory || in.op == SpvOp::OpCopyMemorySized || in.op == SpvOp::OpCopyLogical)
    return copy(in);  // translate_struct_copy.cpp
  switch (in.op) {
    case SpvOp::OpNop: case SpvOp::OpSelectionMerge: case SpvOp::OpLoopMerge: return {};
    case SpvOp::OpVariable: return {};
    case SpvOp::OpDemoteToHelperInvocation:
      if (o_.stage != Stage::fragment) return unsupported(in, "demote outside a fragment shader");
      return discard();  // laid out and initialized by setup_locals (translate_local.cpp)
    case SpvOp::OpAccessChain: case SpvOp::OpInBoundsAccessChain:
      AGX_CHECK(need(3));
      return access_chain(in);
    case SpvOp::OpLoad: case SpvOp::OpAtomicLoad: AGX_CHECK(need(3)); return load(in);
    case SpvOp::OpStore: case SpvOp::OpAtomicStore: return store(in);
    case SpvOp::OpAtomicIAdd: case SpvOp::OpAtomicISub: case SpvOp::OpAtomicExchange: case SpvOp::OpAtomicCompareExchange:
    case SpvOp::OpAtomicUMin: case SpvOp::OpAtomicSMin: case SpvOp::OpAtomicUMax: case SpvOp::OpAtomicSMax:
    case SpvOp::OpAtomicAnd: case SpvOp::OpAtomicOr: case SpvOp::OpAtomicXor:
    case SpvOp::OpAtomicIIncrement: case SpvOp::OpAtomicIDecrement:
      AGX_CHECK(need(5));
      return atomic(in);
    case SpvOp::OpAtomicFAddEXT: case SpvOp::OpAtomicFMinEXT: case SpvOp::OpAtomicFMaxEXT: return float_atomic(in);
    case SpvOp::OpControlBarrier:
      // Execution scope Workgroup: every SIMD group of the threadgroup meets.
      b_.emit(IrOp::memory_barrier);
      b_.emit(IrOp::barrier);
      return {};
    case SpvOp::OpMemoryBarrier:
      b_.emit(IrOp::memory_barrier);
      return {};
    case SpvOp::OpExtInst:
      AGX_CHECK(need(4));
      if (w[2] < m_.bound && m_.ext_glsl[w[2]]) {
        if (w[3] == GLSLstd450Determinant || w[3] == GLSLstd450MatrixInverse) return matrix_ext(in);  // translate_matrix.cpp
        return ext_glsl(in);
      }
      if (w[2] < m_.bound && m_.ext_amd_trinary[w[2]]) return ext_amd_trinary(in);
      return unsupported(in, "extended instruction set other than GLSL.std.450 and SPV_AMD_shader_trinary_minmax");
    case SpvOp::OpArrayLength: AGX_CHECK(need(4)); return array_length(in);
    case SpvOp::OpFMod: case SpvOp::OpFRem: AGX_CHECK(need(4)); return float_remainder(in);
    case SpvOp::OpSubgroupAnyKHR: case SpvOp::OpSubgroupAllKHR: case SpvOp::OpSubgroupAllEqualKHR:
    case SpvOp::OpGroupNonUniformAny: case SpvOp::OpGroupNonUniformAll: case SpvOp::OpGroupNonUniformAllEqual:
      AGX_CHECK(need(3));
      return vote(in);
    case SpvOp::OpDPdx: case SpvOp::OpDPdy: case SpvOp::OpFwidth: case SpvOp::OpDPdxFine: case SpvOp::OpDPdyFine:
    case SpvOp::OpFwidthFine: case SpvOp::OpDPdxCoarse: case SpvOp::OpDPdyCoarse: case SpvOp::OpFwidthCoarse:
      return derivative(in);  // translate_derivatives.cpp
    default: break;
  }
  bool handled = false;
  AGX_CHECK(need(2));
  AGX_CHECK(matrix_op(in, handled));  // translate_matrix.cpp
  if (handled) return {};
  AGX_CHECK(alu(in, handled));
  if (!handled) return unsupported(in, fmt::format("SPIR-V instruction op {} is not supported", static_cast<unsigned>(in.op)));
  return {};
}

// Composites and copies: OpCopyObject, OpUndef, OpBitcast, construct,
// extract, insert, shuffle, dynamic extract (component moves, no ALU).
Status Translator::composite(const spirv::Inst& in, bool& handled) {
  const auto& w = in.w;
  handled = true;
  if (w.size() < 3) { handled = false; return {}; }
  uint32_t rtype = w[0], rid = w[1];
  TVal out = TVal::data(rtype);
  unsigned n = components(rtype);
  auto finish = [&]() -> Status { vals_[rid] = std::move(out); return {}; };
  switch (in.op) {
    case SpvOp::OpCopyObject: {
      AGX_TRY(auto v, get(w[2], in));
      vals_[rid] = *v;
      return {};
    }
    case SpvOp::OpUndef: {
      for (unsigned i = 0; i < std::max(1u, flat_count(rtype)); ++i) out.c.push_back(Src::immediate(0));
      return finish();
    }
    case SpvOp::OpBitcast: {
      AGX_TRY(auto v, get(w[2], in));
      if (v->kind != TVal::Kind::data || v->c.size() != n) return unsupported(in, "bitcast between different component counts");
      out.c = v->c;
      return finish();
    }
    case SpvOp::OpCompositeConstruct: {
      for (size_t k = 2; k < w.size(); ++k) {
        AGX_TRY(auto v, get(w[k], in));
        if (v->cmp) out.c.push_back(materialize(*v->cmp));
        else if (v->kind == TVal::Kind::data) out.c.insert(out.c.end(), v->c.begin(), v->c.end());
        else return unsupported(in, "composite of non-data values");
      }
      return finish();
    }
    case SpvOp::OpCompositeExtract: {
      AGX_TRY(auto v, get(w[2], in));
      if (v->kind != TVal::Kind::data) return unsupported(in, "OpCompositeExtract of a non-data value");
      // Walk the indices over the flattened scalars.
      uint32_t t = v->type, first = 0;
      for (size_t k = 3; k < w.size(); ++k) {
        const spirv::Type& ty = type(t);
        uint32_t idx = w[k];
        if (ty.kind == spirv::Type::Kind::struct_) {
          if (idx >= ty.members.size()) return unsupported(in, "OpCompositeExtract index out of range");
          for (uint32_t j = 0; j < idx; ++j) first += flat_count(ty.members[j]);
          t = ty.members[idx];
        } else if (ty.kind == spirv::Type::Kind::array || ty.kind == spirv::Type::Kind::vector || ty.kind == spirv::Type::Kind::matrix) {
          if (idx >= ty.count) return unsupported(in, "OpCompositeExtract index out of range");
          first += idx * flat_count(ty.elem);
          t = ty.elem;
        } else {
          return unsupported(in, "OpCompositeExtract through a non-composite");
        }
      }
      uint32_t cnt = flat_count(t);
      if (first + cnt > v->c.size()) return unsupported(in, "OpCompositeExtract out of range");
      out.c.assign(v->c.begin() + first, v->c.begin() + first + cnt);
      if (is_bool(t) && cnt == 1 && !out.c.empty()) { out.cmp = Cmp{Cond::ueq, true, out.c[0], Src::immediate(0)}; out.c.clear(); }
      return finish();
    }
    case SpvOp::OpCompositeInsert: {
      // The object replaces the flattened scalars the indices select.
      AGX_TRY(auto objv, get(w[2], in));
      std::vector<Src> obj = objv->cmp ? std::vector<Src>{materialize(*objv->cmp)} : objv->c;
      AGX_TRY(auto v, get(w[3], in));
      if (v->kind != TVal::Kind::data || objv->kind != TVal::Kind::data) return unsupported(in, "OpCompositeInsert of a non-data value");
      uint32_t t = v->type, first = 0;
      for (size_t k = 4; k < w.size(); ++k) {
        const spirv::Type& ty = type(t);
        uint32_t idx = w[k];
        if (ty.kind == spirv::Type::Kind::struct_) {
          if (idx >= ty.members.size()) return unsupported(in, "OpCompositeInsert index out of range");
          for (uint32_t j = 0; j < idx; ++j) first += flat_count(ty.members[j]);
          t = ty.members[idx];
        } else if (ty.kind == spirv::Type::Kind::array || ty.kind == spirv::Type::Kind::vector || ty.kind == spirv::Type::Kind::matrix) {
          if (idx >= ty.count) return unsupported(in, "OpCompositeInsert index out of range");
          first += idx * flat_count(ty.elem);
          t = ty.elem;
        } else {
          return unsupported(in, "OpCompositeInsert through a non-composite");
        }
      }
      if (w.size() < 5 || obj.size() != flat_count(t) || first + obj.size() > v->c.size())
        return unsupported(in, "OpCompositeInsert object of another shape");
      out.c = v->c;
      std::copy(obj.begin(), obj.end(), out.c.begin() + first);
      return finish();
    }
    case SpvOp::OpVectorShuffle: {
      AGX_TRY(auto a, get(w[2], in));
      AGX_TRY(auto bv, get(w[3], in));
      std::vector<Src> all = a->c;
      all.insert(all.end(), bv->c.begin(), bv->c.end());
      for (size_t k = 4; k < w.size(); ++k) {
        if (w[k] == 0xFFFFFFFFu) out.c.push_back(Src::immediate(0));
        else if (w[k] < all.size()) out.c.push_back(all[w[k]]);
        else return unsupported(in, "OpVectorShuffle index out of range");
      }
      return finish();
    }
    case SpvOp::OpVectorExtractDynamic: {
      AGX_TRY(auto v, get(w[2], in));
      AGX_TRY(auto idx, scalar(w[3], in));
      if (idx.is_imm() && idx.imm < v->c.size()) { out.c.push_back(v->c[idx.imm]); return finish(); }
      Src r = v->c.empty() ? Src::immediate(0) : v->c[0];
      for (size_t i = 1; i < v->c.size(); ++i)
        r = b_.select(Cond::ueq, false, idx, Src::immediate(i), v->c[i], r);
      out.c.push_back(r);
      return finish();
    }
    default:
      handled = false;
      return {};
  }
}

// Arithmetic is 32-bit (bools pass; 8/16-bit while small types are lowered).
Status Translator::check_arith_width(const spirv::Inst& in, uint32_t t) {
  uint32_t st = scalar_type(t);
  if (type(st).kind != spirv::Type::Kind::bool_ && type(st).width != 32 && !(small_active_ && small_width(st)))
    return unsupported(in, fmt::format("{}-bit arithmetic is not supported (32-bit only)", type(st).width));
  return {};
}

// Comparisons, the logical ops and OpSelect.
Status Translator::logic(const spirv::Inst& in, bool& handled) {
  const auto& w = in.w;
  handled = true;
  if (w.size() < 3) { handled = false; return {}; }
  uint32_t rtype = w[0], rid = w[1];
  TVal out = TVal::data(rtype);
  unsigned n = components(rtype);
  auto finish = [&]() -> Status { vals_[rid] = std::move(out); return {}; };
  // A comparison: kept as a Cmp for scalars, 0/1 per component for vectors.
  auto compare = [&](Cond cond, bool invert, bool swap) -> Status {
    uint32_t at = 0;
    {
      AGX_TRY(auto a, get(w[2], in));
      at = a->type;
    }
    AGX_CHECK(check_arith_width(in, at));
    for (unsigned i = 0; i < n; ++i) {
      AGX_TRY(auto a, scalar(w[2], in, i));
      AGX_TRY(auto bb, scalar(w[3], in, i));
      Cmp c{cond, invert, swap ? bb : a, swap ? a : bb};
      if (n == 1) out.cmp = c;
      else out.c.push_back(materialize(c));
    }
    return finish();
  };
  // FOrdNotEqual / FUnordEqual: (a < b) or (a > b), and its inverse.
  auto ordered_ne = [&](bool invert) -> Status {
    for (unsigned i = 0; i < n; ++i) {
      AGX_TRY(auto a, scalar(w[2], in, i));
      AGX_TRY(auto bb, scalar(w[3], in, i));
      Src gt = b_.select(Cond::fgt, false, a, bb, Src::immediate(1), Src::immediate(0));
      Src r = b_.select(Cond::flt, false, a, bb, Src::immediate(1), gt);
      if (n == 1) out.cmp = Cmp{Cond::ueq, !invert, r, Src::immediate(0)};
      else out.c.push_back(invert ? b_.binary(IrOp::ixor, r, Src::immediate(1)) : r);
    }
    return finish();
  };
  switch (in.op) {
    case SpvOp::OpIEqual: case SpvOp::OpLogicalEqual: return compare(Cond::ueq, false, false);
    case SpvOp::OpINotEqual: case SpvOp::OpLogicalNotEqual: return compare(Cond::ueq, true, false);
    case SpvOp::OpULessThan: return compare(Cond::ult, false, false);
    case SpvOp::OpULessThanEqual: return compare(Cond::ugt, true, false);
    case SpvOp::OpUGreaterThan: return compare(Cond::ugt, false, false);
    case SpvOp::OpUGreaterThanEqual: return compare(Cond::ult, true, false);
    case SpvOp::OpSLessThan: return compare(Cond::slt, false, false);
    case SpvOp::OpSLessThanEqual: return compare(Cond::sgt, true, false);
    case SpvOp::OpSGreaterThan: return compare(Cond::sgt, false, false);
    case SpvOp::OpSGreaterThanEqual: return compare(Cond::slt, true, false);
    case SpvOp::OpFOrdEqual: return compare(Cond::feq, false, false);
    case SpvOp::OpFUnordNotEqual: return compare(Cond::feq, true, false);
    case SpvOp::OpFOrdLessThan: return compare(Cond::flt, false, false);
    case SpvOp::OpFOrdGreaterThan: return compare(Cond::fgt, false, false);
    case SpvOp::OpFOrdLessThanEqual: return compare(Cond::flte, false, false);
    case SpvOp::OpFOrdGreaterThanEqual: return compare(Cond::fgte, false, false);
    case SpvOp::OpFUnordLessThan: return compare(Cond::fgte, true, false);
    case SpvOp::OpFUnordGreaterThan: return compare(Cond::flte, true, false);
    case SpvOp::OpFUnordLessThanEqual: return compare(Cond::fgt, true, false);
    case SpvOp::OpFUnordGreaterThanEqual: return compare(Cond::flt, true, false);
    case SpvOp::OpFOrdNotEqual: return ordered_ne(false);
    case SpvOp::OpFUnordEqual: return ordered_ne(true);
    case SpvOp::OpIsNan:
      // x != x only for NaN.
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto a, scalar(w[2], in, i));
        Cmp c{Cond::feq, true, a, a};
        if (n == 1) out.cmp = c; else out.c.push_back(materialize(c));
      }
      return finish();
    case SpvOp::OpIsInf:
      // |x| == +inf: the bits without the sign are 0x7F800000 (IEEE 754
      // binary32), compared as integers.
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto a, scalar(w[2], in, i));
        Cmp c{Cond::ueq, false, b_.binary(IrOp::iand, a, Src::immediate(0x7FFFFFFFu)), Src::immediate(0x7F800000u)};
        if (n == 1) out.cmp = c; else out.c.push_back(materialize(c));
      }
      return finish();
    case SpvOp::OpLogicalNot: {
      if (n == 1) {
        AGX_TRY(auto c, condition(w[2], in));
        c.invert = !c.invert;
        out.cmp = c;
        return finish();
      }
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto x, scalar(w[2], in, i));
        out.c.push_back(b_.binary(IrOp::ixor, x, Src::immediate(1)));
      }
      return finish();
    }
    case SpvOp::OpAll: case SpvOp::OpAny: {
      // Every / any component of a bool vector (0/1 values).
      AGX_TRY(auto v, get(w[2], in));
      IrOp op = in.op == SpvOp::OpAll ? IrOp::iand : IrOp::ior;
      Src r;
      if (v->cmp) r = materialize(*v->cmp);
      for (size_t i = 0; !v->cmp && i < v->c.size(); ++i) r = i == 0 ? v->c[0] : b_.binary(op, r, v->c[i]);
      out.cmp = Cmp{Cond::ueq, true, r, Src::immediate(0)};
      return finish();
    }
    case SpvOp::OpLogicalAnd: case SpvOp::OpLogicalOr: {
      IrOp op = in.op == SpvOp::OpLogicalAnd ? IrOp::iand : IrOp::ior;
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto a, scalar(w[2], in, i));
        AGX_TRY(auto bb, scalar(w[3], in, i));
        Src r = b_.binary(op, a, bb);
        if (n == 1) out.cmp = Cmp{Cond::ueq, true, r, Src::immediate(0)};
        else out.c.push_back(r);
      }
      return finish();
    }
    case SpvOp::OpSelect: {
      // Scalars, vectors and (SPIR-V 1.4) composites, per flattened scalar.
      for (unsigned i = 0; i < std::max(1u, flat_count(rtype)); ++i) {
        AGX_TRY(auto cv, get(w[2], in));
        Cmp c;
        if (cv->cmp) c = *cv->cmp;
        else {
          size_t ci = cv->c.size() > 1 ? i : 0;
          if (ci >= cv->c.size()) return unsupported(in, "OpSelect condition shape");
          c = Cmp{Cond::ueq, true, cv->c[ci], Src::immediate(0)};
        }
        AGX_TRY(auto x, scalar(w[3], in, i));
        AGX_TRY(auto y, scalar(w[4], in, i));
        out.c.push_back(b_.select(c.cond, c.invert, c.a, c.b, x, y));
      }
      if (is_bool(rtype) && n == 1) { out.cmp = Cmp{Cond::ueq, true, out.c[0], Src::immediate(0)}; out.c.clear(); }
      return finish();
    }
    default:
      handled = false;
      return {};
  }
}

Status Translator::alu(const spirv::Inst& in, bool& handled) {
  if (auto st = composite(in, handled); !st || handled) return st;
  if (auto st = logic(in, handled); !st || handled) return st;
  const auto& w = in.w;
  handled = true;
  if (w.size() < 3) { handled = false; return {}; }
  uint32_t rtype = w[0], rid = w[1];
  TVal out = TVal::data(rtype);
  unsigned n = components(rtype);
  auto finish = [&]() -> Status { vals_[rid] = std::move(out); return {}; };

  // Per-component binary/unary ops.
  auto per_comp = [&](auto fn, size_t nsrc) -> Status {
    AGX_CHECK(check_arith_width(in, rtype));
    for (unsigned i = 0; i < n; ++i) {
      Src s[3];
      for (size_t k = 0; k < nsrc; ++k) {
        AGX_TRY(auto v, scalar(w[2 + k], in, i));
        s[k] = v;
      }
      AGX_TRY(auto r, fn(s));
      out.c.push_back(r);
    }
    return finish();
  };
  auto int_bin = [&](IrOp op) {
    return per_comp([&](Src* s) -> Result<Src> { return b_.binary(op, s[0], s[1]); }, 2);
  };
  auto float_bin = [&](IrOp op) {
    return per_comp([&](Src* s) -> Result<Src> { return Src::val(b_.def(op, {s[0], s[1]})); }, 2);
  };
  switch (in.op) {
    case SpvOp::OpIAdd: return int_bin(IrOp::iadd);
    case SpvOp::OpISub: return int_bin(IrOp::isub);
    case SpvOp::OpIMul: return int_bin(IrOp::imul);
    case SpvOp::OpShiftLeftLogical: return int_bin(IrOp::ishl);
    case SpvOp::OpShiftRightLogical: return int_bin(IrOp::ushr);
    case SpvOp::OpShiftRightArithmetic: return int_bin(IrOp::ishr);
    case SpvOp::OpBitwiseAnd: return int_bin(IrOp::iand);
    case SpvOp::OpBitwiseOr: return int_bin(IrOp::ior);
    case SpvOp::OpBitwiseXor: return int_bin(IrOp::ixor);
    case SpvOp::OpUDiv: return int_bin(IrOp::udiv);
    case SpvOp::OpUMod: return int_bin(IrOp::umod);
    case SpvOp::OpSDiv: return int_bin(IrOp::sdiv);
    case SpvOp::OpSRem: return int_bin(IrOp::smod);
    case SpvOp::OpSMod:
      // The remainder takes the divisor's sign: a nonzero truncated
      // remainder of the other sign gets the divisor added.
      return per_comp([&](Src* s) -> Result<Src> {
        Src r = b_.binary(IrOp::smod, s[0], s[1]);
        Src x = b_.binary(IrOp::ixor, r, s[1]);
        Src fixed = b_.select(Cond::slt, false, x, Src::immediate(0), b_.binary(IrOp::iadd, r, s[1]), r);
        return b_.select(Cond::ueq, false, r, Src::immediate(0), r, fixed);
      }, 2);
    case SpvOp::OpIAddCarry: case SpvOp::OpISubBorrow: case SpvOp::OpUMulExtended: case SpvOp::OpSMulExtended: {
      // A struct {low, high} of the operands' type, flattened member by
      // member: the sum / difference and its carry / borrow bit, or the
      // 64-bit product's words (signed: the unsigned high word less b when
      // a < 0 and a when b < 0).
      AGX_TRY(auto av, get(w[2], in));
      if (w.size() < 4 || av->kind != TVal::Kind::data || type(scalar_type(av->type)).width != 32)
        return unsupported(in, "an extended add, subtract or multiply of non-32-bit integers");
      const size_t k = av->c.size();
      std::vector<Src> high(k);
      for (unsigned i = 0; i < k; ++i) {
        AGX_TRY(auto a, scalar(w[2], in, i));
        AGX_TRY(auto b, scalar(w[3], in, i));
        if (in.op == SpvOp::OpIAddCarry || in.op == SpvOp::OpISubBorrow) {
          const bool add = in.op == SpvOp::OpIAddCarry;
          Src lo = b_.binary(add ? IrOp::iadd : IrOp::isub, a, b);
          out.c.push_back(lo);
          high[i] = add ? b_.select(Cond::ult, false, lo, a, Src::immediate(1), Src::immediate(0))
                        : b_.select(Cond::ult, false, a, b, Src::immediate(1), Src::immediate(0));
          continue;
        }
        if (a.is_imm() && b.is_imm()) {
          const uint64_t p = uint64_t(uint32_t(a.imm)) * uint32_t(b.imm);
          out.c.push_back(Src::immediate(uint32_t(p)));
          high[i] = Src::immediate(uint32_t(p >> 32));
        } else {
          ValueId wide = b_.def(IrOp::umul_wide, {a.is_imm() ? b : a, a.is_imm() ? a : b}, 32, 2);
          b_.function().values[wide].pair = true;
          out.c.push_back(Src::val(wide, 32, 0));
          high[i] = Src::val(wide, 32, 1);
        }
        if (in.op == SpvOp::OpSMulExtended) {
          high[i] = b_.binary(IrOp::isub, high[i], b_.select(Cond::slt, false, a, Src::immediate(0), b, Src::immediate(0)));
          high[i] = b_.binary(IrOp::isub, high[i], b_.select(Cond::slt, false, b, Src::immediate(0), a, Src::immediate(0)));
        }
      }
      out.c.insert(out.c.end(), high.begin(), high.end());
      return finish();
    }
    case SpvOp::OpNot:
      return per_comp([&](Src* s) -> Result<Src> { return Src::val(b_.def(IrOp::inot, {s[0]})); }, 1);
    case SpvOp::OpSNegate:
      return per_comp([&](Src* s) -> Result<Src> { return b_.binary(IrOp::isub, Src::immediate(0), s[0]); }, 1);
    case SpvOp::OpBitCount:
      return per_comp([&](Src* s) -> Result<Src> { return Src::val(b_.def(IrOp::popcount, {s[0]})); }, 1);
    case SpvOp::OpBitReverse:
      return per_comp([&](Src* s) -> Result<Src> { return Src::val(b_.def(IrOp::bitrev, {s[0]})); }, 1);
    case SpvOp::OpFAdd: return float_bin(IrOp::fadd);
    case SpvOp::OpFSub:
      return per_comp([&](Src* s) -> Result<Src> { return Src::val(b_.def(IrOp::fadd, {s[0], fneg(s[1])})); }, 2);
    case SpvOp::OpFMul: return float_bin(IrOp::fmul);
    case SpvOp::OpFDiv:
      // a / b = a * rcp(b) (Mesa lowers fdiv the same way: lower_fdiv).
      return per_comp([&](Src* s) -> Result<Src> {
        Src r = Src::val(b_.def(IrOp::rcp, {s[1]}));
        return Src::val(b_.def(IrOp::fmul, {s[0], r}));
      }, 2);
    case SpvOp::OpFNegate:
      return per_comp([&](Src* s) -> Result<Src> { return Src::val(b_.def(IrOp::fadd, {fneg(s[0]), Src::immediate(0x80000000u)})); }, 1);
    case SpvOp::OpVectorTimesScalar: {
      AGX_CHECK(check_arith_width(in, rtype));
      AGX_TRY(auto k, scalar(w[3], in));
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto a, scalar(w[2], in, i));
        out.c.push_back(Src::val(b_.def(IrOp::fmul, {a, k})));
      }
      return finish();
    }
    case SpvOp::OpDot: {
      AGX_TRY(auto av, get(w[2], in));
      Src acc;
      for (size_t i = 0; i < av->c.size(); ++i) {
        AGX_TRY(auto a, scalar(w[2], in, i));
        AGX_TRY(auto bb, scalar(w[3], in, i));
        acc = i == 0 ? Src::val(b_.def(IrOp::fmul, {a, bb})) : Src::val(b_.def(IrOp::fmadd, {a, bb, acc}));
      }
      out.c.push_back(acc);
      return finish();
    }
    case SpvOp::OpConvertUToF: case SpvOp::OpConvertSToF: case SpvOp::OpConvertFToU: case SpvOp::OpConvertFToS: {
      Conv mode = in.op == SpvOp::OpConvertUToF ? Conv::u32_to_f : in.op == SpvOp::OpConvertSToF ? Conv::s32_to_f
                : in.op == SpvOp::OpConvertFToU ? Conv::f_to_u32 : Conv::f_to_s32;
      return per_comp([&](Src* s) -> Result<Src> { return Src::val(b_.def(IrOp::convert, {s[0]}, 32, 1, static_cast<uint64_t>(mode))); }, 1);
    }
    default:
      handled = false;
      return {};
  }
}

}  // namespace agx::compiler::detail
