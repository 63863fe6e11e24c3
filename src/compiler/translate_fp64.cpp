// Doubles (GL_ARB_gpu_shader_fp64) -> IR. A double is a 64-bit Src as the
// 64-bit integers have it (translate_int64.cpp: an immediate, a uniform
// pair or a 2 x 32-bit register pair; loads, stores, phis, selects,
// bitcasts and component moves are theirs too); the arithmetic is the
// integer sequences of fp64_lowering.h.
#include <spirv/unified1/GLSL.std.450.h>

#include <fmt/format.h>

#include "compiler/fp64_lowering.h"
#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;
using Kind = spirv::Type::Kind;

namespace {
// a == c or either is NaN (OpFUnordEqual).
Src equal_or_unordered(Fp64& fp, Pair a, Pair c) {
  Src equal = fp.equal(a, c);
  return fp.either(equal, fp.unordered(a, c));
}
}  // namespace

bool Translator::is_double(uint32_t t) const {
  const spirv::Type& st = type(scalar_type(t));
  return st.kind == Kind::float_ && st.width == 64;
}

// The scalar under vectors, matrices and arrays.
uint32_t Translator::element_scalar(uint32_t t) const {
  for (int depth = 0; depth < 8; ++depth) {
    const spirv::Type& ty = type(t);
    if (ty.kind != Kind::vector && ty.kind != Kind::matrix && ty.kind != Kind::array) break;
    t = ty.elem;
  }
  return t;
}

// A 64-bit scalar, vector, matrix or array of them: two words per scalar.
bool Translator::is_wide64(uint32_t t) const {
  const spirv::Type& ty = type(element_scalar(t));
  return (ty.kind == Kind::int_ || ty.kind == Kind::float_) && ty.width == 64;
}

bool Translator::holds_doubles(uint32_t t) const {
  const spirv::Type& ty = type(element_scalar(t));
  return ty.kind == Kind::float_ && ty.width == 64;
}

bool Translator::value_is_double(uint32_t id) const {
  if (id >= m_.bound) return false;
  if (vals_[id].kind == TVal::Kind::data) return holds_doubles(vals_[id].type);
  if (m_.is_constant[id]) return holds_doubles(m_.constants[id].type);
  return false;
}

Result<Pair> Translator::dpair(uint32_t id, const spirv::Inst& in, unsigned comp) {
  AGX_TRY(auto s, scalar(id, in, comp));
  return Pair{lo32(s), hi32(s)};
}

Status Translator::fp64_instruction(const spirv::Inst& in, bool& handled) {
  handled = false;
  const auto& w = in.w;
  switch (in.op) {
    case SpvOp::OpFAdd: case SpvOp::OpFSub: case SpvOp::OpFMul: case SpvOp::OpFDiv: case SpvOp::OpFMod: case SpvOp::OpFRem:
    case SpvOp::OpFNegate: case SpvOp::OpVectorTimesScalar: case SpvOp::OpDot:
    case SpvOp::OpFOrdEqual: case SpvOp::OpFUnordEqual: case SpvOp::OpFOrdNotEqual: case SpvOp::OpFUnordNotEqual:
    case SpvOp::OpFOrdLessThan: case SpvOp::OpFUnordLessThan: case SpvOp::OpFOrdGreaterThan: case SpvOp::OpFUnordGreaterThan:
    case SpvOp::OpFOrdLessThanEqual: case SpvOp::OpFUnordLessThanEqual: case SpvOp::OpFOrdGreaterThanEqual:
    case SpvOp::OpFUnordGreaterThanEqual: case SpvOp::OpIsNan: case SpvOp::OpIsInf: case SpvOp::OpFConvert:
    case SpvOp::OpConvertSToF: case SpvOp::OpConvertUToF: case SpvOp::OpConvertFToS: case SpvOp::OpConvertFToU:
      if (w.size() < 3 || w[1] >= m_.bound)
        return Error::decode("{}: SPIR-V word {}: too few operands or result id out of range", o_.file_name, in.word_offset);
      if (!is_double(w[0]) && !value_is_double(w[2])) return {};
      handled = true;
      return fp64_alu(in);
    case SpvOp::OpMatrixTimesScalar: case SpvOp::OpMatrixTimesVector: case SpvOp::OpVectorTimesMatrix:
    case SpvOp::OpMatrixTimesMatrix: case SpvOp::OpOuterProduct: case SpvOp::OpTranspose:
      if (w.size() < 3 || w[1] >= m_.bound) return {};
      if (!holds_doubles(w[0]) && !value_is_double(w[2])) return {};
      handled = true;
      return fp64_matrix(in);
    case SpvOp::OpSelect: {
      // Scalars and vectors of doubles are the int64 code's; matrices and
      // arrays of them: both words of each scalar.
      if (w.size() < 5 || w[1] >= m_.bound || !holds_doubles(w[0])) return {};
      Kind k = type(w[0]).kind;
      if (k != Kind::matrix && k != Kind::array) return {};
      handled = true;
      AGX_TRY(auto cv, get(w[2], in));
      TVal out = TVal::data(w[0]);
      for (unsigned i = 0; i < flat_count(w[0]); ++i) {
        Cmp c;
        if (cv->cmp) c = *cv->cmp;
        else if (cv->c.size() == 1) c = Cmp{Cond::ueq, true, cv->c[0], Src::immediate(0)};
        else return unsupported(in, "OpSelect of a double composite with a vector condition");
        AGX_TRY(auto t, dpair(w[3], in, i));
        AGX_TRY(auto e, dpair(w[4], in, i));
        Src lo = b_.select(c.cond, c.invert, c.a, c.b, t.lo, e.lo);
        out.c.push_back(pack64(lo, b_.select(c.cond, c.invert, c.a, c.b, t.hi, e.hi)));
      }
      vals_[w[1]] = std::move(out);
      return {};
    }
    case SpvOp::OpExtInst:
      if (w.size() < 5 || w[1] >= m_.bound || w[2] >= m_.bound || !m_.ext_glsl[w[2]]) return {};
      if (!holds_doubles(w[0]) && !value_is_double(w[4])) return {};
      handled = true;
      return fp64_ext(in);
    default: return {};
  }
}

