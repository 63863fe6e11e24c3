// Render replay against a live run: a render command (a triangle, built by
// the gpu tests' render fixture) submitted through a kmd Device on
// gpu::GpuExecutor with AGX_TRACE capture on; the trace must hold every
// page both halves read (VDM stream, PPP update, USC words, shaders, the
// vertex table, the render target and its PBE descriptor), so replaying it
// gives the live run's pixels exactly. Set AGX_RENDER_TRACE_OUT=PATH to
// keep the captured trace (the CLI cases' gpu_render_replay_* traces come
// from here).
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>

#include "../../../src/gpu/tests/render_fixture.h"
#include "gpu/gpu.h"
#include "render_replay.h"
#include "util/png.h"

namespace agx::cli {
namespace {

constexpr uint64_t kPage = 0x4000;
constexpr uint64_t kKernelStart = 0x40'0000'0000, kKernelEnd = kKernelStart + 0x20000000;

class RenderReplay : public gpu::test::RenderCommandTest {
 protected:
  kmd::Device device;
  std::unique_ptr<kmd::File> file = kmd::open_file(device);
  std::map<GpuVa, uint8_t*> live;  // host memory of each mirrored region
  std::filesystem::path dir;

  void SetUp() override {
    dir = std::filesystem::temp_directory_path() / ("agx_render_replay_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    gpu::GpuOptions o;
    o.threads = 2;
    o.fixed_function = gpu::texture_unit_factory();
    device.set_executor(std::make_shared<gpu::GpuExecutor>(o));
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  template <typename T>
  void io(unsigned long req, T& arg) {
    ASSERT_EQ(file->ioctl(req, &arg), 0) << req;
  }

  // Every region of the fixture's memory in a GEM object bound at its VA.
  void mirror(uint32_t vm_id) {
    for (const auto& [va, bytes] : mem.regions()) {
      const uint64_t size = (bytes.size() + kPage - 1) / kPage * kPage;
      drm_asahi_gem_create c{size, 0, 0, 0, 0};
      io(DRM_IOCTL_ASAHI_GEM_CREATE, c);
      drm_asahi_gem_mmap_offset m{c.handle, 0, 0};
      io(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, m);
      int err = 1;
      auto* p = static_cast<uint8_t*>(file->mmap(m.offset, size, &err));
      ASSERT_EQ(err, 0);
      std::memcpy(p, bytes.data(), bytes.size());
      live[va] = p;
      drm_asahi_gem_bind_op op{DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE, c.handle, 0, size, va};
      drm_asahi_vm_bind b{vm_id, 1, sizeof op, 0, reinterpret_cast<uint64_t>(&op)};
      io(DRM_IOCTL_ASAHI_VM_BIND, b);
    }
  }

  // The fixture's render command submitted through the kmd with capture to
  // `trace`; returns when its job has completed.
  void submit_traced(const std::filesystem::path& trace) {
    ASSERT_TRUE(device.set_trace_file(trace.string()).ok());
    drm_asahi_vm_create v{kKernelStart, kKernelEnd, 0, 0};
    io(DRM_IOCTL_ASAHI_VM_CREATE, v);
    mirror(v.vm_id);
    drm_asahi_queue_create q{0, v.vm_id, DRM_ASAHI_PRIORITY_MEDIUM, 0, kUsc};
    io(DRM_IOCTL_ASAHI_QUEUE_CREATE, q);
    drm_syncobj_create done{0, 0};
    io(DRM_IOCTL_SYNCOBJ_CREATE, done);
    std::vector<uint8_t> cmdbuf(sizeof(drm_asahi_cmd_header) + sizeof render);
    const drm_asahi_cmd_header h{DRM_ASAHI_CMD_RENDER, uint16_t(sizeof render), DRM_ASAHI_BARRIER_NONE,
                                 DRM_ASAHI_BARRIER_NONE};
    std::memcpy(cmdbuf.data(), &h, sizeof h);
    std::memcpy(cmdbuf.data() + sizeof h, &render, sizeof render);
    drm_asahi_sync out{DRM_ASAHI_SYNC_SYNCOBJ, done.handle, 0};
    drm_asahi_submit s{};
    s.syncs = reinterpret_cast<uint64_t>(&out);
    s.cmdbuf = reinterpret_cast<uint64_t>(cmdbuf.data());
    s.queue_id = q.queue_id;
    s.out_sync_count = 1;
    s.cmdbuf_size = uint32_t(cmdbuf.size());
    io(DRM_IOCTL_ASAHI_SUBMIT, s);
    drm_syncobj_wait w{reinterpret_cast<uint64_t>(&done.handle), INT64_MAX, 1, 0, 0, 0};
    io(DRM_IOCTL_SYNCOBJ_WAIT, w);
    ASSERT_TRUE(device.set_trace_file("").ok());
    ASSERT_TRUE(device.faults().empty()) << device.faults().front().fault.reason;
  }

  std::array<uint8_t, 4> live_pixel(uint32_t x, uint32_t y) {
    auto at = layout::element_address_B(target.layout, x, y, 0, 0, 0);
    EXPECT_TRUE(at.ok());
    std::array<uint8_t, 4> p{};
    std::memcpy(p.data(), live.at(kTarget) + (at.ok() ? *at : 0), 4);
    return p;
  }

  // A cleared 40x24 target (its depth and stencil stored as zls_ctrl says
  // when `zls` is given) and a triangle over it.
  void triangle(std::optional<cmdstream::ZlsControl> zls_ctrl = std::nullopt) {
    target_of("R8G8B8A8_UNORM", 40, 24);
    clear_and_store(0, 0, 0.25f, 1);
    if (zls_ctrl) zls(*zls_ctrl, 0.75f, 0x2A);
    std::vector<gpu::test::Vertex> vertices;
    for (auto [x, y] : {std::pair{-0.8f, -0.7f}, {0.85f, -0.4f}, {-0.5f, 0.9f}})
      vertices.push_back({x, y, 0.5f, 1.0f, 1.0f, 0.5f, 0.0f, 1.0f});
    vdm_stream(vertices, cmdstream::Primitive::kTriangles);
  }
  // The command submitted and captured; the trace read back.
  cmdstream::Trace capture() {
    const auto path = dir / "render.agxtrace";
    submit_traced(path);
    if (const char* keep = std::getenv("AGX_RENDER_TRACE_OUT"))
      std::filesystem::copy_file(path, keep, std::filesystem::copy_options::overwrite_existing);
    auto trace = cmdstream::read_trace_file(path.string());
    EXPECT_TRUE(trace.ok()) << (trace.ok() ? "" : trace.error().message());
    return trace.ok() ? *trace : cmdstream::Trace{};
  }
  cmdstream::Trace triangle_trace() {
    triangle();
    return capture();
  }
  // Fills the captured bytes of [va, va + size_B) with `v`; returns how many.
  static size_t wipe(cmdstream::Trace& trace, GpuVa va, uint64_t size_B, uint8_t v = 0x5A) {
    size_t wiped = 0;
    for (cmdstream::TraceMapping& m : trace.submits.at(0).mappings)
      if (m.va >= va && m.va < va + size_B) {
        std::fill(m.data.begin(), m.data.end(), v);
        wiped += m.data.size();
      }
    return wiped;
  }

  // Replays `trace` with the target's captured pages wiped first (they
  // hold the live run's result), so the pixels compared are the replay's
  // own, through a PNG file read back; returns how many are `colour`.
  int expect_live_pixels(cmdstream::Trace trace, std::array<uint8_t, 4> colour) {
    EXPECT_GE(wipe(trace, kTarget, target.layout.size_B), target.layout.size_B);
    auto replay = replay_renders(trace, {});
    EXPECT_TRUE(replay.ok()) << (replay.ok() ? "" : replay.error().message());
    if (!replay.ok() || replay->images.size() != 1) return -1;  // rt0 alone: no depth or stencil is stored
    EXPECT_FALSE(replay->any_faulted());
    const ReplayImage& rt = replay->images.front();
    EXPECT_EQ(rt.target, "rt0");
    EXPECT_EQ(rt.command, 0u);
    EXPECT_EQ(rt.address, kTarget);
    EXPECT_EQ(rt.format, "R8G8B8A8 Unorm");
    EXPECT_EQ(replay_file_name(rt), "submit0_command0_rt0_layer0.png");
    const std::string png = (dir / replay_file_name(rt)).string();
    EXPECT_TRUE(write_png(png, rt.image).ok());
    auto back = read_png(png);
    EXPECT_TRUE(back.ok()) << (back.ok() ? "" : back.error().message());
    if (!back.ok() || back->width_px != render.width_px || back->height_px != render.height_px) return -1;
    int matching = 0;
    for (uint32_t y = 0; y < back->height_px; ++y)
      for (uint32_t x = 0; x < back->width_px; ++x) {
        const auto want = live_pixel(x, y);
        std::array<uint8_t, 4> got;
        std::memcpy(got.data(), back->data.data() + (y * back->width_px + x) * 4, 4);
        EXPECT_EQ(got, want) << x << "," << y;
        if (got != want) return -1;
        matching += want == colour;
      }
    return matching;
  }
};

TEST_F(RenderReplay, TheTraceReplaysToTheLivePixels) {
  const cmdstream::Trace trace = triangle_trace();
  ASSERT_EQ(trace.submits.size(), 1u);
  EXPECT_GT(expect_live_pixels(trace, {255, 128, 0, 255}), 150);  // the triangle, not only the clear
}

// An indexed draw: the index buffer, in a buffer of its own, is captured
// too; a quad of two triangles with a colour per vertex.
TEST_F(RenderReplay, AnIndexedDrawReplaysToTheLivePixels) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  clear_and_store(0, 0, 0, 1);
  std::vector<gpu::test::Vertex> vertices;
  for (auto [x, y] : {std::pair{-0.75f, -0.75f}, {0.75f, -0.75f}, {-0.75f, 0.75f}, {0.75f, 0.75f}})
    vertices.push_back({x, y, 0.0f, 1.0f, (x + 1) / 2, (y + 1) / 2, 0.5f, 1.0f});
  vdm_stream(vertices, cmdstream::Primitive::kTriangles, {0, 1, 2, 2, 1, 3});
  const cmdstream::Trace trace = capture();
  ASSERT_EQ(trace.submits.size(), 1u);
  const auto& maps = trace.submits[0].mappings;
  EXPECT_TRUE(std::any_of(maps.begin(), maps.end(), [&](const auto& m) { return m.va == kIndices; }));
  EXPECT_EQ(expect_live_pixels(trace, {0, 0, 0, 255}), 32 * 32 - 24 * 24);  // the quad covers 24x24 pixels
}

// Depth (Z32F as 16-bit grey over [0, 1]) and stencil (8-bit grey) where
// zls_ctrl stores them: here their clear values, the draw writing neither.
TEST_F(RenderReplay, StoredDepthAndStencilComeOutAsGrey) {
  cmdstream::ZlsControl c{};
  c.z_store = c.s_store = true;
  c.z_format = cmdstream::ZlsFormat::k32F;
  c.z_store_tiling = c.s_store_tiling = cmdstream::ZlsTiling::kTwiddled;
  triangle(c);
  cmdstream::Trace trace = capture();
  ASSERT_EQ(trace.submits.size(), 1u);
  EXPECT_GT(wipe(trace, kDepth, depth_layout.size_B, 0), 0u);
  EXPECT_GT(wipe(trace, kStencil, stencil_layout.size_B, 0), 0u);
  auto replay = replay_renders(trace, {});
  ASSERT_TRUE(replay.ok()) << replay.error().message();
  ASSERT_EQ(replay->images.size(), 3u);
  ASSERT_EQ(replay->commands.size(), 1u);
  EXPECT_EQ(replay->commands[0].images, 3u);
  const ReplayImage& depth = replay->images[1];
  const ReplayImage& stencil = replay->images[2];
  EXPECT_EQ(depth.target, "depth");
  EXPECT_EQ(depth.format, "Z32_FLOAT");
  EXPECT_EQ(depth.address, kDepth);
  EXPECT_EQ(replay_file_name(depth), "submit0_command0_depth_layer0.png");
  ASSERT_EQ(depth.image.format, PngFormat::grey16);
  ASSERT_EQ(depth.image.data.size(), 40u * 24 * 2);
  for (size_t i = 0; i < 40 * 24; ++i) {
    uint16_t g;
    std::memcpy(&g, &depth.image.data[i * 2], 2);
    ASSERT_EQ(g, 49151) << i;  // 0.75 * 65535, rounded
  }
  EXPECT_EQ(stencil.target, "stencil");
  EXPECT_EQ(stencil.format, "S8_UINT");
  ASSERT_EQ(stencil.image.format, PngFormat::grey8);
  EXPECT_EQ(stencil.image.data, std::vector<uint8_t>(40 * 24, 0x2A));
}

// The trace lacking the VDM stream's page: the command's replay faults,
// and its outcome names the submit, the command and the fault.
TEST_F(RenderReplay, AMissingPageIsAFaultNamingTheCommand) {
  cmdstream::Trace trace = triangle_trace();
  ASSERT_EQ(trace.submits.size(), 1u);
  auto& maps = trace.submits[0].mappings;
  const GpuVa stream = render.vdm_ctrl_stream_base;
  const size_t before = maps.size();
  std::erase_if(maps, [&](const cmdstream::TraceMapping& m) { return stream - m.va < m.size_B; });
  ASSERT_EQ(maps.size(), before - 1);
  auto replay = replay_renders(trace, {});
  ASSERT_TRUE(replay.ok()) << replay.error().message();
  EXPECT_TRUE(replay->any_faulted());
  EXPECT_TRUE(replay->images.empty());
  ASSERT_EQ(replay->commands.size(), 1u);
  const ReplayOutcome& c = replay->commands[0];
  EXPECT_TRUE(c.faulted);
  EXPECT_EQ(c.images, 0u);
  const std::string& e = c.reason;
  EXPECT_NE(e.find("submit 0 (seqno 1), render command #0: replay fault:"), std::string::npos) << e;
  EXPECT_NE(e.find("not in the trace's captured memory"), std::string::npos) << e;
}

// A fault ends its command alone: the replay goes on with the next command
// of the submit and with the next submit, whose images come out.
TEST_F(RenderReplay, AFaultingCommandDoesNotStopTheOthers) {
  cmdstream::Trace trace = triangle_trace();
  ASSERT_EQ(trace.submits.size(), 1u);
  // Submit 0: the command twice, the first one's VDM stream out of the
  // captured memory; submit 1: the captured submit as it is.
  trace.submits.push_back(trace.submits[0]);
  trace.submits[1].info.seqno = 2;
  auto& cmdbuf = trace.submits[0].cmdbuf;
  const std::vector<uint8_t> one = cmdbuf;
  cmdbuf.insert(cmdbuf.end(), one.begin(), one.end());
  drm_asahi_cmd_render bad = render;
  bad.vdm_ctrl_stream_base = 0x7000'0000'0000;
  std::memcpy(cmdbuf.data() + sizeof(drm_asahi_cmd_header), &bad, sizeof bad);
  auto replay = replay_renders(trace, {});
  ASSERT_TRUE(replay.ok()) << replay.error().message();
  EXPECT_TRUE(replay->any_faulted());
  ASSERT_EQ(replay->commands.size(), 3u);
  EXPECT_TRUE(replay->commands[0].faulted);
  EXPECT_NE(replay->commands[0].reason.find("submit 0 (seqno 1), render command #0: replay fault:"),
            std::string::npos)
      << replay->commands[0].reason;
  for (size_t i : {1, 2}) {
    const ReplayOutcome& c = replay->commands[i];
    EXPECT_FALSE(c.faulted) << i << ": " << c.reason;
    EXPECT_EQ(c.images, 1u) << i;
  }
  EXPECT_EQ(replay->commands[1].submit, 0u);
  EXPECT_EQ(replay->commands[1].command, 1u);
  EXPECT_EQ(replay->commands[2].submit, 1u);
  EXPECT_EQ(replay->commands[2].seqno, 2u);
  ASSERT_EQ(replay->images.size(), 2u);
  EXPECT_EQ(replay_file_name(replay->images[0]), "submit0_command1_rt0_layer0.png");
  EXPECT_EQ(replay_file_name(replay->images[1]), "submit1_command0_rt0_layer0.png");
  EXPECT_EQ(replay->images[0].image.data, replay->images[1].image.data);
}

TEST(RenderReplayInput, ATraceWithoutRenderCommandsSaysSo) {
  cmdstream::Trace trace;
  trace.submits.resize(2);
  auto none = replay_renders(trace, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message(), "the trace holds no render command (2 submits)");
  ReplayOptions one;
  one.submit = 1;
  auto in_one = replay_renders(trace, one);
  ASSERT_FALSE(in_one.ok());
  EXPECT_EQ(in_one.error().message(), "submit 1 holds no render command");
  one.submit = 2;
  auto past = replay_renders(trace, one);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.error().message(), "--submit 2: the trace holds 2 submits");
}

}  // namespace
}  // namespace agx::cli
