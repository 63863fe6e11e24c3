// AGX_TRACE: every accepted SUBMIT appended to a file when its job has
// completed, with the pages of the queue's VM the job touched and its
// control streams (kmd/trace_format.h; docs/cmdstream.md). The kmd writes
// raw bytes only: decoding is the cmdstream unit's job, above us.
#include "kmd/capture.h"
#include "kmd/file_impl.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace agx::kmd {

namespace {

Status write_all(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (size) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error::io("trace write: {}", std::strerror(n < 0 ? errno : EIO));
    p += n;
    size -= size_t(n);
  }
  return {};
}

// One chunk as given: its header, the payload pieces, zero padding to 8.
Status write_raw_chunk(int fd, uint32_t tag, uint32_t flags, std::initializer_list<std::span<const uint8_t>> pieces) {
  trace::ChunkHeader h{tag, flags, 0};
  for (auto piece : pieces) h.size_B += piece.size();
  AGX_CHECK(write_all(fd, &h, sizeof h));
  for (auto piece : pieces)
    if (!piece.empty()) AGX_CHECK(write_all(fd, piece.data(), piece.size()));
  static constexpr uint8_t kZeros[8] = {};
  if (size_t pad = (8 - h.size_B % 8) % 8) AGX_CHECK(write_all(fd, kZeros, pad));
  return {};
}

// One chunk from several pieces of payload: zlib-compressed (kChunkZlib:
// the raw size as a u64, then the zlib stream) when that is smaller.
Status write_chunk(int fd, uint32_t tag, std::initializer_list<std::span<const uint8_t>> pieces) {
  size_t raw_B = 0;
  for (auto piece : pieces) raw_B += piece.size();
  if (raw_B >= trace::kCompressMin_B) {
    std::vector<uint8_t> raw;
    raw.reserve(raw_B);
    for (auto piece : pieces) raw.insert(raw.end(), piece.begin(), piece.end());
    uLongf packed_B = compressBound(uLong(raw_B));
    std::vector<uint8_t> packed(sizeof(uint64_t) + packed_B);
    const uint64_t size = raw_B;
    std::memcpy(packed.data(), &size, sizeof size);
    if (compress2(packed.data() + sizeof size, &packed_B, raw.data(), uLong(raw_B), Z_DEFAULT_COMPRESSION) == Z_OK &&
        sizeof size + packed_B < raw_B) {
      packed.resize(sizeof size + packed_B);
      return write_raw_chunk(fd, tag, trace::kChunkZlib, {packed});
    }
  }
  return write_raw_chunk(fd, tag, 0, pieces);
}

template <typename T>
std::span<const uint8_t> bytes_of(const T& value) {
  return {reinterpret_cast<const uint8_t*>(&value), sizeof(T)};
}

// Holds an exclusive flock for the life of the object.
struct FileLock {
  int fd;
  explicit FileLock(int f) : fd(f) {
    while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~FileLock() { ::flock(fd, LOCK_UN); }
};

}  // namespace

Result<std::shared_ptr<TraceWriter>> TraceWriter::open(const std::string& path, trace::FileKind kind,
                                                       const drm_asahi_params_global& params) {
  const int flags = O_RDWR | O_CREAT | O_CLOEXEC | (kind == trace::FileKind::trace ? O_APPEND : O_TRUNC);
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) return Error::io("{}: {}", path, std::strerror(errno));
  std::shared_ptr<TraceWriter> w(new TraceWriter(fd, path));
  FileLock lock(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) return Error::io("{}: {}", path, std::strerror(errno));
  if (st.st_size == 0) {
    trace::FileHeader h{};
    std::memcpy(h.magic, trace::kMagic, sizeof h.magic);
    h.version = trace::kVersion;
    h.kind = uint32_t(kind);
    AGX_CHECK(write_all(fd, &h, sizeof h));
  } else {
    trace::FileHeader h{};
    if (::pread(fd, &h, sizeof h, 0) != ssize_t(sizeof h) ||
        std::memcmp(h.magic, trace::kMagic, sizeof h.magic) != 0 || h.version != trace::kVersion ||
        h.kind != uint32_t(kind))
      return Error::invalid_argument("{}: exists and is not an agx trace of version {} (not appending)", path,
                                     trace::kVersion);
    return w;  // the PARM chunk is already there
  }
  AGX_CHECK(write_chunk(fd, trace::kTagParams, {bytes_of(params)}));
  return w;
}

TraceWriter::~TraceWriter() { ::close(fd_); }

