// The stream walker on arbitrary memory: the input is mapped read-only at
// 0x10000 (and again, its second half, at 0x800000 so links and pointers
// have somewhere to land); its first byte picks the stream (CDM, VDM, USC
// words) and the G14X word. Every path must end with a tree, whatever the
// bytes say (cycles, deep calls, unknown blocks, unmapped pointers).
#include <cstddef>
#include <cstdint>

#include "cmdstream/decode.h"
#include "cmdstream/decode_report.h"
#include "cmdstream/trace_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace agx::cmdstream;
  if (size < 2) return 0;
  const uint8_t mode = data[0];
  TraceSubmit mem;
  TraceMapping a;
  a.va = 0x10000;
  a.size_B = size - 1;
  a.flags = agx::kmd::trace::kMapRead;
  a.data.assign(data + 1, data + size);
  mem.mappings.push_back(a);
  if (size > 4) {
    TraceMapping b;
    b.va = 0x800000;
    b.size_B = (size - 1) / 2;
    b.flags = agx::kmd::trace::kMapRead;
    b.data.assign(data + 1 + (size - 1) / 2, data + 1 + (size - 1) / 2 + b.size_B);
    mem.mappings.push_back(b);
  }
  TraceMemory memory(mem);
  DecodeConfig config;
  config.usc_exec_base = 0x10000;
  config.g14x = mode & 4;
  config.limits.max_packets = 256;
  config.limits.max_shader_B = 512;
  config.limits.max_array = 32;
  DecodeNode n;
  switch (mode & 3) {
    case 0: n = decode_cdm_stream(memory, 0x10000, config); break;
    case 1: n = decode_vdm_stream(memory, 0x10000, config); break;
    default: n = decode_usc_words(memory, 0, config); break;
  }
  (void)print_decode(n);
  (void)decode_to_json(n).dump();
  return 0;
}
