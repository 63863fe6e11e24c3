// agx decode: control streams walked as the hardware does. A CDM or VDM
// stream is read packet by packet from GPU memory; Stream Link jumps (or
// calls, with a return address), Stream Return pops, Terminate ends. USC
// word lists, PPP state records and the descriptors they point to are
// unpacked with the packet tables (tables.h), shaders disassembled by the
// isa unit. The facts of what follows what (block lengths, the PPP block
// order, the USC list end) are from bminor/mesa-mesa src/asahi/lib/decode.c.
//
// Nothing is trusted: an unmapped pointer, a stream that runs off mapped
// memory, a link cycle, too deep a call chain or too long a stream each
// become an error node naming the address, and decoding goes on with what
// is left (the next pointer, the next command).
//
// The result is a tree of DecodeNodes; decode_print.cpp prints it as text
// or JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agx/asahi_drm.h"
#include "cmdstream/field_table.h"
#include "util/gpu_memory.h"

namespace agx::cmdstream {

struct TraceSubmit;
struct TraceFault;

// One struct read from memory, unpacked by its table when printed.
struct DecodedStruct {
  const StructDesc* desc = nullptr;
  GpuVa va = 0;
  std::vector<uint8_t> bytes;  // desc->size_B of them
  std::string label;           // a role when the struct name alone is ambiguous ("Back face")
};

struct DecodeNode {
  enum class Kind : uint8_t {
    root,      // a submit or a raw stream
    command,   // a hardware command of a submit
    stream,    // a control stream or USC word list, with its packets as children
    packet,    // one packet: its structs, and what it points to as children
    data,      // bytes shown as a hexdump (uniforms)
    shader,    // disassembly
    error,     // what went wrong, and where
  };
  Kind kind = Kind::packet;
  std::string title;                    // "CDM Launch", "Stream Link (call)", ...
  GpuVa va = 0;                         // where it was read (0 for none)
  uint64_t size_B = 0;                  // bytes it covers at va
  std::vector<DecodedStruct> structs;   // packet words in order
  std::vector<std::string> lines;       // hexdump, disassembly or error text; notes
  std::vector<DecodeNode> children;
  bool crash = false;                   // ESTIMATED CRASH LOCATION
};

struct DecodeLimits {
  uint32_t max_call_depth = 8;       // Stream Link with return, nested
  uint64_t max_packets = 100000;     // per stream walk, links and calls included
  uint64_t max_shader_B = 64 * 1024; // disassembly stops here without a stop
  uint32_t max_array = 4096;         // textures, samplers, CF bindings per word
};

struct DecodeConfig {
  uint64_t usc_exec_base = 0;  // USC addresses are offsets from it
  // The CDM Launch's G14X word is read only on G14X-class GPUs (generation
  // >= 14 with more than one cluster), never on G13.
  bool g14x = false;
  DecodeLimits limits;
};

DecodeConfig config_for(const drm_asahi_params_global& params, uint64_t usc_exec_base);

// Raw streams (agx decode --hex ADDR --memory FILE).
DecodeNode decode_cdm_stream(GpuMemory& memory, GpuVa va, const DecodeConfig& config);
DecodeNode decode_vdm_stream(GpuMemory& memory, GpuVa va, const DecodeConfig& config);
// A USC word list at a USC address (an offset from usc_exec_base).
DecodeNode decode_usc_words(GpuMemory& memory, uint64_t usc_address, const DecodeConfig& config);

// The UAPI commands: their fields, then the streams and programs they name.
DecodeNode decode_compute_command(GpuMemory& memory, const drm_asahi_cmd_compute& command,
                                  const DecodeConfig& config);
DecodeNode decode_render_command(GpuMemory& memory, const drm_asahi_cmd_render& command,
                                 const DecodeConfig& config);

// Every command of a captured submit against its captured memory. An
// unreadable command buffer is an error node; the other commands still
// decode.
DecodeNode decode_submit(const TraceSubmit& submit, const drm_asahi_params_global& params,
                         const DecodeLimits& limits = {});

// Marks the ESTIMATED CRASH LOCATION of a fault in a decoded submit: the
// first error node at the fault address, else the first packet or data
// node whose bytes hold it, else the last packet decoded of the faulting
// command. Returns the marked node (nullptr if the command is missing).
const DecodeNode* mark_crash(DecodeNode& submit_root, const TraceFault& fault);

}  // namespace agx::cmdstream
