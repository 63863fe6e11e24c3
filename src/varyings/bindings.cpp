// Coefficient-register bindings: the header and CF binding words that map
// slots to coefficient registers (seed "Coefficient registers"; words from
// cmdbuf.xml; W bound linear, Z from source "Fragcoord Z" at slot 1, flat
// shading's provoking vertex as in Mesa src/asahi/lib/agx_nir_lower_uvs.c).
#include <fmt/format.h>

#include "cmdstream/cmdstream.h"
#include "varyings/internal.h"
#include "varyings/varyings.h"

namespace agx::varyings {

namespace cs = agx::cmdstream;

const char* to_string(ShadeModel m) {
  switch (m) {
    case ShadeModel::kFlatVertex0: return "flat_vertex_0";
    case ShadeModel::kFlatVertex1: return "flat_vertex_1";
    case ShadeModel::kFlatVertex2: return "flat_vertex_2";
    case ShadeModel::kLinear: return "linear";
    case ShadeModel::kPerspective: return "perspective";
  }
  return "?";
}

const char* to_string(CoefficientSource s) {
  switch (s) {
    case CoefficientSource::kVarying: return "varying";
    case CoefficientSource::kFragcoordZ: return "fragcoord_z";
    case CoefficientSource::kPointCoord: return "point_coord";
    case CoefficientSource::kPrimitiveId: return "primitive_id";
    case CoefficientSource::kBarycentricCoord: return "barycentrics";
  }
  return "?";
}

bool is_flat(ShadeModel m) { return m != ShadeModel::kLinear && m != ShadeModel::kPerspective; }

unsigned provoking_vertex(ShadeModel m) {
  return m == ShadeModel::kFlatVertex1 ? 1 : m == ShadeModel::kFlatVertex2 ? 2 : 0;
}

ShadeModel flat_shade_model(unsigned provoking) {
  return provoking == 1 ? ShadeModel::kFlatVertex1
         : provoking == 2 ? ShadeModel::kFlatVertex2 : ShadeModel::kFlatVertex0;
}

namespace {

ShadeModel model_for(Interp i, unsigned provoking) {
  return i == Interp::smooth ? ShadeModel::kPerspective
         : i == Interp::linear ? ShadeModel::kLinear : flat_shade_model(provoking);
}

bool model_matches(ShadeModel m, Interp i) {
  return is_flat(m) ? i == Interp::flat
                    : (m == ShadeModel::kPerspective ? i == Interp::smooth : i == Interp::linear);
}

// The first slot of each varying, or -1 when it has none.
std::vector<int> first_slots(const SlotMap& slots, size_t count) {
  std::vector<int> first(count, -1);
  for (size_t s = 0; s < slots.slots.size(); ++s) {
    int v = slots.slots[s].varying;
    if (v >= 0 && size_t(v) < count && first[v] < 0) first[v] = int(s);
  }
  return first;
}

CfBindings empty_bindings(const SlotMap& slots) {
  CfBindings b;
  b.num_32bit_slots = slots.num_32bit_slots;
  return b;
}

Status check_varying_slots(size_t i, const CfBinding& c, const SlotMap& slots,
                           const Interface& iface) {
  unsigned n32 = slots.num_32bit_slots;
  bool pairs = c.base_slot >= n32;
  unsigned covered = pairs ? (c.components + 1) / 2 : c.components;
  if (c.base_slot + covered > slots.slots.size())
    return Error::invalid_argument("binding {}: slots {}..{} past the {} slots", i, c.base_slot,
                                   c.base_slot + covered - 1, slots.slots.size());
  if (!pairs && c.base_slot + covered > n32)
    return Error::invalid_argument("binding {}: slots {}..{} cross from 32-bit slots into "
                                   "16-bit pairs (at {})", i, c.base_slot,
                                   c.base_slot + covered - 1, n32);
  for (unsigned s = c.base_slot; s < c.base_slot + covered; ++s) {
    const Slot& slot = slots.slots[s];
    if (slot.source == SlotSource::w && c.shade_model == ShadeModel::kPerspective)
      return Error::invalid_argument("binding {}: W (slot 0) cannot be perspective-divided", i);
    if (slot.source == SlotSource::z)
      return Error::invalid_argument("binding {}: slot {} holds Z; bind it with source "
                                     "fragcoord_z", i, s);
    if (slot.source != SlotSource::pair16 || slot.varying < 0) continue;
    Interp written = iface.varyings[slot.varying].interp;
    if (!model_matches(c.shade_model, written))
      return Error::invalid_argument(
          "binding {}: 16-bit pair in slot {} ('{}') was written {} but is bound {}; a packed "
          "16-bit pair cannot mix interpolation modes", i, s, iface.varyings[slot.varying].name,
          to_string(written), to_string(c.shade_model));
  }
  return {};
}

Status check_binding(size_t i, const CfBinding& c, const CfBindings& b, const SlotMap& slots,
                     const Interface& iface) {
  if (c.components < 1 || c.components > 4)
    return Error::invalid_argument("binding {}: {} components (1..4)", i, c.components);
  unsigned end = c.base_cf + c.components;
  if (end > kCoefficientRegisterFile)
    return Error::invalid_argument("binding {}: cf{}..cf{} is past the coefficient register "
                                   "file (cf0..cf{})", i, c.base_cf, end - 1,
                                   kCoefficientRegisterFile - 1);
  if (end > b.num_cf)
    return Error::invalid_argument("binding {}: cf{}..cf{} is past the {} coefficient registers "
                                   "of the header", i, c.base_cf, end - 1, b.num_cf);
  switch (c.source) {
    case CoefficientSource::kVarying:
      return check_varying_slots(i, c, slots, iface);
    case CoefficientSource::kFragcoordZ:
      if (!slots.has_z || c.base_slot != 1 || c.components != 1)
        return Error::invalid_argument("binding {}: fragcoord Z needs Z in the slots (Output "
                                       "Select 'Frag coord Z'), base slot 1, 1 component", i);
      return {};
    case CoefficientSource::kBarycentricCoord:
      if (c.components != 2)
        return Error::invalid_argument("binding {}: barycentrics are vec2 only", i);
      return {};
    default:
      return {};
  }
}

}  // namespace

Status validate(const CfBindings& b, const SlotMap& slots, const Interface& iface) {
  if (b.num_32bit_slots == 0)
    return Error::invalid_argument("CF binding header: 0 32-bit slots (W is always a slot)");
  if (b.num_32bit_slots != slots.num_32bit_slots)
    return Error::invalid_argument("CF binding header: {} 32-bit slots, remapping made {}",
                                   b.num_32bit_slots, slots.num_32bit_slots);
  if (b.num_cf > kMaxCoefficientRegisters)
    return Error::limit("{} coefficient registers: the header holds at most {}", b.num_cf,
                        kMaxCoefficientRegisters);
  if (b.bindings.size() > kMaxBindings)
    return Error::limit("{} bindings: the CF binding count holds at most {}", b.bindings.size(),
                        kMaxBindings);
  std::vector<int> owner(kCoefficientRegisterFile, -1);
  for (size_t i = 0; i < b.bindings.size(); ++i) {
    const CfBinding& c = b.bindings[i];
    AGX_CHECK(check_binding(i, c, b, slots, iface));
    for (unsigned r = c.base_cf; r < c.base_cf + c.components; ++r) {
      if (owner[r] >= 0)
        return Error::invalid_argument("binding {}: cf{} is already bound by binding {}", i, r,
                                       owner[r]);
      owner[r] = int(i);
    }
  }
  return {};
}

Result<CfBindings> compile_time_bindings(const SlotMap& slots, const Interface& iface,
                                         unsigned provoking) {
  if (provoking > 2) return Error::invalid_argument("provoking vertex {} (0..2)", provoking);
  CfBindings b = empty_bindings(slots);
  bool any_user = slots.slots.size() > (slots.has_z ? 2u : 1u);
  if (!any_user && !slots.has_z) return b;
  unsigned cf = 0;
  b.bindings.push_back({1, ShadeModel::kLinear, CoefficientSource::kVarying, 0, cf++});
  if (slots.has_z)
    b.bindings.push_back({1, ShadeModel::kLinear, CoefficientSource::kFragcoordZ, 1, cf++});
  std::vector<int> first = first_slots(slots, iface.varyings.size());
  for (size_t s = 0; s < slots.slots.size(); ++s) {
    int v = slots.slots[s].varying;
    if (v < 0 || first[v] != int(s)) continue;
    const Varying& var = iface.varyings[v];
    b.bindings.push_back({var.components, model_for(var.interp, provoking),
                          CoefficientSource::kVarying, unsigned(s), cf});
    cf += var.components;
  }
  b.num_cf = cf;
  AGX_CHECK(validate(b, slots, iface));
  return b;
}

Result<CfBindings> separable_bindings(const SlotMap& slots, const Interface& iface,
                                      std::span<const SeparableEntry> entries, unsigned w_cf,
                                      unsigned provoking) {
  if (provoking > 2) return Error::invalid_argument("provoking vertex {} (0..2)", provoking);
  CfBindings b = empty_bindings(slots);
  b.bindings.push_back({1, ShadeModel::kLinear, CoefficientSource::kVarying, 0, w_cf});
  std::vector<int> first = first_slots(slots, iface.varyings.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const SeparableEntry& e = entries[i];
    CfBinding c{e.components, ShadeModel::kLinear, e.source, 0, e.base_cf};
    if (e.source == CoefficientSource::kVarying) {
      if (e.varying < 0 || size_t(e.varying) >= iface.varyings.size())
        return Error::invalid_argument("entry {}: no varying {}", i, e.varying);
      if (first[e.varying] < 0)
        return Error::invalid_argument("entry {}: varying '{}' has no slot (Output Select has "
                                       "'Varyings' clear)", i, iface.varyings[e.varying].name);
      const Varying& v = iface.varyings[e.varying];
      c.components = v.components;
      c.shade_model = model_for(v.interp, provoking);
      c.base_slot = unsigned(first[e.varying]);
    } else if (e.source == CoefficientSource::kFragcoordZ) {
      c.components = 1;
      c.base_slot = 1;
    } else if (e.source == CoefficientSource::kPrimitiveId) {
      c.components = 1;
      c.shade_model = flat_shade_model(provoking);
    } else if (e.source == CoefficientSource::kBarycentricCoord) {
      c.components = 2;
      c.shade_model = ShadeModel::kPerspective;
    } else if (c.components == 0) {
      c.components = 2;  // point coord: (s, t)
    }
    b.bindings.push_back(c);
  }
  for (const CfBinding& c : b.bindings) b.num_cf = std::max(b.num_cf, c.base_cf + c.components);
  AGX_CHECK(validate(b, slots, iface));
  return b;
}

Result<std::vector<uint32_t>> pack_bindings(const CfBindings& b) {
  std::vector<uint32_t> words;
  cs::CfBindingHeader h;
  h.number_of_32_bit_slots = b.num_32bit_slots;
  h.number_of_coefficient_registers = b.num_cf;
  AGX_TRY(words.emplace_back(), pack_word(h));
  for (size_t i = 0; i < b.bindings.size(); ++i) {
    const CfBinding& c = b.bindings[i];
    cs::CfBinding w;
    w.components = c.components;
    w.shade_model = c.shade_model;
    w.source = c.source;
    w.base_slot = c.base_slot;
    w.base_coefficient_register = c.base_cf;
    auto packed = pack_word(w);
    if (!packed.ok()) return std::move(packed).error().context(fmt::format("binding {}", i));
    words.push_back(*packed);
  }
  return words;
}

Result<CfBindings> unpack_bindings(std::span<const uint32_t> words) {
  if (words.empty()) return Error::decode("CF bindings: no header word");
  auto word = [&](size_t i) { return word_bytes(words[i]); };
  AGX_CHECK(cs::check_strict(cs::kCfBindingHeader, word(0)));
  AGX_TRY(cs::CfBindingHeader h, cs::unpack<cs::CfBindingHeader>(word(0)));
  CfBindings b;
  b.num_32bit_slots = unsigned(h.number_of_32_bit_slots);
  b.num_cf = unsigned(h.number_of_coefficient_registers);
  for (size_t i = 1; i < words.size(); ++i) {
    // Unpack reads every bit pattern; bindings this unit reads must be clean.
    if (Status s = cs::check_strict(cs::kCfBinding, word(i)); !s.ok())
      return std::move(s).error().context(fmt::format("binding {}", i - 1));
    AGX_TRY(cs::CfBinding f, cs::unpack<cs::CfBinding>(word(i)));
    b.bindings.push_back({unsigned(f.components), f.shade_model, f.source, unsigned(f.base_slot),
                          unsigned(f.base_coefficient_register)});
  }
  return b;
}

Result<std::vector<CfContent>> coefficient_contents(const CfBindings& b, const SlotMap& slots) {
  std::vector<CfContent> out(b.num_cf);
  for (size_t i = 0; i < b.bindings.size(); ++i) {
    const CfBinding& c = b.bindings[i];
    bool pairs = c.source == CoefficientSource::kVarying && c.base_slot >= b.num_32bit_slots;
    for (unsigned k = 0; k < c.components; ++k) {
      unsigned r = c.base_cf + k;
      if (r >= out.size())
        return Error::invalid_argument("binding {}: cf{} past the header's {}", i, r, b.num_cf);
      unsigned slot = c.source != CoefficientSource::kVarying ? c.base_slot
                      : pairs ? c.base_slot + k / 2 : c.base_slot + k;
      if (c.source == CoefficientSource::kVarying && slot >= slots.slots.size())
        return Error::invalid_argument("binding {}: slot {} past the {} slots", i, slot,
                                       slots.slots.size());
      out[r] = {true, c.source, c.shade_model, slot, pairs ? k % 2 : 0, pairs, k};
    }
  }
  return out;
}

}  // namespace agx::varyings
