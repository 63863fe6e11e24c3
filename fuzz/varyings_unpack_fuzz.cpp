// Fuzzes unpacking of the varyings packets from random words: every struct
// table, CF binding lists (validated against a fixed linkage), and Output
// Select remapping. Whatever unpacks must pack back to the same words.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cmdstream/cmdstream.h"
#include "varyings/varyings.h"

namespace {

struct Linkage {
  agx::varyings::Interface iface;
  agx::varyings::VertexOutputLayout layout;
  agx::varyings::SlotMap slots;
};

const Linkage& linkage() {
  static const Linkage l = [] {
    Linkage k;
    k.iface.varyings = {{"a", 4, 32, agx::varyings::Interp::smooth},
                        {"b", 3, 16, agx::varyings::Interp::flat},
                        {"c", 2, 16, agx::varyings::Interp::linear}};
    k.iface.fragcoord_z = true;
    k.iface.point_size = true;
    k.layout = *agx::varyings::layout_vertex_outputs(k.iface);
    k.slots = *agx::varyings::remap(k.layout.output_select, k.layout);
    return k;
  }();
  return l;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint32_t> words(size / 4);
  if (!words.empty()) std::memcpy(words.data(), data, words.size() * 4);
  if (words.empty()) return 0;
  namespace cs = agx::cmdstream;
  const cs::StructDesc* varying_structs[] = {&cs::kCfBindingHeader, &cs::kCfBinding,
                                             &cs::kVaryingCounts, &cs::kOutputSelect,
                                             &cs::kVdmStateVertexOutputs};
  std::span<const uint8_t> first(data, 4);
  for (const cs::StructDesc* s : varying_structs) {
    auto v = cs::unpack(*s, first);
    if (!v.ok()) __builtin_trap();  // unpack never refuses 4 bytes
    (void)cs::print(*s, *v);
    if (!cs::check_strict(*s, first).ok()) continue;
    auto again = cs::pack(*s, v->values);
    if (!again.ok() || !std::equal(again->begin(), again->end(), first.begin())) __builtin_trap();
  }
  const Linkage& k = linkage();
  (void)agx::varyings::remap(words[0], k.layout);
  auto b = agx::varyings::unpack_bindings(words);
  if (!b.ok()) return 0;
  auto packed = agx::varyings::pack_bindings(*b);
  if (!packed.ok() || *packed != words) __builtin_trap();
  if (agx::varyings::validate(*b, k.slots, k.iface).ok()) {
    if (!agx::varyings::coefficient_contents(*b, k.slots).ok()) __builtin_trap();
  }
  return 0;
}
