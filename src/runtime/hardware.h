// Sizes and limits of the hardware and the UAPI that several of the
// runtime's files check against or lay out with, named once.
#pragma once

#include <cstdint>

namespace agx::runtime::hw {

// The page the runtime allocates and binds in: 16 KiB, the AGX's MMU page
// and the kernel's page on Apple silicon (docs/kmd.md).
inline constexpr uint64_t kPage_B = 0x4000;
// Uniform registers u0..u255 and 256 16-bit register halves (128 32-bit
// GPRs): dougallj/applegpu applegpu.py's register files.
inline constexpr uint32_t kMaxUniforms = 256;
inline constexpr uint32_t kMaxRegisterHalves = 256;
// Descriptor sizes (bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml: Texture
// and PBE descriptors are 24 bytes, a compact Sampler 8).
inline constexpr uint32_t kTextureState_B = 24;
inline constexpr uint32_t kSamplerState_B = 8;

}  // namespace agx::runtime::hw
