// The vertex half on arbitrary memory: the input is mapped at the VDM
// stream base and doubles as PPP updates, USC word lists, code, index
// buffers and indirect arguments (usc_exec_base is the same address). Its
// first bytes are also fed to the PPP update parser on their own. Whatever
// the bytes, run() completes or faults with a reason; nothing crashes.
// Limits keep each input short.
#include <cstdint>
#include <vector>

#include "gpu/ppp/ppp.h"
#include "gpu/vdm/vdm.h"
#include "usc/usc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static agx::gpu::VertexPipeline pipeline([] {
    agx::gpu::VertexOptions o;
    o.threads = 1;
    o.step_limit = 2000;
    o.stream_block_limit = 256;
    o.draw_element_limit = 4096;
    return o;
  }());
  agx::gpu::PppWords words;
  (void)agx::gpu::apply_ppp_update(std::span(data, std::min<size_t>(size, 256)), 0, words);
  constexpr uint64_t kBase = 0x10000;
  agx::usc::RegionMemory memory;
  std::vector<uint8_t> bytes(data, data + size);
  bytes.resize(4096, 0);
  if (!memory.map(kBase, std::move(bytes))) return 0;
  drm_asahi_cmd_render render{};
  render.vdm_ctrl_stream_base = kBase;
  render.vertex_helper.binary = 1;
  agx::kmd::FirmwareCommand cmd;
  cmd.queue = agx::kmd::FirmwareQueue::vertex;
  cmd.render = &render;
  cmd.memory = &memory;
  cmd.usc_exec_base = kBase;
  agx::gpu::Scene scene;
  agx::GpuFault fault;
  agx::Status st = pipeline.run(cmd, scene, &fault);
  if (!st && fault.reason.empty()) __builtin_trap();
  return 0;
}
