// Shared by the varyings unit's .cpp files; never included outside.
#pragma once

#include <cstdint>

#include "varyings/varyings.h"

namespace agx::varyings {

// The Output Select word for an interface whose fragment shader reads every
// varying (and Z when iface.fragcoord_z).
uint32_t output_select_word(const Interface& iface);

// Vertex output words of a varying (a 16-bit varying packs two components
// per word; an odd count leaves the last high half unused).
inline unsigned words_of(const Varying& v) {
  return v.bits == 32 ? v.components : (v.components + 1) / 2;
}

}  // namespace agx::varyings
