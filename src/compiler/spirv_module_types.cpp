// SPIR-V reader: type and constant declarations (spirv_parser.h). An id is
// defined once, and a type's operands name types declared before it, so
// types have no cycles.
#include "compiler/spirv_parser.h"

namespace agx::compiler::spirv {

namespace {

bool is_type_op(spv::Op op) {
  switch (op) {
    case spv::Op::OpTypeVoid: case spv::Op::OpTypeBool: case spv::Op::OpTypeInt: case spv::Op::OpTypeFloat:
    case spv::Op::OpTypeVector: case spv::Op::OpTypeArray: case spv::Op::OpTypeRuntimeArray:
    case spv::Op::OpTypeStruct: case spv::Op::OpTypePointer: case spv::Op::OpTypeFunction:
    case spv::Op::OpTypeImage: case spv::Op::OpTypeSampler: case spv::Op::OpTypeSampledImage:
    case spv::Op::OpTypeMatrix: case spv::Op::OpTypeOpaque: case spv::Op::OpTypeEvent:
    case spv::Op::OpTypeDeviceEvent: case spv::Op::OpTypeReserveId: case spv::Op::OpTypeQueue:
    case spv::Op::OpTypePipe: case spv::Op::OpTypeAccelerationStructureKHR: case spv::Op::OpTypeRayQueryKHR:
      return true;
    default: return false;
  }
}

bool is_constant_op(spv::Op op) {
  switch (op) {
    case spv::Op::OpConstantTrue: case spv::Op::OpConstantFalse: case spv::Op::OpConstant:
    case spv::Op::OpConstantComposite: case spv::Op::OpConstantNull: case spv::Op::OpSpecConstant:
    case spv::Op::OpSpecConstantTrue: case spv::Op::OpSpecConstantFalse: case spv::Op::OpSpecConstantComposite:
      return true;
    default: return false;
  }
}

}  // namespace

Status Parser::check_redefinition(const Inst& inst) {
  std::span<const uint32_t> w = inst.w;
  auto defined = [&](uint32_t id) { return m_.types[id].kind != Type::Kind::none || m_.is_constant[id]; };
  if (is_type_op(inst.op) && !w.empty() && id_ok(w[0]) && defined(w[0])) return bad(inst, "id defined twice");
  if (is_constant_op(inst.op) && w.size() > 1 && id_ok(w[1]) && defined(w[1])) return bad(inst, "id defined twice");
  return {};
}

Type& Parser::define_type(uint32_t id, Type::Kind kind) {
  Type& t = m_.types[id];
  t.kind = kind;
  return t;
}

Result<bool> Parser::type(const Inst& inst) {
  if (!is_type_op(inst.op)) return false;
  AGX_CHECK(check_redefinition(inst));
  std::span<const uint32_t> w = inst.w;
  auto need = [&](size_t n) { return w.size() >= n && id_ok(w[0]); };
  switch (inst.op) {
    case spv::Op::OpTypeVoid: if (!need(1)) return bad(inst, "bad type"); define_type(w[0], Type::Kind::void_); return true;
    case spv::Op::OpTypeBool: if (!need(1)) return bad(inst, "bad type"); define_type(w[0], Type::Kind::bool_); return true;
    case spv::Op::OpTypeInt: {
      if (!need(3)) return bad(inst, "bad OpTypeInt");
      Type& t = define_type(w[0], Type::Kind::int_); t.width = w[1]; t.is_signed = w[2]; return true;
    }
    case spv::Op::OpTypeFloat: {
      if (!need(2)) return bad(inst, "bad OpTypeFloat");
      define_type(w[0], Type::Kind::float_).width = w[1];
      return true;
    }
    case spv::Op::OpTypeVector: {
      if (!need(3) || !type_ok(w[1]) || w[2] < 2 || w[2] > 4) return bad(inst, "bad OpTypeVector");
      Type& t = define_type(w[0], Type::Kind::vector); t.elem = w[1]; t.count = w[2]; return true;
    }
    case spv::Op::OpTypeMatrix: {
      // Columns of a float vector type, 2-4 of them.
      if (!need(3) || !type_ok(w[1]) || m_.types[w[1]].kind != Type::Kind::vector || w[2] < 2 || w[2] > 4)
        return bad(inst, "bad OpTypeMatrix");
      Type& t = define_type(w[0], Type::Kind::matrix); t.elem = w[1]; t.count = w[2]; return true;
    }
    case spv::Op::OpTypeArray: {
      if (!need(3) || !type_ok(w[1]) || !id_ok(w[2])) return bad(inst, "bad OpTypeArray");
      Type& t = define_type(w[0], Type::Kind::array); t.elem = w[1];
      if (!m_.is_constant[w[2]]) return bad(inst, "array length is not a constant");
      t.count = static_cast<uint32_t>(m_.constants[w[2]].bits);
      return true;
    }
    case spv::Op::OpTypeRuntimeArray: {
      if (!need(2) || !type_ok(w[1])) return bad(inst, "bad OpTypeRuntimeArray");
      define_type(w[0], Type::Kind::runtime_array).elem = w[1];
      return true;
    }
    case spv::Op::OpTypeStruct: {
      if (!need(1)) return bad(inst, "bad OpTypeStruct");
      Type& t = define_type(w[0], Type::Kind::struct_);
      t.members.assign(w.begin() + 1, w.end());
      for (uint32_t mem : t.members) if (!type_ok(mem) || mem == w[0]) return bad(inst, "bad struct member");
      t.member_offsets.resize(t.members.size(), UINT32_MAX);
      return true;
    }
    case spv::Op::OpTypePointer: {
      if (!need(3) || !type_ok(w[2])) return bad(inst, "bad OpTypePointer");
      Type& t = define_type(w[0], Type::Kind::pointer); t.storage = static_cast<spv::StorageClass>(w[1]); t.elem = w[2];
      return true;
    }
    case spv::Op::OpTypeFunction: if (!need(1)) return bad(inst, "bad type"); define_type(w[0], Type::Kind::function); return true;
    case spv::Op::OpTypeImage: {
      if (!need(8) || !type_ok(w[1])) return bad(inst, "bad OpTypeImage");
      Type& t = define_type(w[0], Type::Kind::image);
      t.elem = w[1];
      t.image_dim = static_cast<spv::Dim>(w[2]);
      t.arrayed = w[4] != 0;
      t.multisampled = w[5] != 0;
      t.sampled = w[6];
      t.image_format = static_cast<spv::ImageFormat>(w[7]);
      return true;
    }
    case spv::Op::OpTypeSampledImage:
      if (!need(2) || !type_ok(w[1]) || m_.types[w[1]].kind != Type::Kind::image) return bad(inst, "bad OpTypeSampledImage");
      define_type(w[0], Type::Kind::sampled_image).elem = w[1];
      return true;
    case spv::Op::OpTypeSampler: if (!need(1)) return bad(inst, "bad type"); define_type(w[0], Type::Kind::sampler); return true;
    default:  // opaque, event, queue, pipe, ray tracing types: declared, never used by a compiled shader
      if (!need(1)) return bad(inst, "bad type");
      define_type(w[0], Type::Kind::other);
      return true;
  }
}

Constant& Parser::define_constant(const Inst& inst) {
  const uint32_t id = inst.w[1];
  Constant& c = m_.constants[id];
  c.type = inst.w[0];
  m_.is_constant[id] = 1;
  return c;
}

// Constants; specialization constants take their default values.
Result<bool> Parser::constant(const Inst& inst) {
  AGX_CHECK(check_redefinition(inst));
  std::span<const uint32_t> w = inst.w;
  auto need = [&](size_t n) { return w.size() >= n && id_ok(w[1]) && type_ok(w[0]); };
  switch (inst.op) {
    case spv::Op::OpConstantTrue: case spv::Op::OpConstantFalse:
    case spv::Op::OpSpecConstantTrue: case spv::Op::OpSpecConstantFalse:
      if (!need(2)) return bad(inst, "bad constant");
      define_constant(inst).bits = inst.op == spv::Op::OpConstantTrue || inst.op == spv::Op::OpSpecConstantTrue;
      return true;
    case spv::Op::OpConstant: case spv::Op::OpSpecConstant:
      if (!need(3)) return bad(inst, "bad constant");
      define_constant(inst).bits = w[2] | (w.size() > 3 ? uint64_t{w[3]} << 32 : 0);
      return true;
    case spv::Op::OpConstantComposite: case spv::Op::OpSpecConstantComposite: {
      if (!need(2)) return bad(inst, "bad constant");
      for (uint32_t p : w.subspan(2))
        if (!id_ok(p) || !m_.is_constant[p] || p == w[1]) return bad(inst, "composite part is not a constant");
      Constant& c = define_constant(inst);
      c.composite = true;
      c.parts.assign(w.begin() + 2, w.end());
      return true;
    }
    case spv::Op::OpUndef:  // at module scope (merge-return's phis use one): any value, so zero
      if (in_function_) return false;
      [[fallthrough]];
    case spv::Op::OpConstantNull:
      if (!need(2)) return bad(inst, "bad constant");
      define_constant(inst).null = true;
      return true;
    case spv::Op::OpSpecConstantOp:
      if (need(4)) {
        if (auto v = fold_spec_constant_op(m_, w)) {
          define_constant(inst).bits = *v;
          return true;
        }
      }
      // What SPIRV-Tools' fold-spec-constant-op pass could not fold.
      return Error::unsupported("SPIR-V: word {}: OpSpecConstantOp with opcode {} (a specialization constant expression "
                                "SPIRV-Tools does not fold) is not supported",
                                inst.word_offset, w.size() > 2 ? w[2] : 0);
    default: return false;
  }
}

}  // namespace agx::compiler::spirv