Status TraceWriter::write_submit(const trace::SubmitInfo& info, std::span<const uint8_t> cmdbuf,
                                 std::span<const drm_asahi_sync> syncs, Vm& vm,
                                 std::span<const mem::AddressSpace::TouchedRange> pages,
                                 const trace::FaultInfo* fault, std::string_view reason) {
  // The pieces of `pages` inside bound ranges; the objects stay alive
  // through GemPtr.
  struct Piece {
    uint64_t va, end, start;  // start: of its mapping
    Mapping map;
    uint32_t flags;
  };
  std::vector<Piece> pieces;
  {
    std::lock_guard g(vm.mu);
    for (const auto& r : pages) {
      const uint64_t end = r.va + r.size_B;
      auto it = vm.maps.upper_bound(r.va);
      if (it != vm.maps.begin()) --it;
      for (; it != vm.maps.end() && it->first < end; ++it) {
        const uint64_t lo = std::max(r.va, it->first), hi = std::min(end, it->second.end);
        if (lo >= hi) continue;
        uint8_t perms = 0;
        vm.memory.translate(lo, &perms);
        uint32_t flags = r.written ? trace::kMapWritten : 0;
        if (perms & mem::kRead) flags |= trace::kMapRead;
        if (perms & mem::kWrite) flags |= trace::kMapWrite;
        if (it->second.repeated) flags |= trace::kMapSinglePage;
        pieces.push_back({lo, hi, it->first, it->second, flags});
      }
    }
  }
  std::lock_guard g(mu_);
  FileLock lock(fd_);
  AGX_CHECK(write_chunk(fd_, trace::kTagSubmit, {bytes_of(info)}));
  AGX_CHECK(write_chunk(fd_, trace::kTagCmdbuf, {cmdbuf}));
  AGX_CHECK(write_chunk(fd_, trace::kTagSyncs,
                        {{reinterpret_cast<const uint8_t*>(syncs.data()), syncs.size_bytes()}}));
  if (fault) {
    trace::FaultInfo f = *fault;
    f.reason_size_B = uint32_t(reason.size());
    AGX_CHECK(write_chunk(fd_, trace::kTagFault,
                          {bytes_of(f), {reinterpret_cast<const uint8_t*>(reason.data()), reason.size()}}));
  }
  for (const Piece& p : pieces) {
    const trace::MappingInfo m{p.va, p.end - p.va, p.flags, 0};
    const uint8_t* data = p.map.object->host + p.map.offset + (p.map.repeated ? 0 : p.va - p.start);
    const uint64_t data_B = p.map.repeated ? trace::kPageSize_B : m.size_B;
    AGX_CHECK(write_chunk(fd_, trace::kTagMapping, {bytes_of(m), {data, data_B}}));
  }
  return {};
}

std::vector<mem::AddressSpace::TouchedRange> capture_pages(Vm& vm, const Job& job) {
  std::map<uint64_t, bool> pages;  // page VA -> written
  for (const auto& r : vm.memory.touched_since(job.touch_mark))
    for (uint64_t va = r.va; va < r.va + r.size_B; va += mem::kPageSize_B) pages[va] = r.written;
  auto add = [&](uint64_t base, uint64_t end) {
    if (base >= mem::kVaLimit) return;
    end = std::clamp(end, base + 1, std::min(base + (uint64_t{1} << 20), mem::kVaLimit));
    for (uint64_t va = base & ~mem::kPageMask; va < end; va += mem::kPageSize_B) pages.emplace(va, false);
  };
  for (const JobCommand& c : job.commands) {
    if (c.plan.kind == CommandKind::render) add(c.render.vdm_ctrl_stream_base, 0);
    else add(c.compute.cdm_ctrl_stream_base, c.compute.cdm_ctrl_stream_end);
  }
  std::vector<mem::AddressSpace::TouchedRange> out;
  for (const auto& [va, written] : pages) {
    if (!out.empty() && out.back().va + out.back().size_B == va && out.back().written == written)
      out.back().size_B += mem::kPageSize_B;
    else
      out.push_back({va, mem::kPageSize_B, written});
  }
  return out;
}

void Device::Impl::finish_capture(Job& job, const Queue& q) {
  if (!job.capture) return;
  const std::shared_ptr<PendingCapture> c = std::move(job.capture);
  const auto pages = capture_pages(*q.vm(), job);
  Status st = c->writer->write_submit(c->info, job.cmdbuf, c->syncs, *q.vm(), pages);
  if (!st)
    std::fprintf(stderr, "agx kmd: AGX_TRACE %s: %s\n", c->writer->path().c_str(), st.error().message().c_str());
}

std::shared_ptr<TraceWriter> Device::Impl::trace_writer() {
  std::lock_guard g(capture_mu);
  return trace;
}

std::string Device::Impl::crash_directory() {
  std::lock_guard g(capture_mu);
  return crash_dir;
}

Status Device::set_trace_file(const std::string& path) {
  std::shared_ptr<TraceWriter> w;
  if (!path.empty()) {
    AGX_TRY(w, TraceWriter::open(path, trace::FileKind::trace, impl_->params));
  }
  std::lock_guard g(impl_->capture_mu);
  impl_->trace = std::move(w);
  impl_->capturing = impl_->trace || !impl_->crash_dir.empty();
  return {};
}

// At SUBMIT: keeps what the record needs and starts tracking the pages the
// job touches; the record itself is written when the job completes
// (finish_capture), so it holds what the job really used.
void FileImpl::capture_submit(const drm_asahi_submit& s, std::span<const uint8_t> cmdbuf,
                              std::span<const drm_asahi_sync> syncs, const Queue& queue, Job& job) {
  if (!dev_.capturing.load(std::memory_order_relaxed)) return;
  job.cmdbuf.assign(cmdbuf.begin(), cmdbuf.end());
  mem::AddressSpace& memory = queue.vm()->memory;
  memory.track_touches();
  job.touch_mark = memory.touch_mark();
  std::shared_ptr<TraceWriter> w = dev_.trace_writer();
  if (!w) return;
  auto c = std::make_shared<PendingCapture>();
  c->writer = std::move(w);
  c->syncs.assign(syncs.begin(), syncs.end());
  trace::SubmitInfo& info = c->info;
  info.seqno = job.seqno;
  info.time_ns = dev_.time_ns();
  info.queue_id = queue.id();
  info.vm_id = job.vm_id;
  info.usc_exec_base = queue.usc_exec_base();
  info.priority = queue.priority();
  info.submit_flags = s.flags;
  info.in_sync_count = s.in_sync_count;
  info.out_sync_count = s.out_sync_count;
  info.pid = uint32_t(::getpid());
  job.capture = std::move(c);
}

}  // namespace agx::kmd
