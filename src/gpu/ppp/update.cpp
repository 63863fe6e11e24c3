// PPP updates: the record a VDM "PPP State" block points to, read into the
// PppWords in force. The header's present bits select the words in the
// order of cmdstream's one table (cmdstream/ppp_order.h, from
// bminor/mesa-mesa src/asahi/lib/agx_ppp.h); every word goes through
// read_word, so a header or word with bits no field covers faults naming
// the word, and the words must fill the record exactly.
#include <fmt/format.h>

#include "cmdstream/ppp_order.h"
#include "gpu/ppp/ppp.h"
#include "gpu/shader/shader.h"

namespace agx::gpu {

namespace cs = cmdstream;

namespace {

// Where each word of the record goes in PppWords (Viewport: by index).
template <class T>
void store(PppWords& w, cs::PppWord which, uint64_t index, const T& v) {
  using W = cs::PppWord;
  if constexpr (std::is_same_v<T, cs::FragmentControl>) {
    (which == W::fragment_control ? w.fragment_control : w.fragment_control_2) = v;
  } else if constexpr (std::is_same_v<T, cs::FragmentFace>) {
    (which == W::front_face ? w.front : w.back) = v;
  } else if constexpr (std::is_same_v<T, cs::FragmentFace2>) {
    (which == W::front_face_2 ? w.front_2 : w.back_2) = v;
  } else if constexpr (std::is_same_v<T, cs::FragmentStencil>) {
    (which == W::front_stencil ? w.front_stencil : w.back_stencil) = v;
  } else if constexpr (std::is_same_v<T, cs::DepthBiasScissor>) {
    w.depth_bias_scissor = v;
  } else if constexpr (std::is_same_v<T, cs::RegionClip>) {
    if (index == 0) w.region_clip = v;  // the first viewport's (the scene keeps one)
  } else if constexpr (std::is_same_v<T, cs::Viewport>) {
    if (index == 0) w.viewports.clear();
    w.viewports.push_back(v);
  } else if constexpr (std::is_same_v<T, cs::WClamp>) {
    w.w_clamp = v;
  } else if constexpr (std::is_same_v<T, cs::OutputSelect>) {
    w.output_select = v;
  } else if constexpr (std::is_same_v<T, cs::VaryingCounts>) {
    (which == W::varying_counts_32 ? w.varying_counts_32 : w.varying_counts_16) = v;
  } else if constexpr (std::is_same_v<T, cs::Cull>) {
    w.cull = v;
  } else if constexpr (std::is_same_v<T, cs::Cull2>) {
    w.cull_2 = v;
  } else if constexpr (std::is_same_v<T, cs::FragmentShaderWord0>) {
    w.fragment_shader_0 = v;
  } else if constexpr (std::is_same_v<T, cs::FragmentShaderWord1>) {
    w.fragment_shader_1 = v;
  } else if constexpr (std::is_same_v<T, cs::FragmentShaderWord2>) {
    w.fragment_shader_2 = v;
  } else if constexpr (std::is_same_v<T, cs::FragmentShaderWord3>) {
    w.fragment_shader_3 = v;
  } else if constexpr (std::is_same_v<T, cs::FragmentOcclusionQuery>) {
    w.occlusion_query = v;
  } else if constexpr (std::is_same_v<T, cs::FragmentOcclusionQuery2>) {
    w.occlusion_query_2 = v;
  } else if constexpr (std::is_same_v<T, cs::OutputSize>) {
    w.output_size = v;
  }
  // Viewport control, Output Unknown and Varying 2 have no field: read_word
  // accepted them only as all-zero words, and nothing is kept.
}

}  // namespace

Status apply_ppp_update(std::span<const uint8_t> record, GpuVa va, PppWords& words) {
  auto bad = [&](uint64_t at, std::string_view what, const Error& e) {
    return Error::decode("PPP update at 0x{:x}: {} at offset {}: {}", va, what, at, e.message());
  };
  auto header = read_word<cs::PppHeader>(record);
  if (!header) return bad(0, cs::PppHeader::kName, header.error());
  PppWords next = words;  // a bad update changes nothing
  uint64_t at = cs::PppHeader::kSize_B;
  Status status;
  cs::for_each_ppp_word(*header, [&]<class T>(cs::PppTag<T>, cs::PppWord which, const char* title, uint64_t i) {
    const std::string_view name = title ? std::string_view(title) : T::kName;
    if (at + T::kSize_B > record.size()) {
      status = Error::decode("PPP update at 0x{:x}: {} at offset {} runs past the update's {} bytes", va, name, at,
                             record.size());
      return false;
    }
    auto v = read_word<T>(record.subspan(at));
    if (!v) {
      status = bad(at, name, v.error());
      return false;
    }
    store(next, which, i, *v);
    at += T::kSize_B;
    return true;
  });
  AGX_CHECK(std::move(status));
  if (at != record.size())
    return Error::decode("PPP update at 0x{:x}: the header's words take {} bytes, the update has {}", va, at,
                         record.size());
  // present: the header's word bits (its Viewport count is not a word).
  cs::PppHeader words_only = *header;
  words_only.viewport_count = 1;  // packs as 0
  uint32_t bits = 0;
  AGX_CHECK(cs::pack_into(words_only, std::span(reinterpret_cast<uint8_t*>(&bits), sizeof bits)));
  next.present |= bits;
  words = std::move(next);
  return {};
}

}  // namespace agx::gpu
