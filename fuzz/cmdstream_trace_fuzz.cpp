// The trace / crash dump reader on arbitrary bytes; what it accepts is
// decoded and printed (small limits keep each run short). Any input must
// give a value or an Error; ASan/UBSan watch the rest.
#include <cstddef>
#include <cstdint>

#include "cmdstream/decode.h"
#include "cmdstream/decode_report.h"
#include "cmdstream/trace_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace agx::cmdstream;
  auto trace = read_trace({data, size});
  if (!trace) return 0;
  DecodeLimits limits;
  limits.max_packets = 64;
  limits.max_shader_B = 256;
  limits.max_array = 16;
  for (const TraceSubmit& s : trace->submits) {
    (void)parse_cmdbuf(s.cmdbuf);
    DecodeNode n = decode_submit(s, trace->params, limits);
    if (s.fault) (void)mark_crash(n, *s.fault);
    (void)print_decode(n);
    (void)decode_to_json(n).dump();
  }
  if (trace->kind == agx::kmd::trace::FileKind::crash_dump) {
    (void)print_fault(*trace);
    (void)fault_to_json(*trace).dump();
  }
  return 0;
}