Status Translator::fp64_alu(const spirv::Inst& in) {
  const auto& w = in.w;
  Int64 x(b_);
  Fp64 fp(x);
  unsigned n = std::max(1u, components(w[0]));
  TVal out = TVal::data(w[0]);
  auto need = [&](size_t k) -> Status {
    if (w.size() < k) return Error::decode("{}: SPIR-V word {}: too few operands", o_.file_name, in.word_offset);
    return {};
  };
  auto push = [&](Pair p) { out.c.push_back(pack64(p.lo, p.hi)); };
  auto bin = [&](auto fn) -> Status {
    AGX_CHECK(need(4));
    for (unsigned i = 0; i < n; ++i) {
      AGX_TRY(auto a, dpair(w[2], in, i));
      AGX_TRY(auto c, dpair(w[3], in, i));
      push(fn(a, c));
    }
    vals_[w[1]] = std::move(out);
    return {};
  };
  // A comparison's 1/0 flag; a scalar stays a Cmp.
  auto compare = [&](auto fn) -> Status {
    for (unsigned i = 0; i < n; ++i) {
      AGX_TRY(auto a, dpair(w[2], in, i));
      Pair c = a;
      if (in.op != SpvOp::OpIsNan && in.op != SpvOp::OpIsInf) {
        AGX_CHECK(need(4));
        AGX_TRY(c, dpair(w[3], in, i));
      }
      Cmp cmp{Cond::ueq, true, fn(a, c), Src::immediate(0)};
      if (n == 1) out.cmp = cmp;
      else out.c.push_back(materialize(cmp));
    }
    vals_[w[1]] = std::move(out);
    return {};
  };
  switch (in.op) {
    case SpvOp::OpFAdd: return bin([&](Pair a, Pair c) { return fp.add(a, c); });
    case SpvOp::OpFSub: return bin([&](Pair a, Pair c) { return fp.sub(a, c); });
    case SpvOp::OpFMul: return bin([&](Pair a, Pair c) { return fp.mul(a, c); });
    case SpvOp::OpFDiv: return bin([&](Pair a, Pair c) { return fp.div(a, c); });
    // GLSL mod: x - y * floor(x / y); OpFRem: x - y * trunc(x / y).
    case SpvOp::OpFMod: return bin([&](Pair a, Pair c) { return fp.sub(a, fp.mul(c, fp.floor(fp.div(a, c)))); });
    case SpvOp::OpFRem: return bin([&](Pair a, Pair c) { return fp.sub(a, fp.mul(c, fp.trunc(fp.div(a, c)))); });
    case SpvOp::OpFNegate:
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto a, dpair(w[2], in, i));
        push(fp.neg(a));
      }
      vals_[w[1]] = std::move(out);
      return {};
    case SpvOp::OpVectorTimesScalar: {
      AGX_CHECK(need(4));
      AGX_TRY(auto c, dpair(w[3], in, 0));
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto a, dpair(w[2], in, i));
        push(fp.mul(a, c));
      }
      vals_[w[1]] = std::move(out);
      return {};
    }
    case SpvOp::OpDot: {
      AGX_CHECK(need(4));
      AGX_TRY(auto av, get(w[2], in));
      std::vector<Pair> a, c;
      for (unsigned i = 0; i < av->c.size(); ++i) {
        AGX_TRY(auto p, dpair(w[2], in, i));
        AGX_TRY(auto q, dpair(w[3], in, i));
        a.push_back(p);
        c.push_back(q);
      }
      push(fp64_dot(fp, a, c));
      vals_[w[1]] = std::move(out);
      return {};
    }
    case SpvOp::OpFOrdEqual: return compare([&](Pair a, Pair c) { return fp.equal(a, c); });
    case SpvOp::OpFUnordEqual: return compare([&](Pair a, Pair c) { return equal_or_unordered(fp, a, c); });
    case SpvOp::OpFOrdNotEqual: return compare([&](Pair a, Pair c) { return fp.lnot(equal_or_unordered(fp, a, c)); });
    case SpvOp::OpFUnordNotEqual: return compare([&](Pair a, Pair c) { return fp.lnot(fp.equal(a, c)); });
    case SpvOp::OpFOrdLessThan: return compare([&](Pair a, Pair c) { return fp.less(a, c); });
    case SpvOp::OpFUnordLessThan: return compare([&](Pair a, Pair c) { return fp.lnot(fp.less_equal(c, a)); });
    case SpvOp::OpFOrdGreaterThan: return compare([&](Pair a, Pair c) { return fp.less(c, a); });
    case SpvOp::OpFUnordGreaterThan: return compare([&](Pair a, Pair c) { return fp.lnot(fp.less_equal(a, c)); });
    case SpvOp::OpFOrdLessThanEqual: return compare([&](Pair a, Pair c) { return fp.less_equal(a, c); });
    case SpvOp::OpFUnordLessThanEqual: return compare([&](Pair a, Pair c) { return fp.lnot(fp.less(c, a)); });
    case SpvOp::OpFOrdGreaterThanEqual: return compare([&](Pair a, Pair c) { return fp.less_equal(c, a); });
    case SpvOp::OpFUnordGreaterThanEqual: return compare([&](Pair a, Pair c) { return fp.lnot(fp.less(a, c)); });
    case SpvOp::OpIsNan: return compare([&](Pair a, Pair) { return fp.is_nan(a); });
    case SpvOp::OpIsInf: return compare([&](Pair a, Pair) { return fp.is_inf(a); });
    case SpvOp::OpFConvert: {
      bool to_double = is_double(w[0]);
      if (to_double == value_is_double(w[2])) return unsupported(in, "OpFConvert between these types (16-bit floats are not supported)");
      if (!to_double && type(scalar_type(w[0])).width != 32) return unsupported(in, "double to a 16-bit float");
      if (to_double) {
        AGX_TRY(auto sv, get(w[2], in));
        if (type(scalar_type(sv->type)).width != 32) return unsupported(in, "16-bit float to double");
      }
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto s, scalar(w[2], in, i));
        if (to_double) push(fp.from_f32(s));
        else out.c.push_back(fp.to_f32({lo32(s), hi32(s)}));
      }
      vals_[w[1]] = std::move(out);
      return {};
    }
    case SpvOp::OpConvertSToF: case SpvOp::OpConvertUToF: {
      if (!is_double(w[0])) return unsupported(in, "double operand of an integer-to-float conversion");
      AGX_TRY(auto sv, get(w[2], in));
      unsigned width = type(scalar_type(sv->type)).width;
      if (width != 32 && width != 64) return unsupported(in, fmt::format("{}-bit integer to double", width));
      bool sign = in.op == SpvOp::OpConvertSToF;
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto s, scalar(w[2], in, i));
        if (width == 32) push(sign ? fp.from_i32(s) : fp.from_u32(s));
        else push(sign ? fp.from_i64({lo32(s), hi32(s)}) : fp.from_u64({lo32(s), hi32(s)}));
      }
      vals_[w[1]] = std::move(out);
      return {};
    }
    case SpvOp::OpConvertFToS: case SpvOp::OpConvertFToU: {
      unsigned width = type(scalar_type(w[0])).width;
      if (width != 32 && width != 64) return unsupported(in, fmt::format("double to a {}-bit integer", width));
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto a, dpair(w[2], in, i));
        Pair r = fp.to_int64(a);
        if (width == 32) out.c.push_back(r.lo);
        else out.c.push_back(pack64(r.lo, r.hi));
      }
      vals_[w[1]] = std::move(out);
      return {};
    }
    default: return unsupported(in, "operation on doubles");
  }
}

Pair Translator::fp64_dot(Fp64& fp, const std::vector<Pair>& a, const std::vector<Pair>& c) {
  Pair acc = fp.mul(a[0], c[0]);
  for (size_t i = 1; i < a.size() && i < c.size(); ++i) acc = fp.add(acc, fp.mul(a[i], c[i]));
  return acc;
}

}  // namespace agx::compiler::detail
