// AGX_TRACE: every accepted SUBMIT appended to a file, with the queue's VM
// mappings and their bytes (kmd/trace_format.h; docs/cmdstream.md). The
// kmd writes raw bytes only: decoding is the cmdstream unit's job, above us.
#include "kmd/capture.h"
#include "kmd/file_impl.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

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

// One chunk from several pieces of payload.
Status write_chunk(int fd, uint32_t tag, std::initializer_list<std::span<const uint8_t>> pieces) {
  trace::ChunkHeader h{tag, 0, 0};
  for (auto piece : pieces) h.size_B += piece.size();
  AGX_CHECK(write_all(fd, &h, sizeof h));
  for (auto piece : pieces)
    if (!piece.empty()) AGX_CHECK(write_all(fd, piece.data(), piece.size()));
  static constexpr uint8_t kZeros[8] = {};
  if (size_t pad = (8 - h.size_B % 8) % 8) AGX_CHECK(write_all(fd, kZeros, pad));
  return {};
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
                                 std::span<const drm_asahi_sync> syncs, Vm& vm, const trace::FaultInfo* fault,
                                 std::string_view reason) {
  // A snapshot of the bound ranges; the objects stay alive through GemPtr.
  struct Range {
    uint64_t va;
    Mapping map;
    uint8_t perms;
  };
  std::vector<Range> ranges;
  {
    std::lock_guard g(vm.mu);
    ranges.reserve(vm.maps.size());
    for (const auto& [va, m] : vm.maps) {
      uint8_t perms = 0;
      vm.memory.translate(va, &perms);
      ranges.push_back({va, m, perms});
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
  for (const Range& r : ranges) {
    trace::MappingInfo m{r.va, r.map.end - r.va, 0, 0};
    if (r.perms & mem::kRead) m.flags |= trace::kMapRead;
    if (r.perms & mem::kWrite) m.flags |= trace::kMapWrite;
    if (r.map.repeated) m.flags |= trace::kMapSinglePage;
    const uint64_t data_B = r.map.repeated ? trace::kPageSize_B : m.size_B;
    AGX_CHECK(write_chunk(fd_, trace::kTagMapping, {bytes_of(m), {r.map.object->host + r.map.offset, data_B}}));
  }
  return {};
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

void FileImpl::capture_submit(const drm_asahi_submit& s, std::span<const uint8_t> cmdbuf,
                              std::span<const drm_asahi_sync> syncs, const Queue& queue, Job& job) {
  if (!dev_.capturing.load(std::memory_order_relaxed)) return;
  if (!dev_.crash_directory().empty()) job.cmdbuf.assign(cmdbuf.begin(), cmdbuf.end());
  std::shared_ptr<TraceWriter> w = dev_.trace_writer();
  if (!w) return;
  trace::SubmitInfo info{};
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
  Status st = w->write_submit(info, cmdbuf, syncs, *queue.vm(), nullptr, {});
  if (!st) std::fprintf(stderr, "agx kmd: AGX_TRACE %s: %s\n", w->path().c_str(), st.error().message().c_str());
}

}  // namespace agx::kmd
