// The trace reader against files the kmd writes (AGX_TRACE and crash
// dumps), version 1 files of an earlier kmd, and every kind of broken file.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "cmdstream/trace_file.h"
#include "kmd/kmd.h"

namespace agx::cmdstream {
namespace AGX_UNITY_ID {

namespace tr = kmd::trace;
constexpr uint64_t kPage = tr::kPageSize_B;
constexpr uint64_t kVa = 0x1'0000'0000;

std::vector<uint8_t> slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Reads 8 bytes at kVa + kPage + 3 (the second page) and writes `value` at
// stream + 16, so a record holds the stream page (written) and the second
// page (read).
struct Toucher : kmd::Executor {
  uint32_t value = 0;
  bool execute(const kmd::FirmwareCommand& c, GpuFault* f) override {
    uint8_t buf[8];
    if (!c.memory->read(kVa + kPage + 3, buf, 8, GpuUnit::usc, f)) return false;
    return c.memory->write(c.compute->cdm_ctrl_stream_base + 16, &value, 4, GpuUnit::usc, f);
  }
};

// A device with one VM, one queue and one 2-page object bound at kVa.
struct Rig {
  kmd::Device device;
  std::unique_ptr<kmd::File> file = kmd::open_file(device);
  uint32_t vm = 0, queue = 0, bo = 0;
  uint8_t* host = nullptr;
  Rig() {
    drm_asahi_vm_create vc{0x40'0000'0000, 0x40'2000'0000, 0, 0};
    EXPECT_EQ(file->ioctl(DRM_IOCTL_ASAHI_VM_CREATE, &vc), 0);
    vm = vc.vm_id;
    drm_asahi_gem_create gc{2 * kPage, 0, 0, 0, 0};
    EXPECT_EQ(file->ioctl(DRM_IOCTL_ASAHI_GEM_CREATE, &gc), 0);
    bo = gc.handle;
    drm_asahi_gem_mmap_offset mo{bo, 0, 0};
    EXPECT_EQ(file->ioctl(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo), 0);
    int err = 0;
    host = static_cast<uint8_t*>(file->mmap(mo.offset, 2 * kPage, &err));
    drm_asahi_gem_bind_op op{DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE, bo, 0, 2 * kPage, kVa};
    drm_asahi_vm_bind b{vm, 1, sizeof op, 0, reinterpret_cast<uint64_t>(&op)};
    EXPECT_EQ(file->ioctl(DRM_IOCTL_ASAHI_VM_BIND, &b), 0);
    drm_asahi_queue_create q{0, vm, DRM_ASAHI_PRIORITY_MEDIUM, 0, 0x1234'0000};
    EXPECT_EQ(file->ioctl(DRM_IOCTL_ASAHI_QUEUE_CREATE, &q), 0);
    queue = q.queue_id;
  }
  void submit(uint64_t stream) {
    std::vector<uint8_t> buf(sizeof(drm_asahi_cmd_header) + sizeof(drm_asahi_cmd_compute));
    drm_asahi_cmd_header h{DRM_ASAHI_CMD_COMPUTE, sizeof(drm_asahi_cmd_compute), DRM_ASAHI_BARRIER_NONE,
                           DRM_ASAHI_BARRIER_NONE};
    drm_asahi_cmd_compute c{};
    c.cdm_ctrl_stream_base = stream;
    std::memcpy(buf.data(), &h, sizeof h);
    std::memcpy(buf.data() + sizeof h, &c, sizeof c);
    drm_asahi_submit s{};
    s.cmdbuf = reinterpret_cast<uint64_t>(buf.data());
    s.cmdbuf_size = uint32_t(buf.size());
    s.queue_id = queue;
    ASSERT_EQ(file->ioctl(DRM_IOCTL_ASAHI_SUBMIT, &s), 0);
  }
};

std::filesystem::path temp(const char* name) {
  return std::filesystem::temp_directory_path() / fmt::format("agx-tf-{}-{}", name, ::getpid());
}

TEST(TraceFile, ReadsWhatTheKmdCaptures) {
  const auto path = temp("trace");
  std::filesystem::remove(path);
  {
    Rig rig;
    for (uint64_t i = 0; i < 2 * kPage; i++) rig.host[i] = uint8_t(i ^ (i >> 8));
    auto toucher = std::make_shared<Toucher>();
    toucher->value = 0xabcd1234;
    rig.device.set_executor(toucher);
    ASSERT_TRUE(rig.device.set_trace_file(path.string()).ok());
    rig.submit(kVa);
    rig.submit(kVa + 64);
    ASSERT_TRUE(rig.device.set_trace_file("").ok());
  }
  const auto bytes = slurp(path);
  EXPECT_LT(bytes.size(), 2 * kPage);  // two records of two pages each, compressed
  auto t = read_trace_file(path.string());
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->kind, tr::FileKind::trace);
  EXPECT_EQ(t->version, 2u);
  EXPECT_EQ(t->params.chip_id, 0x8103u);
  ASSERT_EQ(t->submits.size(), 2u);
  const TraceSubmit& s = t->submits[1];
  EXPECT_EQ(s.info.seqno, 2u);
  EXPECT_EQ(s.info.usc_exec_base, 0x1234'0000u);
  ASSERT_EQ(s.mappings.size(), 2u);
  EXPECT_EQ(s.mappings[0].va, kVa);  // the stream page, written
  EXPECT_EQ(s.mappings[0].size_B, kPage);
  EXPECT_EQ(s.mappings[0].flags, tr::kMapRead | tr::kMapWrite | tr::kMapWritten);
  EXPECT_EQ(s.mappings[1].va, kVa + kPage);  // read
  EXPECT_EQ(s.mappings[1].flags, tr::kMapRead | tr::kMapWrite);
  auto cmds = parse_cmdbuf(s.cmdbuf);
  ASSERT_TRUE(cmds.ok());
  ASSERT_EQ(cmds->size(), 1u);
  EXPECT_EQ((*cmds)[0].type, DRM_ASAHI_CMD_COMPUTE);
  EXPECT_EQ((*cmds)[0].compute.cdm_ctrl_stream_base, kVa + 64);
  TraceMemory mem(s);
  uint8_t buf[8];
  GpuFault f;
  ASSERT_TRUE(mem.read(kVa + kPage + 3, buf, 8, GpuUnit::cdm, &f));
  for (int i = 0; i < 8; i++) EXPECT_EQ(buf[i], uint8_t((kPage + 3 + i) ^ ((kPage + 3 + i) >> 8)));
  EXPECT_FALSE(mem.read(kVa + 2 * kPage - 4, buf, 8, GpuUnit::cdm, &f));
  EXPECT_EQ(f.va, kVa + 2 * kPage);
  EXPECT_EQ(f.reason, "unmapped");
  EXPECT_FALSE(mem.write(kVa, buf, 1, GpuUnit::cdm, &f));
  uint32_t after = 0;
  ASSERT_TRUE(mem.read(kVa + 64 + 16, &after, 4, GpuUnit::cdm, &f));
  EXPECT_EQ(after, 0xabcd1234u);  // a written page holds the bytes after the job
  std::filesystem::remove(path);
}

TEST(TraceFile, ReadsACrashDump) {
  const auto dir = temp("crashdir");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  struct Faulty : kmd::Executor {
    bool execute(const kmd::FirmwareCommand& c, GpuFault* f) override {
      uint32_t x;
      return c.memory->read(c.compute->cdm_ctrl_stream_base, &x, 4, GpuUnit::cdm, f);
    }
  };
  std::string dump;
  {
    Rig rig;
    rig.device.set_crash_dir(dir.string());
    rig.device.set_executor(std::make_shared<Faulty>());
    rig.submit(0xdead0000);
    for (int i = 0; i < 1000 && rig.device.crash_dumps().empty(); i++) usleep(1000);
    ASSERT_EQ(rig.device.crash_dumps().size(), 1u);
    dump = rig.device.crash_dumps()[0];
  }
  auto t = read_trace_file(dump);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->kind, tr::FileKind::crash_dump);
  ASSERT_EQ(t->submits.size(), 1u);
  ASSERT_TRUE(t->submits[0].fault.has_value());
  EXPECT_EQ(t->submits[0].fault->va, 0xdead0000u);
  EXPECT_EQ(t->submits[0].fault->unit, GpuUnit::cdm);
  EXPECT_EQ(t->submits[0].fault->reason, "unmapped");
  EXPECT_EQ(t->submits[0].fault->queue, kmd::FirmwareQueue::compute);
  std::filesystem::remove_all(dir);
}

// A small valid trace built by hand, chunk by chunk.
struct Builder {
  std::vector<uint8_t> out;
  explicit Builder(uint32_t kind = 1, uint32_t version = tr::kVersion) {
    tr::FileHeader h{};
    std::memcpy(h.magic, tr::kMagic, 8);
    h.version = version;
    h.kind = kind;
    put(&h, sizeof h);
  }
  void put(const void* p, size_t n) {
    const size_t at = out.size();
    out.resize(at + n);
    std::memcpy(out.data() + at, p, n);
  }
  void chunk(uint32_t tag, const std::vector<uint8_t>& payload, uint32_t flags = 0) {
    tr::ChunkHeader c{tag, flags, payload.size()};
    put(&c, sizeof c);
    out.insert(out.end(), payload.begin(), payload.end());
    out.resize((out.size() + 7) / 8 * 8, 0);
  }
  template <typename T>
  static std::vector<uint8_t> bytes(const T& v, size_t extra = 0, uint8_t fill = 0) {
    std::vector<uint8_t> b(sizeof v + extra, fill);
    std::memcpy(b.data(), &v, sizeof v);
    return b;
  }
  void params() { chunk(tr::kTagParams, bytes(drm_asahi_params_global{})); }
  void submit() { chunk(tr::kTagSubmit, bytes(tr::SubmitInfo{})); }
  void map(uint64_t va, uint64_t size, uint32_t flags, size_t data) {
    chunk(tr::kTagMapping, bytes(tr::MappingInfo{va, size, flags, 0}, data, 0x11));
  }
};

std::string error_of(const std::vector<uint8_t>& b) {
  auto t = read_trace(b);
  return t.ok() ? "" : t.error().message();
}

TEST(TraceFile, ValidHandBuiltTraceWithSinglePageMapping) {
  Builder b;
  b.params();
  b.submit();
  b.map(0x10000, 4 * kPage, tr::kMapRead | tr::kMapSinglePage, kPage);
  b.map(0x4000, kPage, tr::kMapRead, kPage);
  auto t = read_trace(b.out);
  ASSERT_TRUE(t.ok()) << t.error().message();
  ASSERT_EQ(t->submits[0].mappings.size(), 2u);
  EXPECT_EQ(t->submits[0].mappings[0].va, 0x4000u);  // sorted
  TraceMemory mem(t->submits[0]);
  uint8_t x[4];
  GpuFault f;
  EXPECT_TRUE(mem.read(0x10000 + 3 * kPage + 5, x, 4, GpuUnit::usc, &f));
  EXPECT_EQ(x[0], 0x11);
  EXPECT_FALSE(mem.read(0x8000, x, 1, GpuUnit::usc, &f));
}

TEST(TraceFile, CrashDumpReasonIsPrintableText) {
  Builder b(2);
  b.params();
  b.submit();
  tr::FaultInfo f{};
  f.va = 0x1234;
  f.reason_size_B = 3;
  auto payload = Builder::bytes(f, 3);
  payload[sizeof f] = 0xff;
  payload[sizeof f + 1] = 'o';
  payload[sizeof f + 2] = '\n';
  b.chunk(tr::kTagFault, payload);
  auto t = read_trace(b.out);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->submits[0].fault->reason, "?o?");
  EXPECT_EQ(t->submits[0].fault->va, 0x1234u);
}

TEST(TraceFile, BrokenFilesNameWhatAndWhere) {
  EXPECT_NE(error_of({}).find("not an agx trace"), std::string::npos);
  {
    Builder b;
    b.out[0] = 'X';
    EXPECT_NE(error_of(b.out).find("bad magic"), std::string::npos);
  }
  EXPECT_NE(error_of(Builder(1, 99).out).find("version 99"), std::string::npos);
  EXPECT_NE(error_of(Builder(7).out).find("unknown file kind 7"), std::string::npos);
  EXPECT_NE(error_of(Builder().out).find("without a PARM"), std::string::npos);
  {
    Builder b;
    b.params();
    b.out.resize(b.out.size() + 5);
    EXPECT_NE(error_of(b.out).find("truncated chunk header at offset"), std::string::npos);
  }
  {
    Builder b;
    b.params();
    tr::ChunkHeader c{tr::kTagCmdbuf, 0, 1000};
    b.put(&c, sizeof c);
    const size_t at = 32 + (sizeof(drm_asahi_params_global) + 7) / 8 * 8;
    EXPECT_NE(error_of(b.out).find(fmt::format("CMDB at offset {}: 1000 bytes, only 0", at)), std::string::npos)
        << error_of(b.out);
  }
  {
    Builder b;
    b.params();
    b.chunk(tr::kTagCmdbuf, {1, 2});
    EXPECT_NE(error_of(b.out).find("before any SUBM"), std::string::npos);
  }
  {
    Builder b;
    b.params();
    b.chunk(tr::tag('Z', 'Z', 'Z', 'Z'), {});
    EXPECT_NE(error_of(b.out).find("unknown chunk 'ZZZZ'"), std::string::npos);
  }
  {
    Builder b;
    b.params();
    b.submit();
    b.map(0x4000, kPage, tr::kMapRead, 10);
    EXPECT_NE(error_of(b.out).find("10 data bytes, expected 16384"), std::string::npos);
  }
  {
    Builder b;
    b.params();
    b.submit();
    b.map(0x4000, 2 * kPage, tr::kMapRead | tr::kMapSinglePage, kPage);
    b.map(0x8000, kPage, tr::kMapRead, kPage);
    EXPECT_NE(error_of(b.out).find("overlap"), std::string::npos);
  }
  {
    Builder b;
    b.params();
    b.submit();
    b.map(0x4000, kPage, 0x80, kPage);
    EXPECT_NE(error_of(b.out).find("unknown flags"), std::string::npos);
  }
  {
    Builder b;
    b.params();
    b.submit();
    tr::FaultInfo f{};
    f.reason_size_B = 50;
    b.chunk(tr::kTagFault, Builder::bytes(f, 3));
    EXPECT_NE(error_of(b.out).find("reason of 50 bytes, 3 present"), std::string::npos);
  }
  {
    Builder b(2);  // a crash dump needs its fault
    b.params();
    b.submit();
    EXPECT_NE(error_of(b.out).find("crash dump without"), std::string::npos);
  }
  {
    Builder b;
    b.params();
    b.submit();
    b.chunk(tr::kTagSyncs, {1, 2, 3});
    EXPECT_NE(error_of(b.out).find("whole number of syncs"), std::string::npos);
  }
  EXPECT_FALSE(read_trace_file("/nonexistent/agx.trace").ok());
}

// A trace and a crash dump written by the version 1 kmd (whole bound
// ranges at SUBMIT, no compression) still read and decode.
TEST(TraceFile, ReadsVersion1Files) {
  auto t = read_trace_file(AGX_UNIT_SOURCE_DIR "/tests/data/v1_trace.agxtrace");
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->version, 1u);
  EXPECT_EQ(t->kind, tr::FileKind::trace);
  ASSERT_EQ(t->submits.size(), 1u);
  ASSERT_EQ(t->submits[0].mappings.size(), 1u);
  EXPECT_EQ(t->submits[0].mappings[0].va, 0x10000u);
  EXPECT_EQ(t->submits[0].mappings[0].size_B, kPage);
  EXPECT_EQ(t->submits[0].mappings[0].flags, tr::kMapRead | tr::kMapWrite);
  auto cmds = parse_cmdbuf(t->submits[0].cmdbuf);
  ASSERT_TRUE(cmds.ok());
  EXPECT_EQ(cmds->size(), 1u);
  auto d = read_trace_file(AGX_UNIT_SOURCE_DIR "/tests/data/v1_fault.dump");
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d->version, 1u);
  EXPECT_EQ(d->kind, tr::FileKind::crash_dump);
  EXPECT_TRUE(d->submits[0].fault.has_value());
  // Version 1 knows neither compressed chunks nor the written flag.
  Builder b(1, 1);
  b.params();
  b.submit();
  b.chunk(tr::kTagCmdbuf, {0, 0, 0, 0, 0, 0, 0, 0}, tr::kChunkZlib);
  EXPECT_NE(error_of(b.out).find("flags 0x1"), std::string::npos) << error_of(b.out);
  Builder w(1, 1);
  w.params();
  w.submit();
  w.map(0x4000, kPage, tr::kMapRead | tr::kMapWritten, kPage);
  EXPECT_NE(error_of(w.out).find("unknown flags"), std::string::npos);
}

