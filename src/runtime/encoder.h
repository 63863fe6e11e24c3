// The command encoder: the one place that packs compute launches as the
// hardware takes them, with the cmdstream unit's typed tables
// (bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml): a USC word list
// (Uniform / Uniform High, Texture, Sampler, Shared, Shader, Registers,
// then Preshader with the preamble's code or No Preshader) and CDM control
// stream blocks (Launch words 0-1, Global size in threads or Indirect,
// Local size; Barrier; Stream Terminate). encode_launch puts one launch
// with its code, uniforms and state descriptors in a Device's buffers and
// makes the drm_asahi_cmd_compute that points at the stream.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cmdstream/typed.h"
#include "compiler/compiler.h"
#include "runtime/push_memory.h"
#include "runtime/runtime.h"
#include "util/result.h"

namespace agx::runtime {

// Appends the packed bytes of a typed cmdstream struct.
template <class T>
Status push(std::vector<uint8_t>& out, const T& value) {
  size_t at = out.size();
  out.resize(at + T::kSize_B);
  return cmdstream::pack_into(value, std::span<uint8_t>(out).subspan(at, T::kSize_B));
}

// A USC word list with every address resolved (`*_usc`: offsets from the
// queue's usc_exec_base; `*_va`: GPU addresses). Packed as given: the
// limits are encode_launch's to check (the gpu unit's tests pack malformed
// launches on purpose).
struct UscWordList {
  uint32_t code_usc = 0;
  uint32_t register_halves = 0;   // Registers: 16-bit halves (groups of 8)
  uint32_t spill_bucket = 0;      // Registers: spill_size_bucket(scratch bytes)
  uint32_t uniform_count = 0;     // u0..: 32-bit uniforms loaded from uniforms_va
  uint64_t uniforms_va = 0;
  uint32_t texture_count = 0;     // ts0..: 24-byte descriptors at textures_va
  uint64_t textures_va = 0;
  uint32_t sampler_count = 0;     // ss0..: at samplers_va, 8 bytes each or 24 when extended
  uint64_t samplers_va = 0;
  bool extended_samplers = false;
  uint32_t threadgroup_memory_B = 0;  // 0: no threadgroup memory
  std::optional<uint32_t> preshader_usc;  // none: No Preshader
  // A fragment-side program (background, end of tile): the tilebuffer's
  // Shared word (tilebuffer::usc_shared) instead of the vertex/compute one.
  std::optional<cmdstream::UscShared> tile_shared;
};
Result<std::vector<uint8_t>> pack_usc_words(const UscWordList& words);

// One CDM launch: Launch Word 0 (register counts, mode), Word 1 (the word
// list), Global size (Direct: threads per axis) or Indirect (the address
// of the sizes), and Local size (not in Indirect local mode).
struct CdmLaunch {
  uint32_t pipeline_usc = 0;      // the USC word list (64-byte aligned)
  uint32_t uniform_count = 0;
  uint32_t texture_count = 0;
  uint32_t sampler_count = 0;
  bool extended_samplers = false;
  uint32_t preshader_register_halves = 0;  // 0 without a preshader
  cmdstream::CdmMode mode = cmdstream::CdmMode::kDirect;
  std::array<uint32_t, 3> global_threads{1, 1, 1};  // Direct
  uint64_t indirect = 0;                            // Indirect global / local
  std::array<uint32_t, 3> local{1, 1, 1};
};
Status push_cdm_launch(std::vector<uint8_t>& stream, const CdmLaunch& launch);
// The sampler state register count of Launch Word 0, Vertex Shader Word 0
// and Fragment Shader Word 0 for `n` states (compact, or extended).
cmdstream::SamplerStates sampler_state_count(uint32_t n, bool extended);
// State descriptor tables (24-byte Texture / PBE descriptors; 8-byte
// Samplers, or 24 when extended): whole descriptors within the limits
// (256 texture, 16 sampler states); errors start with `what`. The count
// of descriptors in each.
Status check_state_descriptors(std::span<const uint8_t> textures, std::span<const uint8_t> samplers, bool extended,
                               std::string_view what);
uint32_t texture_state_count(std::span<const uint8_t> textures);
uint32_t sampler_state_count(std::span<const uint8_t> samplers, bool extended);
// The Barrier Mesa puts after each launch on G13 (libagx_dgc.h agx_cdm_barrier).
Status push_cdm_barrier(std::vector<uint8_t>& stream);
Status push_cdm_terminate(std::vector<uint8_t>& stream);
// The VDM stream's Stream Terminate (a render command's vertex half).
Status push_vdm_terminate(std::vector<uint8_t>& stream);

struct LaunchDesc {
  std::span<const uint8_t> code;        // AGX machine code ending in stop
  uint32_t register_halves = 0;         // 16-bit register halves the code uses (r0 included)
  // The preamble (compiler::Shader::preamble): run once per launch before
  // the threadgroups (USC Preshader word); empty: No Preshader.
  std::span<const uint8_t> preamble;
  uint32_t preamble_register_halves = 0;  // Launch Word 0's preshader register count
  std::span<const uint32_t> uniforms;   // u0, u1, ...: the uniform file the kernel starts with
  uint32_t threadgroup_memory_B = 0;
  std::array<uint32_t, 3> groups{1, 1, 1};  // threadgroups per axis
  std::array<uint32_t, 3> local{1, 1, 1};   // threads per threadgroup
  // ts0, ts1, ...: 24-byte Texture or PBE descriptors; ss0, ss1, ...:
  // 8-byte Sampler descriptors (compact sampler states), or 24 bytes each
  // (Sampler + Border) with `extended_samplers`.
  std::span<const uint8_t> texture_states;
  std::span<const uint8_t> sampler_states;
  bool extended_samplers = false;
  // Stack (scratch) bytes per thread: the compiler's Stats::scratch_B
  // (local arrays and spill slots). Nonzero: the Registers word's spill
  // size bucket and a helper program with its header (docs/runtime.md).
  uint32_t scratch_B = 0;
  // The push constant / loose uniform block in memory (push_memory.h):
  // `uniforms` holds it past the file; encode_launch moves it into a
  // buffer and loads the file alone.
  std::optional<PushMemory> push_memory;
};

// The launch of a compiled shader (its code, registers, preamble, scratch,
// threadgroup memory, workgroup size and where its push constant block
// lives) of `groups` threadgroups; the caller gives the uniforms (the
// block at Abi::push_constants_uniform) and any texture and sampler states.
LaunchDesc shader_launch(const compiler::Shader& shader, std::array<uint32_t, 3> groups);

// A launch ready to submit; keeps its buffers alive until destroyed.
struct EncodedLaunch {
  drm_asahi_cmd_compute command{};
  std::unique_ptr<Buffer> code, preamble, uniforms, textures, samplers, usc_words, stream;
  std::unique_ptr<Buffer> helper_code, helper_data;  // when scratch_B > 0
  std::unique_ptr<Buffer> push_block;                 // with push_memory
};

// Scratch: at most kMaxScratch_B bytes per thread, the largest spill size
// bucket (Mesa's AGX_MAX_SCRATCH_DWORDS: 8 << 12 words x 4 = 512 KiB,
// bminor/mesa-mesa src/asahi/lib/agx_scratch.c). The bucket of a size
// (agx_scratch_get_bucket): 0 for none, else 1 + ceil(log2(ceil(words /
// 8))), at most 15; bucket b holds 8 << (b - 1) words per thread.
constexpr uint32_t kMaxScratch_B = 512 * 1024;
uint32_t spill_size_bucket(uint32_t scratch_B);
// The helper program's header (Mesa's libagx helper.h struct
// agx_helper_header): `subgroups` stack blocks per core, then 88-byte
// per-core records for up to 128 cores, zero. Mesa's
// AGX_MAX_SUBGROUPS_PER_CORE is 128.
constexpr uint32_t kHelperSubgroups = 128;
constexpr uint32_t kHelperHeader_B = 8 + 128 * 88;

// A helper program with its header, for a command's helper fields
// (`program`: the USC offset tagged with bit 0, the header's address).
// Compute launches and render passes (one per stage with scratch) make
// them the same way.
struct HelperProgram {
  std::unique_ptr<Buffer> code, data;
  drm_asahi_helper_program program{};
};
Result<HelperProgram> create_helper_program(Device& device, const std::string& label);

// Limits the encoding checks (errors name the limit): at most 256 uniform
// registers, kMaxThreadsPerThreadgroup threads per threadgroup,
// kMaxThreadgroupMemory_B bytes of threadgroup memory, 256 register halves,
// 256 texture and 16 sampler state registers.
constexpr uint32_t kMaxThreadsPerThreadgroup = 1024;
constexpr uint32_t kMaxThreadgroupMemory_B = 65536;
Result<EncodedLaunch> encode_launch(Device& device, const LaunchDesc& launch);

// The USC word list and CDM stream bytes of a checked LaunchDesc alone
// (what encode_launch writes: the launch, then Stream Terminate), for given
// addresses: `code_usc`, `pipeline_usc` are USC offsets
// (from usc_exec_base), `uniforms_va`, `textures_va` and `samplers_va` GPU
// VAs (8-byte aligned); `preamble_usc` the preamble's USC offset (used when
// the launch has a preamble).
Result<std::vector<uint8_t>> pack_usc_words(const LaunchDesc& launch, uint64_t code_usc, uint64_t uniforms_va,
                                            uint64_t textures_va = 0, uint64_t samplers_va = 0,
                                            uint64_t preamble_usc = 0);
Result<std::vector<uint8_t>> pack_cdm_launch(const LaunchDesc& launch, uint64_t pipeline_usc);

}  // namespace agx::runtime
