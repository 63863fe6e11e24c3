// The CDM's stream words through the cmdstream tables (bminor/mesa-mesa
// src/asahi/genxml/cmdbuf.xml): the block a word starts and what Launch
// Word 0 declares.
#include <fmt/format.h>

#include "gpu/cdm/cdm_internal.h"

namespace agx::gpu::detail {

namespace cs = cmdstream;

// Every CDM struct has the Block Type field at the same bits; a Barrier
// (one word) reads it from the block's first word.
Result<cs::CdmBlockType> block_type(std::span<const uint8_t> word) {
  AGX_TRY(cs::CdmBarrier u, cs::unpack<cs::CdmBarrier>(word));
  switch (u.block_type) {
    case cs::CdmBlockType::kLaunch:
    case cs::CdmBlockType::kStreamLink:
    case cs::CdmBlockType::kStreamTerminate:
    case cs::CdmBlockType::kBarrier:
    case cs::CdmBlockType::kStreamReturn: return u.block_type;
  }
  const uint32_t raw = uint32_t(word[0]) | uint32_t(word[1]) << 8 | uint32_t(word[2]) << 16 | uint32_t(word[3]) << 24;
  return Error::decode("word 0x{:08x} has CDM Block Type {}, which names no block", raw,
                       static_cast<uint32_t>(u.block_type));
}

Result<UscCounts> launch_counts(const cs::CdmLaunchWord0& w) {
  AGX_TRY(UscCounts counts, usc_counts(w));
  switch (w.mode) {
    case cs::CdmMode::kDirect:
    case cs::CdmMode::kIndirectGlobal:
    case cs::CdmMode::kIndirectLocal: break;
    default: return Error::decode("CDM Launch Word 0: Mode {} names no mode", static_cast<uint32_t>(w.mode));
  }
  return counts;
}

}  // namespace agx::gpu::detail