// Compressed chunks: the raw size, then zlib; each error names the chunk.
TEST(TraceFile, CompressedChunks) {
  std::vector<uint8_t> raw(sizeof(tr::MappingInfo) + kPage, 0x11);
  const tr::MappingInfo m{0x8000, kPage, tr::kMapRead | tr::kMapWritten, 0};
  std::memcpy(raw.data(), &m, sizeof m);
  uLongf packed_B = compressBound(uLong(raw.size()));
  std::vector<uint8_t> packed(8 + packed_B);
  const uint64_t raw_B = raw.size();
  std::memcpy(packed.data(), &raw_B, 8);
  ASSERT_EQ(compress2(packed.data() + 8, &packed_B, raw.data(), uLong(raw.size()), 6), Z_OK);
  packed.resize(8 + packed_B);
  {
    Builder b;
    b.params();
    b.submit();
    b.chunk(tr::kTagMapping, packed, tr::kChunkZlib);
    auto t = read_trace(b.out);
    ASSERT_TRUE(t.ok()) << t.error().message();
    ASSERT_EQ(t->submits[0].mappings.size(), 1u);
    EXPECT_EQ(t->submits[0].mappings[0].flags, tr::kMapRead | tr::kMapWritten);
    EXPECT_EQ(t->submits[0].mappings[0].data, std::vector<uint8_t>(kPage, 0x11));
  }
  auto broken = [&](std::vector<uint8_t> payload, uint32_t flags = tr::kChunkZlib) {
    Builder b;
    b.params();
    b.submit();
    b.chunk(tr::kTagMapping, payload, flags);
    return error_of(b.out);
  };
  EXPECT_NE(broken({1, 2, 3}).find("chunk MAP  at offset"), std::string::npos) << broken({1, 2, 3});
  EXPECT_NE(broken({1, 2, 3}).find("without its size"), std::string::npos);
  auto corrupt = packed;
  corrupt[12] ^= 0xff;
  EXPECT_NE(broken(corrupt).find("bad zlib data"), std::string::npos) << broken(corrupt);
  auto longer = packed;
  const uint64_t more = raw_B + 1;
  std::memcpy(longer.data(), &more, 8);
  EXPECT_NE(broken(longer).find("bad zlib data"), std::string::npos) << broken(longer);
  auto huge = packed;
  const uint64_t too_much = uint64_t{1} << 40;
  std::memcpy(huge.data(), &too_much, 8);
  EXPECT_NE(broken(huge).find("cannot hold"), std::string::npos) << broken(huge);
  EXPECT_NE(broken(packed, 2).find("flags 0x2"), std::string::npos);
}

