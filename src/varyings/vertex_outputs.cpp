// Vertex output order and the words that describe it: Output Select,
// Varying Counts (32- and 16-bit) and VDM State Vertex Outputs. Order from
// the seed's "Ordering of vertex outputs with all outputs used"; the words'
// meaning from Mesa src/asahi/lib/agx_nir_lower_uvs.c (output counts 1 and
// 2 both hold the total; layer/viewport sets Viewport and Render target).
#include <fmt/format.h>

#include <set>

#include "cmdstream/cmdstream.h"
#include "varyings/internal.h"
#include "varyings/varyings.h"

namespace agx::varyings {

namespace cs = agx::cmdstream;

const char* to_string(Interp interp) {
  switch (interp) {
    case Interp::smooth: return "smooth";
    case Interp::flat: return "flat";
    case Interp::linear: return "linear";
  }
  return "?";
}

const OutputRange* VertexOutputLayout::find_varying(int varying) const {
  for (const OutputRange& r : outputs)
    if (r.kind == OutputKind::varying && r.varying == varying) return &r;
  return nullptr;
}

namespace {

bool reserved_name(const std::string& n) {
  return n == "position" || n == "point_size" || n == "layer_viewport" ||
         n.rfind("clip_distance_", 0) == 0;
}

Status check_interface(const Interface& iface) {
  std::set<std::string> names;
  for (size_t i = 0; i < iface.varyings.size(); ++i) {
    const Varying& v = iface.varyings[i];
    auto where = fmt::format("varying {} ('{}')", i, v.name);
    if (v.name.empty()) return Error::invalid_argument("varying {}: empty name", i);
    if (reserved_name(v.name))
      return Error::invalid_argument("{}: the name is reserved for a system output", where);
    if (!names.insert(v.name).second)
      return Error::invalid_argument("{}: the name is used twice", where);
    if (v.components < 1 || v.components > 4)
      return Error::invalid_argument("{}: {} components (1..4)", where, v.components);
    if (v.bits != 32 && v.bits != 16)
      return Error::invalid_argument("{}: {} bits (32 or 16)", where, v.bits);
  }
  if (iface.clip_distances > kMaxClipDistances)
    return Error::invalid_argument("{} clip distances: Output Select has {} plane bits",
                                   iface.clip_distances, kMaxClipDistances);
  return {};
}

unsigned& group_count(GroupCounts& g, Interp i) {
  return i == Interp::smooth ? g.smooth : i == Interp::flat ? g.flat : g.linear;
}

Result<uint32_t> pack_counts(const GroupCounts& g, const char* which) {
  for (unsigned n : {g.smooth, g.flat, g.linear})
    if (n > kMaxGroupWords)
      return Error::limit("too many {} varyings: {} words in one interpolation group, "
                          "Varying Counts holds at most {}", which, n, kMaxGroupWords);
  cs::VaryingCounts c;
  c.smooth = g.smooth;
  c.flat = g.flat;
  c.linear = g.linear;
  return pack_word(c);
}

}  // namespace

uint32_t output_select_word(const Interface& iface) {
  cs::OutputSelect v;
  for (unsigned p = 0; p < iface.clip_distances && p < kMaxClipDistances; ++p)
    v.*kClipDistancePlanes[p] = true;
  v.varyings = !iface.varyings.empty() || iface.fragcoord_z;
  v.point_size = iface.point_size;
  v.viewport_target = v.render_target = iface.layer_viewport;
  v.frag_coord_z = iface.fragcoord_z;
  return *pack_word(v);  // every value is a boolean: cannot fail
}

Result<VertexOutputLayout> layout_vertex_outputs(const Interface& iface) {
  AGX_CHECK(check_interface(iface));
  VertexOutputLayout l;
  unsigned next = 0;
  auto add = [&](std::string name, OutputKind kind, unsigned words, int varying, Interp interp = Interp::smooth) {
    l.outputs.push_back({std::move(name), kind, next, words, varying, interp});
    next += words;
  };
  add("position", OutputKind::position, 4, -1);
  for (unsigned bits : {32u, 16u}) {
    if (bits == 16) l.first_16bit_index = next;
    for (Interp interp : {Interp::smooth, Interp::flat, Interp::linear}) {
      for (size_t i = 0; i < iface.varyings.size(); ++i) {
        const Varying& v = iface.varyings[i];
        if (v.bits != bits || v.interp != interp) continue;
        unsigned w = words_of(v);
        group_count(bits == 32 ? l.counts_32 : l.counts_16, interp) += w;
        (bits == 32 ? l.user_words_32 : l.user_pairs_16) += w;
        add(v.name, OutputKind::varying, w, int(i), interp);
      }
    }
  }
  if (iface.point_size) add("point_size", OutputKind::point_size, 1, -1);
  if (iface.layer_viewport) add("layer_viewport", OutputKind::layer_viewport, 1, -1);
  for (unsigned p = 0; p < iface.clip_distances; ++p)
    add(fmt::format("clip_distance_{}", p), OutputKind::clip_distance, 1, -1);
  l.output_count = next;
  if (next > kMaxVertexOutputs)
    return Error::limit("too many vertex outputs: {} words, the output count field holds at "
                        "most {}", next, kMaxVertexOutputs);
  unsigned slots = 1 + iface.fragcoord_z + l.user_words_32 + l.user_pairs_16;
  if (1 + iface.fragcoord_z + l.user_words_32 > kMax32BitSlots || slots > kMaxSlots)
    return Error::limit("too many varyings: {} slots ({} of them 32-bit), the hardware "
                        "addresses {} slots", slots, 1 + iface.fragcoord_z + l.user_words_32,
                        kMaxSlots);
  AGX_TRY(l.varying_counts_32, pack_counts(l.counts_32, "32-bit"));
  AGX_TRY(l.varying_counts_16, pack_counts(l.counts_16, "16-bit"));
  l.output_select = output_select_word(iface);
  cs::VdmStateVertexOutputs vdm;
  vdm.output_count_1 = vdm.output_count_2 = next;
  AGX_TRY(l.vdm_vertex_outputs, pack_word(vdm));
  return l;
}

Result<VertexOutputLayout> layout_from_words(uint32_t output_select, uint32_t varying_counts_32,
                                             uint32_t varying_counts_16, uint32_t output_count) {
  AGX_TRY(cs::OutputSelect sel, cs::unpack<cs::OutputSelect>(word_bytes(output_select)));
  AGX_TRY(cs::VaryingCounts c32, cs::unpack<cs::VaryingCounts>(word_bytes(varying_counts_32)));
  AGX_TRY(cs::VaryingCounts c16, cs::unpack<cs::VaryingCounts>(word_bytes(varying_counts_16)));
  VertexOutputLayout l;
  unsigned next = 0;
  auto add = [&](std::string name, OutputKind kind, unsigned words, Interp interp = Interp::smooth) {
    if (words) l.outputs.push_back({std::move(name), kind, next, words, -1, interp});
    next += words;
  };
  add("position", OutputKind::position, 4);
  for (unsigned bits : {32u, 16u}) {
    const cs::VaryingCounts& c = bits == 32 ? c32 : c16;
    GroupCounts& g = bits == 32 ? l.counts_32 : l.counts_16;
    if (bits == 16) l.first_16bit_index = next;
    g = {unsigned(c.smooth), unsigned(c.flat), unsigned(c.linear)};
    (bits == 32 ? l.user_words_32 : l.user_pairs_16) = g.smooth + g.flat + g.linear;
    for (Interp interp : {Interp::smooth, Interp::flat, Interp::linear})
      add(fmt::format("{}_{}", to_string(interp), bits), OutputKind::varying, group_count(g, interp), interp);
  }
  if (sel.point_size) add("point_size", OutputKind::point_size, 1);
  if (sel.viewport_target != sel.render_target)
    return Error::invalid_argument("Output Select: Viewport target is {} but Render target is {} (one word holds both)",
                                   sel.viewport_target ? "set" : "clear", sel.render_target ? "set" : "clear");
  if (sel.viewport_target) add("layer_viewport", OutputKind::layer_viewport, 1);
  unsigned planes = 0;
  while (planes < kMaxClipDistances && clip_distance_plane(sel, planes)) ++planes;
  for (unsigned p = planes; p < kMaxClipDistances; ++p)
    if (clip_distance_plane(sel, p))
      return Error::invalid_argument("Output Select: clip distance plane {} is set but plane {} is not (the planes "
                                     "are 0..n-1)", p, planes);
  for (unsigned p = 0; p < planes; ++p) add(fmt::format("clip_distance_{}", p), OutputKind::clip_distance, 1);
  l.output_count = next;
  if (next != output_count)
    return Error::invalid_argument("the Output Select and Varying Counts words describe {} vertex output words, "
                                   "the Vertex Outputs count is {}", next, output_count);
  l.output_select = output_select;
  l.varying_counts_32 = varying_counts_32;
  l.varying_counts_16 = varying_counts_16;
  cs::VdmStateVertexOutputs vdm;
  vdm.output_count_1 = vdm.output_count_2 = next;
  AGX_TRY(l.vdm_vertex_outputs, pack_word(vdm));
  return l;
}

Result<ClipDistancePlan> plan_clip_distances(unsigned written, bool fragment_reads,
                                             std::optional<uint32_t> api_enable_mask) {
  if (written > kMaxClipDistances)
    return Error::invalid_argument("{} clip distances: the hardware clips against at most {}",
                                   written, kMaxClipDistances);
  ClipDistancePlan plan;
  plan.hardware_planes = written;
  if (fragment_reads) {
    for (unsigned first = 0; first < written; first += 4)
      plan.user_varyings.push_back({fmt::format("clip_distance_fs_{}", first / 4),
                                    std::min(4u, written - first), 32, Interp::smooth});
  }
  uint32_t written_mask = written >= 32 ? ~0u : (1u << written) - 1;
  if (api_enable_mask) plan.planes_to_force_inside = written_mask & ~*api_enable_mask;
  return plan;
}

}  // namespace agx::varyings
