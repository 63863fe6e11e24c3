// Loads and stores of 8/16-bit scalars and vectors (StorageBuffer8/16BitAccess,
// UniformAndStorageBuffer8/16BitAccess, StoragePushConstant8/16, shared
// memory). Buffers and threadgroup memory move 1- or 2-byte elements with
// the i8/i16 memory formats into 32-bit registers, zero-extended
// (dougallj/applegpu applegpu.py MEMORY_FORMATS and DeviceLoad exec;
// docs/usc.md "Memory formats"): the integers' widened form as loaded, and
// the raw half bits that one float conversion widens. Push constants and
// loose uniforms are 32-bit uniform words: the element's bits are shifted
// out of its word.
#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

namespace {

// Component i of a strided vector (a row-major f16mat column), as a
// pointer to that one scalar of type `scalar`.
Ptr strided_component(const Ptr& p, unsigned i, uint32_t scalar) {
  Ptr q = p;
  q.const_B += i * p.comp_stride_B;
  q.type = scalar;
  q.comp_stride_B = 0;
  return q;
}

}  // namespace

Status Translator::load_small(const spirv::Inst& in, const Ptr& p) {
  AGX_TRY(auto c, load_small_values(in, p, in.w[0]));
  TVal out = TVal::data(in.w[0]);
  out.c = std::move(c);
  vals_[in.w[1]] = std::move(out);
  return {};
}

// The widened components of an 8/16-bit scalar or vector of type `rtype`
// at the pointer (`count`: that many consecutive scalars of type rtype).
Result<std::vector<Src>> Translator::load_small_values(const spirv::Inst& in, const Ptr& p, uint32_t rtype, unsigned count) {
  unsigned n = count ? count : components(rtype), bits = small_width(rtype), elem_B = bits / 8;
  bool half = is_half(rtype);
  if (!n) return unsupported(in, "an 8/16-bit scalar load of a composite (composites go through translate_struct_copy.cpp)");
  if (in_push_memory(p)) {  // the block in memory: as a buffer
    AGX_TRY(const Ptr m, memory_view(p, in));
    return load_small_values(in, m, rtype, count);
  }
  if (p.comp_stride_B && p.comp_stride_B != elem_B) {
    // A column of a row-major f16mat (or of a local one): scalar by scalar.
    std::vector<Src> c;
    for (unsigned i = 0; i < n; ++i) {
      const Ptr q = strided_component(p, i, scalar_type(rtype));
      AGX_TRY(auto v, load_small_values(in, q, q.type));
      c.push_back(v[0]);
    }
    return c;
  }
  std::vector<Src> out;
  switch (p.space) {
    case Ptr::Space::push: {
      for (unsigned i = 0; i < n && !p.terms.empty(); ++i) {  // run-time indices: translate_push_dynamic.cpp
        AGX_TRY(auto v, push_small(p, i * elem_B, bits, in));
        out.push_back(half ? from_half_bits(v, true) : v);
      }
      for (unsigned i = 0; i < n && p.terms.empty(); ++i) {
        uint32_t off_B = p.const_B + i * elem_B;
        Src word = Src::uniform(p.uniform + off_B / 4);
        uint32_t sh = off_B % 4 * 8;
        Src v = sh ? b_.binary(IrOp::ushr, word, Src::immediate(sh)) : word;
        if (half) out.push_back(from_half_bits(v, sh == 16));
        else out.push_back(sh + bits == 32 ? v : truncate(v, bits));
      }
      break;
    }
    case Ptr::Space::buffer: case Ptr::Space::shared: {
      ValueId d;
      if (p.space == Ptr::Space::buffer) {
        uint32_t shift = 0;
        AGX_TRY(auto idx, buffer_index(p, elem_B, in, &shift));
        d = b_.def(IrOp::device_load, {buffer_base(p), idx}, 32, static_cast<uint8_t>(n), mem_imm(shift, elem_B));
      } else {
        AGX_TRY(auto addr, shared_address(p));
        d = b_.def(IrOp::local_load, {addr}, 32, static_cast<uint8_t>(n), mem_imm(0, elem_B));
      }
      for (unsigned i = 0; i < n; ++i) {
        Src c = Src::val(d, 32, static_cast<uint8_t>(i));
        out.push_back(half ? from_half_bits(c, true) : c);
      }
      break;
    }
    default: return unsupported(in, "an 8/16-bit load from this storage class");
  }
  return out;
}

Status Translator::store_small(const spirv::Inst& in, const Ptr& p, const std::vector<Src>& data, unsigned count) {
  unsigned n = count ? count : components(p.type), bits = small_width(p.type), elem_B = bits / 8;
  if (!n) return unsupported(in, "an 8/16-bit scalar store of a composite (composites go through translate_struct_copy.cpp)");
  if (data.size() != n) return unsupported(in, "store of a value of another shape");
  if (p.comp_stride_B && p.comp_stride_B != elem_B) {
    for (unsigned i = 0; i < n; ++i) AGX_CHECK(store_small(in, strided_component(p, i, scalar_type(p.type)), {data[i]}));
    return {};
  }
  // The store takes each 32-bit register's low 8/16 bits; halves go from
  // the 16-bit registers they are rounded into (a 16-bit vector, Rt = 0).
  Src stored;
  if (is_half(p.type)) {
    std::vector<Src> halves;
    for (const Src& s : data) halves.push_back(half_register(s));
    if (halves.size() == 1 && halves[0].is_value()) stored = halves[0];
    else stored = Src::val(b_.def(IrOp::collect, halves, 16, static_cast<uint8_t>(halves.size())), 16);
  } else {
    stored = gather(b_, data);
  }
  switch (p.space) {
    case Ptr::Space::buffer: {
      uint32_t shift = 0;
      AGX_TRY(auto idx, buffer_index(p, elem_B, in, &shift));
      b_.emit(IrOp::device_store, {stored, buffer_base(p), idx}, mem_imm(shift, elem_B));
      return {};
    }
    case Ptr::Space::shared: {
      AGX_TRY(auto addr, shared_address(p));
      b_.emit(IrOp::local_store, {stored, addr}, mem_imm(0, elem_B));
      return {};
    }
    default: return unsupported(in, "an 8/16-bit store to a read-only or unsupported storage class");
  }
}

}  // namespace agx::compiler::detail
