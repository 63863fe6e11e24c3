// The CDM executor on arbitrary memory: the input is mapped at the stream
// base and doubles as USC word lists, code and data (usc_exec_base is the
// same address). Whatever the bytes, execute() completes or faults with a
// reason; nothing crashes. Limits keep each input short.
#include <cstdint>
#include <vector>

#include "gpu/gpu.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static agx::gpu::CdmExecutor executor(agx::gpu::CdmOptions{
      .threads = 1, .step_limit = 2000, .threadgroup_limit = 64, .stream_block_limit = 256});
  constexpr uint64_t kBase = 0x10000;
  agx::usc::RegionMemory memory;
  std::vector<uint8_t> bytes(data, data + size);
  bytes.resize(4096, 0);
  if (!memory.map(kBase, std::move(bytes))) return 0;
  drm_asahi_cmd_compute cc{};
  cc.cdm_ctrl_stream_base = kBase;
  cc.cdm_ctrl_stream_end = kBase + 4096;
  cc.helper.binary = 1;
  agx::kmd::FirmwareCommand cmd;
  cmd.compute = &cc;
  cmd.memory = &memory;
  cmd.usc_exec_base = kBase;
  agx::GpuFault fault;
  if (!executor.execute(cmd, &fault) && fault.reason.empty()) __builtin_trap();
  return 0;
}
