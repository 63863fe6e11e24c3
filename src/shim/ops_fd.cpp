// Descriptor calls: close, dup, fcntl, ioctl, mmap, munmap.
#include <linux/sync_file.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "shim/fd_table.h"
#include "shim/real.h"
#include "shim/shim.h"

namespace agx::shim {
namespace {

int fail(int err) {
  errno = err;
  return -1;
}

// AGX_SHIM_DEBUG=1 traces every render-node ioctl and mmap to stderr.
bool debug() {
  static const bool on = [] {
    const char* v = std::getenv("AGX_SHIM_DEBUG");
    return v && *v && *v != '0';
  }();
  return on;
}

// After a successful dup of `oldfd` to `newfd`, newfd shares oldfd's open.
int record_dup(std::shared_ptr<OpenNode> open, int newfd) {
  if (newfd >= 0 && open) FdTable::instance().insert(newfd, std::move(open));
  return newfd;
}

// dup2/dup3 onto `newfd`: once the host has done it (closing whatever newfd
// was), newfd shares oldfd's open, or is no longer ours.
int record_dup_onto(std::shared_ptr<OpenNode> open, int newfd, int ret) {
  if (ret < 0) return ret;
  if (open)
    FdTable::instance().insert(newfd, std::move(open));
  else
    FdTable::instance().erase(newfd);
  return ret;
}

// The kmd makes its own mmap/munmap/close calls, which come back through the
// preloaded symbols; while this thread is inside the kmd they go straight to
// the C library (the kmd's munmap of a mapping we route to it would
// otherwise recurse into it).
thread_local int t_kmd_depth = 0;
struct KmdCall {
  KmdCall() { ++t_kmd_depth; }
  ~KmdCall() { --t_kmd_depth; }
  KmdCall(const KmdCall&) = delete;
  KmdCall& operator=(const KmdCall&) = delete;
};

size_t page_size() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

// The device's own descriptors are not the client's: every descriptor call
// on one fails as for a number the process does not have (EBADF), except
// the kmd's own calls.
bool internal(int fd) { return !t_kmd_depth && kmd::is_internal_fd(fd); }

// Calls f(lo, hi) for each piece of [first, last] that holds no internal
// descriptor (close_range/closefrom leave those open).
template <typename F>
int for_client_ranges(unsigned first, unsigned last, F f) {
  unsigned at = first;
  for (int fd : kmd::internal_fds()) {
    const auto u = static_cast<unsigned>(fd);
    if (u < at) continue;
    if (u > last) break;
    if (u > at && f(at, u - 1) != 0) return -1;
    if (u == ~0u) return 0;
    at = u + 1;
  }
  return at <= last && at >= first ? f(at, last) : 0;
}

bool is_render_fd(int fd) {
  auto open = FdTable::instance().find(fd);
  return open && open->file;
}

int close_fd(int fd) {
  if (internal(fd)) return fail(EBADF);
  // Forget the number before the host closes it, so that a concurrent open
  // that gets the same number is never mistaken for ours.
  std::shared_ptr<OpenNode> open = FdTable::instance().erase(fd);
  int ret = real::close(fd);
  KmdCall in_kmd;
  open.reset();  // may destroy the kmd File: outside every lock
  return ret;
}

int close_fd_range(unsigned first, unsigned last, int flags) {
  // CLOSE_RANGE_CLOEXEC only marks the descriptors; they stay open.
  std::vector<std::shared_ptr<OpenNode>> dropped;
  if (!(flags & CLOSE_RANGE_CLOEXEC) && first <= last) dropped = FdTable::instance().erase_range(first, last);
  if (t_kmd_depth || first > last) return real::close_range(first, last, flags);
  return for_client_ranges(first, last, [&](unsigned lo, unsigned hi) { return real::close_range(lo, hi, flags); });
}

void close_from(int lowfd) {
  std::vector<std::shared_ptr<OpenNode>> dropped;
  if (lowfd < 0) return real::closefrom(lowfd);
  dropped = FdTable::instance().erase_range(static_cast<unsigned>(lowfd), ~0u);
  if (kmd::internal_fds().empty()) return real::closefrom(lowfd);
  for_client_ranges(static_cast<unsigned>(lowfd), ~0u, [](unsigned lo, unsigned hi) {
    if (real::close_range(lo, hi, 0) == 0) return 0;
    // No close_range in this C library: close the open ones one by one,
    // up to the descriptor limit.
    const long limit = sysconf(_SC_OPEN_MAX);
    const unsigned end = limit > 0 ? std::min<unsigned>(hi, static_cast<unsigned>(limit - 1)) : hi;
    for (unsigned fd = lo; fd <= end && fd >= lo; fd++) real::close(static_cast<int>(fd));
    return 0;
  });
}

int dup_fd(int fd) {
  if (internal(fd)) return fail(EBADF);
  return record_dup(FdTable::instance().find(fd), real::dup(fd));
}

int dup2_fd(int oldfd, int newfd) {
  if (internal(oldfd) || internal(newfd)) return fail(EBADF);
  if (oldfd == newfd) return real::dup2(oldfd, newfd);
  return record_dup_onto(FdTable::instance().find(oldfd), newfd, real::dup2(oldfd, newfd));
}

int dup3_fd(int oldfd, int newfd, int flags) {
  if (internal(oldfd) || internal(newfd)) return fail(EBADF);
  if (oldfd == newfd) return real::dup3(oldfd, newfd, flags);  // EINVAL
  return record_dup_onto(FdTable::instance().find(oldfd), newfd, real::dup3(oldfd, newfd, flags));
}

int fcntl_fd(int fd, int cmd, long arg) {
  if (internal(fd)) return fail(EBADF);
  if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
    return record_dup(FdTable::instance().find(fd), real::fcntl(fd, cmd, arg));
  return real::fcntl(fd, cmd, arg);
}

int ioctl_fd(int fd, unsigned long request, void* arg) {
  if (internal(fd)) return fail(EBADF);
  auto open = t_kmd_depth ? nullptr : FdTable::instance().find(fd);
  // Sync files exported from the device's syncobjs are plain memfds: only
  // SYNC_IOC_FILE_INFO (the fence status, -EIO after a GPU fault) is ours.
  if (!open && !t_kmd_depth && request == SYNC_IOC_FILE_INFO && kmd::is_sync_file(kmd::default_device(), fd)) {
    KmdCall in_kmd;
    const int ret = kmd::sync_file_ioctl(kmd::default_device(), fd, request, arg);
    return ret < 0 ? fail(-ret) : ret;
  }
  if (!open) return real::ioctl(fd, request, arg);
  if (!open->file) return fail(ENOTTY);  // a directory
  int ret;
  {
    KmdCall in_kmd;
    ret = open->file->ioctl(request, arg);
  }
  if (debug())
    std::fprintf(stderr, "agx-shim: ioctl(fd %d, 0x%08lx nr 0x%02lx size %lu) = %d\n", fd, request,
                 request & 0xff, (request >> 16) & 0x3fff, ret);
  return ret < 0 ? fail(-ret) : ret;
}

void* mmap_fd(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  if ((flags & MAP_ANONYMOUS) || t_kmd_depth) return real::mmap(addr, length, prot, flags, fd, offset);
  if (internal(fd)) {
    errno = EBADF;
    return MAP_FAILED;
  }
  auto open = FdTable::instance().find(fd);
  if (!open) return real::mmap(addr, length, prot, flags, fd, offset);
  // The kernel refuses private (copy-on-write) GEM mappings, and the kmd
  // chooses the address itself, so fixed placements are refused too.
  const int type = flags & MAP_TYPE;
  int err = 0;
  if (!open->file)
    err = ENODEV;
  else if ((type != MAP_SHARED && type != MAP_SHARED_VALIDATE) ||
           (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) || offset < 0)
    err = EINVAL;
  void* p = nullptr;
  if (!err) {
    int kerr = 0;
    KmdCall in_kmd;
    p = open->file->mmap(static_cast<uint64_t>(offset), length, prot, &kerr);
    if (!p) err = kerr < 0 ? -kerr : EINVAL;
  }
  if (debug())
    std::fprintf(stderr, "agx-shim: mmap(fd %d, offset 0x%llx, %zu bytes) = %p (errno %d)\n", fd,
                 static_cast<unsigned long long>(offset), length, p, err);
  if (err) {
    errno = err;
    return MAP_FAILED;
  }
  FdTable::instance().add_mapping(p, length, open->file);
  return p;
}

int munmap_range(void* addr, size_t length) {
  FdTable& table = FdTable::instance();
  if (!table.has_mappings() || t_kmd_depth) return real::munmap(addr, length);
  const auto start = reinterpret_cast<uintptr_t>(addr);
  if (length == 0 || (start & (page_size() - 1))) return real::munmap(addr, length);
  const size_t span_B = (length + page_size() - 1) & ~(page_size() - 1);
  // A range may cover render-node mappings and plain memory: each render
  // piece goes to the kmd that made it, the gaps to the host.
  for (const FdTable::Piece& piece : table.split_range(start, span_B)) {
    void* p = reinterpret_cast<void*>(piece.start);
    KmdCall in_kmd;
    const int ret = piece.file ? piece.file->munmap(p, piece.length_B) : real::munmap(p, piece.length_B);
    if (piece.file && ret < 0) return fail(-ret);
    if (!piece.file && ret < 0) return -1;
    if (piece.file) table.remove_mapping_range(piece.start, piece.length_B);
  }
  return 0;
}

}  // namespace agx::shim
