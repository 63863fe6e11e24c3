// Path-based calls: open, fopen, stat, statx, access, readlink, realpath.
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "shim/fd_table.h"
#include "shim/real.h"
#include "shim/shim.h"
#include "shim/vfs.h"

namespace agx::shim {
namespace {

int fail(int err) {
  errno = err;
  return -1;
}

// A memfd holding `content`, positioned at its start.
int content_fd(const VirtualNode& node, int flags) {
  int fd = memfd_create("agx-shim-sysfs", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
  if (fd < 0) return -1;
  size_t done = 0;
  while (done < node.content.size()) {
    ssize_t n = ::write(fd, node.content.data() + done, node.content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      real::close(fd);
      return fail(err);
    }
    done += static_cast<size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

// A memfd standing for an open of a directory or of the render node, so that
// the descriptor number is real and close/dup/poll work on it.
int register_node_fd(const VirtualNode& node, int flags, std::shared_ptr<kmd::File> file) {
  auto open = std::make_shared<OpenNode>(OpenNode{&node, std::move(file)});
  int fd = memfd_create(node.kind == NodeKind::render_node ? "agx-renderD128" : "agx-shim-dir",
                        (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
  if (fd < 0) return -1;
  FdTable::instance().insert(fd, std::move(open));
  return fd;
}

int open_node(const VirtualNode& node, int flags) {
  const int access = flags & O_ACCMODE;
  if ((flags & O_CREAT) && (flags & O_EXCL)) return fail(EEXIST);
  switch (node.kind) {
    case NodeKind::file:
      if (flags & O_DIRECTORY) return fail(ENOTDIR);
      if (access != O_RDONLY) return fail(EACCES);
      return content_fd(node, flags);
    case NodeKind::directory:
      if (access != O_RDONLY) return fail(EISDIR);
      return register_node_fd(node, flags, nullptr);
    case NodeKind::render_node:
      if (flags & O_DIRECTORY) return fail(ENOTDIR);
      return register_node_fd(node, flags, kmd::open_file(kmd::default_device()));
    case NodeKind::symlink:
      return fail(ELOOP);  // O_NOFOLLOW on one of our links
  }
  return fail(EINVAL);
}

// fopen's mode string as open flags ("r", "w+", "re", "ax", ...).
int fopen_flags(const char* mode) {
  int flags = 0;
  switch (mode[0]) {
    case 'r': flags = O_RDONLY; break;
    case 'w': flags = O_WRONLY | O_CREAT | O_TRUNC; break;
    case 'a': flags = O_WRONLY | O_CREAT | O_APPEND; break;
    default: return -1;
  }
  for (const char* c = mode + 1; *c; ++c) {
    if (*c == '+') flags = (flags & ~O_ACCMODE) | O_RDWR;
    if (*c == 'e') flags |= O_CLOEXEC;
    if (*c == 'x') flags |= O_EXCL;
  }
  return flags;
}

}  // namespace

int open_at(int dirfd, const char* path, int flags, mode_t mode) {
  PathLookup l = lookup_path(path, !(flags & O_NOFOLLOW));
  if (l.cls == PathClass::real) return real::openat(dirfd, l.real_or(path), flags, mode);
  if (l.cls == PathClass::hidden) return fail(ENOENT);
  return open_node(*l.node, flags);
}

FILE* fopen_path(const char* path, const char* mode) {
  PathLookup l = lookup_path(path);
  if (l.cls == PathClass::real) return real::fopen(l.real_or(path), mode);
  if (l.cls == PathClass::hidden || !mode) {
    errno = l.cls == PathClass::hidden ? ENOENT : EINVAL;
    return nullptr;
  }
  const int flags = fopen_flags(mode);
  if (flags < 0) {
    errno = EINVAL;
    return nullptr;
  }
  int fd = open_node(*l.node, flags);
  if (fd < 0) return nullptr;
  FILE* f = fdopen(fd, mode);
  if (!f) {
    int err = errno;
    close_fd(fd);
    errno = err;
  }
  return f;
}

int stat_at(int dirfd, const char* path, struct stat* st, int flags) {
  if ((flags & AT_EMPTY_PATH) && path && path[0] == '\0') return stat_fd(dirfd, st);
  PathLookup l = lookup_path(path, !(flags & AT_SYMLINK_NOFOLLOW));
  if (l.cls == PathClass::real) return real::fstatat(dirfd, l.real_or(path), st, flags);
  if (l.cls == PathClass::hidden) return fail(ENOENT);
  fill_stat(*l.node, st);
  return 0;
}

int stat_fd(int fd, struct stat* st) {
  if (auto open = FdTable::instance().find(fd)) {
    fill_stat(*open->node, st);
    return 0;
  }
  return real::fstat(fd, st);
}

int statx_at(int dirfd, const char* path, int flags, unsigned mask, struct statx* stx) {
  if ((flags & AT_EMPTY_PATH) && path && path[0] == '\0') {
    if (auto open = FdTable::instance().find(dirfd)) {
      fill_statx(*open->node, stx);
      return 0;
    }
    return real::statx(dirfd, path, flags, mask, stx);
  }
  PathLookup l = lookup_path(path, !(flags & AT_SYMLINK_NOFOLLOW));
  if (l.cls == PathClass::real) return real::statx(dirfd, l.real_or(path), flags, mask, stx);
  if (l.cls == PathClass::hidden) return fail(ENOENT);
  fill_statx(*l.node, stx);
  return 0;
}

int access_at(int dirfd, const char* path, int mode, int flags) {
  PathLookup l = lookup_path(path, !(flags & AT_SYMLINK_NOFOLLOW));
  if (l.cls == PathClass::real) return real::faccessat(dirfd, l.real_or(path), mode, flags);
  if (l.cls == PathClass::hidden) return fail(ENOENT);
  // Directories are searchable, the node is read-write, sysfs files read-only.
  const NodeKind kind = l.node->kind;
  if ((mode & X_OK) && kind != NodeKind::directory && kind != NodeKind::symlink) return fail(EACCES);
  if ((mode & W_OK) && kind != NodeKind::render_node) return fail(EACCES);
  return 0;
}

namespace {

// The node behind /proc/self/fd/<n> when <n> is one of our descriptors
// (the kernel shows the path that was opened there).
const VirtualNode* proc_fd_node(const char* path) {
  static const char kPrefix[] = "/proc/self/fd/";
  if (!path || std::strncmp(path, kPrefix, sizeof kPrefix - 1) != 0) return nullptr;
  char* end = nullptr;
  const long fd = std::strtol(path + sizeof kPrefix - 1, &end, 10);
  if (end == path + sizeof kPrefix - 1 || *end != '\0' || fd < 0 || fd > INT32_MAX) return nullptr;
  auto open = FdTable::instance().find(static_cast<int>(fd));
  return open ? open->node : nullptr;
}

// Like the kernel: no terminating NUL, silently truncated to `size`.
ssize_t copy_link(const std::string& target, char* buf, size_t size) {
  if (size == 0) return fail(EINVAL);
  const size_t n = std::min(size, target.size());
  std::memcpy(buf, target.data(), n);
  return static_cast<ssize_t>(n);
}

}  // namespace

ssize_t readlink_at(int dirfd, const char* path, char* buf, size_t size) {
  if (const VirtualNode* node = proc_fd_node(path)) return copy_link(node->path, buf, size);
  PathLookup l = lookup_path(path, false);
  if (l.cls == PathClass::real) return real::readlinkat(dirfd, l.real_or(path), buf, size);
  if (l.cls == PathClass::hidden) return fail(ENOENT);
  if (l.node->kind != NodeKind::symlink) return fail(EINVAL);
  return copy_link(l.node->link_target, buf, size);
}

char* realpath_of(const char* path, char* resolved) {
  PathLookup l = lookup_path(path);
  if (l.cls == PathClass::real) return real::realpath(l.real_or(path), resolved);
  if (l.cls == PathClass::hidden) {
    errno = ENOENT;
    return nullptr;
  }
  const std::string& p = l.node->path;  // canonical: links resolved
  if (!resolved) return strdup(p.c_str());
  std::memcpy(resolved, p.c_str(), p.size() + 1);
  return resolved;
}

ssize_t getxattr_of(const char* path, const char* name, void* value, size_t size, bool follow) {
  PathLookup l = lookup_path(path, follow);
  const char* p = l.real_or(path);
  if (l.cls == PathClass::real)
    return follow ? real::getxattr(p, name, value, size) : real::lgetxattr(p, name, value, size);
  return fail(l.cls == PathClass::hidden ? ENOENT : ENODATA);
}

ssize_t listxattr_of(const char* path, char* list, size_t size, bool follow) {
  PathLookup l = lookup_path(path, follow);
  const char* p = l.real_or(path);
  if (l.cls == PathClass::real) return follow ? real::listxattr(p, list, size) : real::llistxattr(p, list, size);
  if (l.cls == PathClass::hidden) return fail(ENOENT);
  return 0;  // an empty list
}

}  // namespace agx::shim
