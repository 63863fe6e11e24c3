// Shared by the varyings unit's .cpp files; never included outside.
#pragma once

#include <cstdint>

#include "cmdstream/cmdstream.h"
#include "varyings/varyings.h"

namespace agx::varyings {

// Output Select's "Clip distance plane i" fields, by plane.
inline constexpr bool cmdstream::OutputSelect::* kClipDistancePlanes[] = {
    &cmdstream::OutputSelect::clip_distance_plane_0,  &cmdstream::OutputSelect::clip_distance_plane_1,
    &cmdstream::OutputSelect::clip_distance_plane_2,  &cmdstream::OutputSelect::clip_distance_plane_3,
    &cmdstream::OutputSelect::clip_distance_plane_4,  &cmdstream::OutputSelect::clip_distance_plane_5,
    &cmdstream::OutputSelect::clip_distance_plane_6,  &cmdstream::OutputSelect::clip_distance_plane_7,
    &cmdstream::OutputSelect::clip_distance_plane_8,  &cmdstream::OutputSelect::clip_distance_plane_9,
    &cmdstream::OutputSelect::clip_distance_plane_10, &cmdstream::OutputSelect::clip_distance_plane_11,
    &cmdstream::OutputSelect::clip_distance_plane_12, &cmdstream::OutputSelect::clip_distance_plane_13,
    &cmdstream::OutputSelect::clip_distance_plane_14, &cmdstream::OutputSelect::clip_distance_plane_15,
};
inline constexpr unsigned kMaxClipDistances = std::size(kClipDistancePlanes);
inline bool clip_distance_plane(const cmdstream::OutputSelect& v, unsigned p) {
  return v.*kClipDistancePlanes[p];
}

// A one-word struct as its 32-bit word, and back (words in host order, as
// the varyings API passes them).
template <class T>
Result<uint32_t> pack_word(const T& v) {
  static_assert(T::kSize_B == 4);
  uint32_t w = 0;
  AGX_CHECK(cmdstream::pack_into(v, std::span(reinterpret_cast<uint8_t*>(&w), 4)));
  return w;
}
inline std::span<const uint8_t> word_bytes(const uint32_t& w) {
  return std::span(reinterpret_cast<const uint8_t*>(&w), 4);
}

// The Output Select word for an interface whose fragment shader reads every
// varying (and Z when iface.fragcoord_z).
uint32_t output_select_word(const Interface& iface);

// Vertex output words of a varying (a 16-bit varying packs two components
// per word; an odd count leaves the last high half unused).
inline unsigned words_of(const Varying& v) {
  return v.bits == 32 ? v.components : (v.components + 1) / 2;
}

}  // namespace agx::varyings
