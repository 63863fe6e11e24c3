// Memory and texture operands -> fields (the reverse of src/isa/operands.cpp
// for these kinds; dougallj/applegpu applegpu.py MemoryRegDesc,
// MemoryBaseDesc, MemoryIndexDesc, ThreadgroupMemoryBaseDesc,
// TextureDesc, SamplerDesc, CoordsDesc, LodDesc, SampleCompareOffDesc,
// AtomicSourceDesc, AtomicDestinationDesc).
#include "compiler/machine.h"

namespace agx::compiler {

using isa::Operand;
using isa::OperandDesc;
using K = isa::OperandKind;

// Register tuples: type bit 1 = 32-bit registers (value 2N), 0 = halves;
// the presence bit (x) where the row has one.
Status Emit::data(OperandFields f, const Operand& o, OperandDesc desc) {
  if (o.kind == K::kNone && f.x != kNoField) field(f.x, 0);
  else if (o.kind == K::kReg32) field(f.v, o.index * 2u), field(f.t, 1), field(f.x, 1);
  else if (o.kind == K::kReg16) field(f.v, o.index), field(f.t, 0), field(f.x, 1);
  else return fail(o, "consecutive r16 or r32 registers");
  add(o, desc);
  return {};
}

// A 64-bit base: a register pair (type 0) or a uniform pair (type 1).
Status Emit::memory_base(OperandFields f, const Operand& o) {
  if (o.kind != K::kReg64 && o.kind != K::kUReg64) return fail(o, "a register or uniform pair");
  if (o.kind == K::kReg64 && o.index % 2) return fail(o, "an even register pair");
  field(f.v, o.index * 2u), field(f.t, o.kind == K::kUReg64 ? 1 : 0);
  add(o, OperandDesc::kMemoryBase);
  return {};
}

// An index or offset: a signed 16-bit immediate (type 1) or a register
// (type 0): r32 for device and stack memory, r16 for threadgroup memory.
Status Emit::memory_index(OperandFields f, const Operand& o, OperandDesc desc) {
  const bool local = desc == OperandDesc::kThreadgroupIndex;
  if (o.kind == K::kImm) {
    if (o.value < -0x8000 || o.value > 0x7FFF) return fail(o, "a signed 16-bit offset");
    field(f.v, static_cast<uint32_t>(o.value) & 0xFFFFu), field(f.t, 1);
  } else if (o.kind == (local ? K::kReg16 : K::kReg32)) {
    field(f.v, local ? o.index : o.index * 2u), field(f.t, 0);
  } else {
    return fail(o, local ? "an r16 register or a signed 16-bit offset" : "an r32 register or a signed 16-bit offset");
  }
  add(o, desc);
  return {};
}

// Threadgroup base: r16 (type 0), u16 (type bit 0, uniform bit 8 in type
// bit 1) or 0 (type 2).
Status Emit::local_base(OperandFields f, const Operand& o) {
  if (o.kind == K::kImm && o.value == 0) field(f.v, 0), field(f.t, 2);
  else if (o.kind == K::kReg16) field(f.v, o.index), field(f.t, 0);
  else if (o.kind == K::kUReg16) field(f.v, o.index & 0xFFu), field(f.t, 1u | (o.index >> 8) << 1);
  else return fail(o, "an r16 register, a u16 uniform or 0");
  add(o, OperandDesc::kThreadgroupMemoryBase);
  return {};
}

Status Emit::atomic_source(size_t f, const Operand& o) {
  if (o.kind != K::kReg32 && o.kind != K::kReg64) return fail(o, "an r32 register or pair");
  field(f, o.index * 2u);
  add(o, OperandDesc::kAtomicSource);
  return {};
}

Status Emit::atomic_dest(OperandFields f, const Operand& o) {
  if (o.kind == K::kNone) field(f.v, 0), field(f.t, 0);
  else if (o.kind == K::kReg32) field(f.v, o.index * 2u), field(f.t, 1);
  else return fail(o, "an r32 register or none");
  add(o, OperandDesc::kAtomicDestination);
  return {};
}

// Texture state: tsN (type 0) or its number in an r16 (type 1).
Status Emit::texture(OperandFields f, const Operand& o) {
  if (o.kind == K::kTextureState) field(f.v, o.index), field(f.t, 0);
  else if (o.kind == K::kReg16) field(f.v, o.index), field(f.t, 1);
  else return fail(o, "a texture state tsN or an r16 register");
  add(o, OperandDesc::kTexture);
  return {};
}

Status Emit::sampler(OperandFields f, const Operand& o) {
  if (o.kind == K::kSamplerState) field(f.v, o.index), field(f.t, 0);
  else if (o.kind == K::kReg16) field(f.v, o.index), field(f.t, 1);
  else return fail(o, "a sampler state ssN or an r16 register");
  add(o, OperandDesc::kSampler);
  return {};
}

// Coordinates: 32-bit registers (s = 0), or with 16-bit extras (layer,
// sample) every half from the first (s = 0 as well: the "wide" form of
// 2 x count + 1 halves); x is the s field.
Status Emit::coords(OperandFields f, const Operand& o, uint32_t dim) {
  auto size = isa::tex_size(dim);
  if (!size) return fail(o, "coordinates of a known dimension");
  if (o.kind == K::kReg32 && o.count == size->count) {
    field(f.v, o.index * 2u);
  } else if (o.kind == K::kReg16 && size->extra && o.count == 2u * size->count + 1) {
    field(f.v, o.index);
  } else {
    return fail(o, "coordinate registers of the dimension");
  }
  field(f.t, 0), field(f.x, 0);
  add(o, OperandDesc::kCoords);
  return {};
}

Status Emit::lod(size_t f, const Operand& o) {
  if (o.kind == K::kImm && o.value == 0) field(f, 0);
  else if (o.kind == K::kReg32) field(f, o.index * 2u);
  else if (o.kind == K::kReg16) field(f, o.index);
  else return fail(o, "a LOD register or 0");
  add(o, OperandDesc::kLod);
  return {};
}

// O: the compare reference (r32, type 0), the packed offset (r16, type 1)
// or both (the offset half right after the reference: kText).
Status Emit::compare_offset(OperandFields f, const Operand& o) {
  if (o.kind == K::kEmpty) field(f.t, 0);
  else if (o.kind == K::kText) field(f.v, static_cast<uint32_t>(o.value) - 2), field(f.t, 1);
  else if (o.kind == K::kReg32) field(f.v, o.index * 2u), field(f.t, 0);
  else if (o.kind == K::kReg16) field(f.v, o.index), field(f.t, 1);
  else return fail(o, "a compare r32 and/or an offset r16");
  add(o, OperandDesc::kSampleCompareOff);
  return {};
}

Status Emit::pbe_lod(OperandFields f, const Operand& o) {
  if (o.kind == K::kImm && o.value >= 0) field(f.v, static_cast<uint32_t>(o.value)), field(f.t, 1);
  else if (o.kind == K::kReg16) field(f.v, o.index), field(f.t, 0);
  else return fail(o, "an r16 register or an immediate");
  add(o, OperandDesc::kPbeLod);
  return {};
}

void Emit::no_uniform_pair(size_t f) {
  field(f, 0);
  add(Operand{}, OperandDesc::kSampleUReg);
}

// kSampleMask: an immediate when a 2-bit type field is 0 or a 1-bit one is
// 1 (src/isa/operands.cpp, after applegpu's SampleMaskDesc).
void Emit::sample_mask(OperandFields f, uint32_t mask) {
  field(f.v, mask);
  field(f.t, isa::field_width(m_.instr.op, f.t) == 2 ? 0 : 1);
  add(imm_operand(mask), OperandDesc::kSampleMask);
}

void Emit::own_pixel(OperandFields f) {
  field(f.v, 0), field(f.t, 0);
  add(imm_operand(0), OperandDesc::kTileCoord);
}

void Emit::tile_offset(size_t f, unsigned half) {
  field(f, half);
  add(reg16(half), OperandDesc::kTileToMemoryReg);
}

}  // namespace agx::compiler
