// Acceptance of a compute stream packed as Mesa packs it (issue 11): every
// word below is built with the cmdstream tables, field for field with what
// Mesa's code sets (facts from bminor/mesa-mesa):
//  - USC words: src/asahi/vulkan/hk_cmd_buffer.c hk_upload_usc_words_kernel
//    (a Uniform word mapping the kernel's data at u0, DIV_ROUND_UP(bytes, 2)
//    halves), then the linked blob of hk_shader.c: the image heap Uniform
//    (hk_device.c hk_upload_rodata: start HK_IMAGE_HEAP_UNIFORM = 108 halves,
//    4 halves, from the rodata), the txf Sampler (start 0, count 1; the
//    sampler of agx_pack_txf_sampler: mip filter nearest, wrap clamp to
//    border on S/T/R, transparent black border), Shared as
//    src/asahi/lib/agx_usc.h agx_usc_shared_none (vertex/compute layout,
//    65536 bytes per threadgroup, no shared memory), Shader (code, Unk 2 =
//    3 for a non-fragment shader), Registers (nr_gprs, Unk 1 = fragment =
//    0, spill size 0, Unk 4 = 1) as src/asahi/lib/agx_linker.c, and No
//    Preshader.
//  - The stream, packed by the runtime's encoder (runtime/encoder.h, which
//    follows the same sources): src/asahi/libagx/libagx_dgc.h agx_cdm_launch (Launch Word
//    0 with the mode merged in, Word 1 Pipeline, Indirect or Global size,
//    Local size unless indirect-local), with Word 0 as
//    src/asahi/vulkan/hk_cmd_dispatch.c sets it (sampler state register
//    count 1, uniform register count = push_count, preshader register count
//    = nr_preamble_gprs); agx_cdm_barrier after each launch (G13G: Unk 0-19
//    and USC cache inval); agx_cdm_terminate.
// Three dependent kernels in one stream: direct, indirect global (Vulkan's
// VkDispatchIndirectCommand: threadgroup counts) and indirect local
// (libagx tessellation.cl: grid in threads, then the threadgroup size).
#include <cmath>
#include <cstring>

#include "cdm_fixture.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

constexpr uint32_t kImageHeapUniform_halfs = 108;  // hk_shader.h HK_IMAGE_HEAP_UNIFORM
constexpr uint32_t kPushCount_halfs = kImageHeapUniform_halfs + 4;  // the highest uniform the words map

class MesaStream : public CdmTest {
 public:
  template <class T>
  void put(std::vector<uint8_t>& out, const T& v) {
    ASSERT_TRUE(push(out, v));
  }
  uint64_t upload(const std::vector<uint8_t>& bytes, uint64_t align) {
    auto r = session->upload(bytes, align);
    EXPECT_TRUE(r) << r.error().message();
    return r ? *r : 0;
  }

  // The device's read-only data (hk_upload_rodata): the txf sampler at 0,
  // the image heap's address at 8.
  void make_rodata() {
    std::vector<uint8_t> ro(16, 0);
    cs::Sampler txf;
    txf.mip_filter = cs::MipFilter::kNearest;
    txf.wrap_s = txf.wrap_t = txf.wrap_r = cs::Wrap::kClampToBorder;
    txf.border_colour = cs::BorderColour::kTransparentBlack;
    ASSERT_TRUE(cmdstream::pack_into(txf, std::span<uint8_t>(ro).first(cs::Sampler::kSize_B)));
    image_heap = alloc(4096);
    for (unsigned i = 0; i < 8; ++i) ro[8 + i] = static_cast<uint8_t>(image_heap >> (8 * i));
    rodata = upload(ro, 64);
  }

  // hk_upload_usc_words_kernel with the linked blob; returns the Pipeline
  // (the word list's USC offset).
  uint32_t usc_words(uint64_t code, const std::vector<uint32_t>& data, uint32_t nr_gprs) {
    std::vector<uint8_t> bytes(data.size() * 4);
    std::memcpy(bytes.data(), data.data(), bytes.size());
    uint64_t buffer = upload(bytes, 4);
    std::vector<uint8_t> w;
    cs::UscUniform u;
    u.start_halfs = 0;
    u.size_halfs = (bytes.size() + 1) / 2;
    u.buffer = buffer;
    put(w, u);
    cs::UscUniform heap;
    heap.start_halfs = kImageHeapUniform_halfs;
    heap.size_halfs = 4;
    heap.buffer = rodata + 8;
    put(w, heap);
    cs::UscSampler txf;
    txf.start = 0;
    txf.count = 1;
    txf.buffer = rodata;
    put(w, txf);
    cs::UscShared shared;
    shared.layout = cs::SharedLayout::kVertexCompute;
    shared.bytes_per_threadgroup = 65536;
    put(w, shared);
    cs::UscShader shader;
    shader.code = session->usc_offset(code);
    shader.unk_2 = 3;
    put(w, shader);
    cs::UscRegisters regs;
    regs.register_count = nr_gprs;
    regs.unk_1 = false;
    regs.spill_size = 0;
    regs.unk_4 = 1;
    put(w, regs);
    put(w, cs::UscNoPreshader{});
    return session->usc_offset(upload(w, 64));
  }