TEST(TraceFile, CommandBufferErrorsNameTheOffset) {
  std::vector<uint8_t> buf(4);
  EXPECT_NE(parse_cmdbuf(buf).error().message().find("truncated header at offset 0"), std::string::npos);
  drm_asahi_cmd_header h{DRM_ASAHI_CMD_COMPUTE, 200, 0, 0};
  buf.assign(sizeof h, 0);
  std::memcpy(buf.data(), &h, sizeof h);
  EXPECT_NE(parse_cmdbuf(buf).error().message().find("runs past the end"), std::string::npos);
  h = {77, 0, 0, 0};
  std::memcpy(buf.data(), &h, sizeof h);
  EXPECT_NE(parse_cmdbuf(buf).error().message().find("unknown command type 77"), std::string::npos);
  // A longer payload must be zero past the struct; a shorter one is zero-extended.
  h = {DRM_ASAHI_CMD_COMPUTE, uint16_t(sizeof(drm_asahi_cmd_compute) + 8), 0, 0};
  buf.assign(sizeof h + h.size, 0);
  std::memcpy(buf.data(), &h, sizeof h);
  EXPECT_TRUE(parse_cmdbuf(buf).ok());
  buf.back() = 1;
  EXPECT_NE(parse_cmdbuf(buf).error().message().find("nonzero bytes past its struct"), std::string::npos);
  h = {DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, sizeof(drm_asahi_attachment), DRM_ASAHI_BARRIER_NONE,
       DRM_ASAHI_BARRIER_NONE};
  drm_asahi_attachment a{0x5000, 64, 0, 0};
  drm_asahi_cmd_header h2{DRM_ASAHI_CMD_COMPUTE, 8, 0, 0};
  buf.assign(sizeof h + sizeof a + sizeof h2 + 8, 0);
  std::memcpy(buf.data(), &h, sizeof h);
  std::memcpy(buf.data() + sizeof h, &a, sizeof a);
  std::memcpy(buf.data() + sizeof h + sizeof a, &h2, sizeof h2);
  buf[sizeof h + sizeof a + sizeof h2 + 4] = 3;  // sampler_count, zero-extended rest
  auto cmds = parse_cmdbuf(buf);
  ASSERT_TRUE(cmds.ok());
  ASSERT_EQ(cmds->size(), 1u);
  EXPECT_EQ((*cmds)[0].compute.sampler_count, 3u);
  ASSERT_EQ((*cmds)[0].attachments.size(), 1u);
  EXPECT_EQ((*cmds)[0].attachments[0].pointer, 0x5000u);
}

}  // namespace
}  // namespace agx::cmdstream
