// The fragment half (FragmentPipeline) over arbitrary render-command fields
// and memory: the first 64 bytes of the input set the command's fields
// (size, samples, utile, zls_ctrl, ppp_multisamplectl, bg / eot programs
// and their rsrc_spec, clear values, flags) and two triangles of a scene
// with one draw state whose PPP words come from the input too; the input
// is also mapped at usc_exec_base (word lists, code, descriptors) and as
// the depth, stencil, scissor and query buffers. Whatever the bytes, run()
// completes or faults with a reason; nothing crashes. Sizes are capped so
// each input is quick.
#include <cstdint>
#include <cstring>
#include <vector>

#include "gpu/gpu.h"
#include "gpu/pdm/pdm.h"

namespace {

struct Reader {
  const uint8_t* p;
  size_t n, at = 0;
  template <class T>
  T get() {
    T v{};
    for (size_t i = 0; i < sizeof v && at < n; ++i, ++at) std::memcpy(reinterpret_cast<uint8_t*>(&v) + i, p + at, 1);
    return v;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static agx::gpu::FragmentPipeline pipeline([] {
    agx::gpu::FragmentOptions o;
    o.threads = 1;
    o.step_limit = 2000;
    o.fixed_function = agx::gpu::texture_unit_factory();
    return o;
  }());
  constexpr uint64_t kBase = 0x10000;
  Reader in{data, size};
  drm_asahi_cmd_render r{};
  r.width_px = uint16_t(1 + in.get<uint8_t>() % 64);
  r.height_px = uint16_t(1 + in.get<uint8_t>() % 64);
  r.layers = uint16_t(in.get<uint8_t>() % 3);
  r.samples = in.get<uint8_t>() % 6;
  r.utile_width_px = in.get<uint8_t>();
  r.utile_height_px = in.get<uint8_t>();
  r.sample_size_B = in.get<uint8_t>();
  r.flags = in.get<uint32_t>();
  r.zls_ctrl = in.get<uint64_t>();
  r.ppp_multisamplectl = in.get<uint32_t>();
  r.bg.usc = in.get<uint16_t>();
  r.bg.rsrc_spec = in.get<uint32_t>();
  r.eot.usc = in.get<uint16_t>();
  r.eot.rsrc_spec = in.get<uint32_t>();
  r.isp_bgobjdepth = in.get<uint32_t>();
  r.isp_bgobjvals = in.get<uint32_t>();
  r.depth = {kBase + in.get<uint16_t>(), 0, in.get<uint16_t>(), 0};
  r.stencil = {kBase + in.get<uint16_t>(), 0, in.get<uint16_t>(), 0};
  r.isp_scissor_base = r.isp_dbias_base = r.isp_oclqry_base = kBase + in.get<uint16_t>();

  agx::gpu::Scene scene;
  agx::gpu::DrawState ds;
  ds.ppp.present = in.get<uint32_t>();
  const std::array<uint32_t, 8> words = {in.get<uint32_t>(), in.get<uint32_t>(), in.get<uint32_t>(),
                                         in.get<uint32_t>(), in.get<uint32_t>(), in.get<uint32_t>(),
                                         in.get<uint32_t>(), in.get<uint32_t>()};
  // The draw's words from the input through the tables' unpack (any bits).
  auto set = [&](auto& word, uint32_t bits) {
    using W = std::remove_reference_t<decltype(word)>;
    uint8_t raw[W::kSize_B] = {};
    std::memcpy(raw, &bits, std::min<size_t>(sizeof bits, W::kSize_B));
    if (auto w = agx::cmdstream::unpack<W>(raw)) word = *w;
  };
  set(ds.ppp.fragment_control, words[0]);
  set(ds.ppp.front, words[1]);
  set(ds.ppp.back, words[2]);
  set(ds.ppp.front_stencil, words[3]);
  set(ds.ppp.fragment_shader_0, words[4]);
  set(ds.ppp.fragment_shader_1, words[5]);
  set(ds.ppp.fragment_shader_2, words[6]);
  set(ds.ppp.depth_bias_scissor, words[7]);
  scene.states.push_back(ds);
  for (unsigned v = 0; v < 4; ++v) {
    agx::gpu::SceneVertex sv;
    sv.screen = {double(in.get<int8_t>()), double(in.get<int8_t>()), double(in.get<uint8_t>()) / 255, 1.0};
    scene.vertices.push_back(sv);
  }
  for (unsigned t = 0; t < 2; ++t) {
    agx::gpu::ScenePrimitive p;
    p.kind = agx::gpu::PrimitiveKind(in.get<uint8_t>() % 3);
    p.vertices = {t, t + 1u, t + 2u};
    p.front_facing = t == 0;
    scene.primitives.push_back(p);
  }

  agx::usc::RegionMemory memory;
  std::vector<uint8_t> bytes(data, data + size);
  bytes.resize(64 * 1024, 0);
  if (!memory.map(kBase, std::move(bytes))) return 0;
  agx::kmd::FirmwareCommand cmd;
  cmd.queue = agx::kmd::FirmwareQueue::fragment;
  cmd.render = &r;
  cmd.memory = &memory;
  cmd.usc_exec_base = kBase;
  agx::GpuFault fault;
  if (!pipeline.run(cmd, scene, &fault) && fault.reason.empty()) __builtin_trap();
  return 0;
}