  // agx_cdm_launch + agx_cdm_barrier, through the runtime's encoder.
  void launch(std::vector<uint8_t>& s, cs::CdmMode mode, uint32_t pipeline, std::array<uint32_t, 3> grid,
              uint64_t indirect, std::array<uint32_t, 3> local) {
    runtime::CdmLaunch c;
    c.pipeline_usc = pipeline;
    c.mode = mode;
    c.sampler_count = 1;                      // k4Compact: the value 1
    c.uniform_count = kPushCount_halfs / 2;   // Word 0 counts halves
    c.global_threads = grid;
    c.indirect = indirect;
    c.local = local;
    ASSERT_TRUE(runtime::push_cdm_launch(s, c));
    ASSERT_TRUE(push_cdm_barrier(s));
  }

  uint64_t rodata = 0, image_heap = 0;
};

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST_F(MesaStream, DirectIndirectGlobalAndIndirectLocalLaunchesRunInOrder) {
  make_rodata();
  const uint32_t n = 1000, padded = 1024;  // `twice` has no bound check: 16 threadgroups of 64
  uint64_t x = alloc(4 * padded), y = alloc(4 * padded), z = alloc(4 * padded), w = alloc(4 * padded);
  float *hx = session->host_as<float>(x), *hy = session->host_as<float>(y);
  float *hz = session->host_as<float>(z), *hw = session->host_as<float>(w);
  for (uint32_t i = 0; i < padded; ++i) {
    hx[i] = float(i % 97) * 0.25f;
    hy[i] = float(i % 13) - 6.0f;
    hw[i] = 1.0f;
  }
  uint64_t saxpy = code(kernel_text("saxpy"));
  uint64_t twice = code(
      "get_sr r1, sr80\n"
      "device_load 0, i32, x, r2, u0_u1, r1, unsigned\n"
      "wait 0\n"
      "fadd32 r2, r2, r2\n"
      "device_store 0, i32, x, r2, u2_u3, r1, unsigned, 0\n"
      "stop");
  // 1: y = 1.5 x + y over n threads (direct, in threads).
  uint32_t p1 = usc_words(saxpy, {lo(x), hi(x), lo(y), hi(y), bits(1.5f), n}, 8);
  // 2: z = 2 y (indirect global: 16 threadgroups of 64).
  uint32_t p2 = usc_words(twice, {lo(y), hi(y), lo(z), hi(z)}, 8);
  // 3: w = 1 z + w over n threads (indirect local: 1000 threads, 32 per threadgroup).
  uint32_t p3 = usc_words(saxpy, {lo(z), hi(z), lo(w), hi(w), bits(1.0f), n}, 8);
  uint64_t groups = alloc(12, 8), local = alloc(24, 8);
  uint32_t* g = session->host_as<uint32_t>(groups);
  g[0] = padded / 64, g[1] = 1, g[2] = 1;
  uint32_t* l = session->host_as<uint32_t>(local);
  l[0] = n, l[1] = 1, l[2] = 1, l[3] = 32, l[4] = 1, l[5] = 1;

  std::vector<uint8_t> s;
  launch(s, cs::CdmMode::kDirect, p1, {n, 1, 1}, 0, {64, 1, 1});
  launch(s, cs::CdmMode::kIndirectGlobal, p2, {}, groups, {64, 1, 1});
  launch(s, cs::CdmMode::kIndirectLocal, p3, {}, local, {});
  ASSERT_TRUE(push_cdm_terminate(s));
  ASSERT_EQ(run_stream(s), 0u) << fault().reason;

  for (uint32_t i = 0; i < padded; ++i) {
    float y_ref = float(i % 13) - 6.0f;
    if (i < n) y_ref = std::fmaf(1.5f, float(i % 97) * 0.25f, y_ref);
    float z_ref = y_ref + y_ref;
    float w_ref = i < n ? std::fmaf(1.0f, z_ref, 1.0f) : 1.0f;
    ASSERT_EQ(hy[i], y_ref) << i;
    ASSERT_EQ(hz[i], z_ref) << i;
    ASSERT_EQ(hw[i], w_ref) << i;
  }
  CdmStats st = executor->stats();
  EXPECT_EQ(st.launches, 3u);
  EXPECT_EQ(st.barriers, 3u);
  EXPECT_EQ(st.threadgroups, 16u + 16u + 32u);  // ceil(1000/64), 16, ceil(1000/32)
}

}  // namespace
}  // namespace agx::gpu::test
