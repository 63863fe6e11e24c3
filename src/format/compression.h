// The block-compression family of each AGX Channels class (the
// `compression` column of channels.inc): which decoder its blocks need, for
// code that picks one by a typed property, never by the class name.
#pragma once

#include <cstdint>

#include "format/format.h"

namespace agx::format {

enum class Compression : uint8_t { none, pvrtc, etc2, eac, astc, bc };

// none for plain texels (and for a code no class has).
Compression compression(Channels c);

}  // namespace agx::format
