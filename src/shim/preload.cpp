// The symbols libagx_shim.so exports for LD_PRELOAD: each C library entry
// point that can touch the render node, forwarded to agx::shim (shim.h).
//
// Only this file is compiled into the shared library on top of the shim's
// static core; every body catches all exceptions, so none crosses into C
// (an allocation failure becomes ENOMEM).
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/shim.h"

static_assert(sizeof(off_t) == sizeof(off64_t) && sizeof(struct stat) == sizeof(struct stat64),
              "the *64 entry points share the plain ones (x86-64)");

#define AGX_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

template <typename R, typename F>
R guarded(R on_error, F&& body) noexcept {
  try {
    return body();
  } catch (...) {
    errno = ENOMEM;
    return on_error;
  }
}

// open's optional third argument: read only when the flags say it is there.
#define AGX_OPEN_MODE(flags, mode)          \
  mode_t mode = 0;                          \
  if ((flags) & (O_CREAT | O_TMPFILE)) {    \
    va_list ap;                             \
    va_start(ap, flags);                    \
    mode = static_cast<mode_t>(va_arg(ap, int)); \
    va_end(ap);                             \
  }

}  // namespace

namespace shim = agx::shim;

// --- open ------------------------------------------------------------------
AGX_EXPORT int open(const char* path, int flags, ...) {
  AGX_OPEN_MODE(flags, mode);
  return guarded(-1, [&] { return shim::open_at(AT_FDCWD, path, flags, mode); });
}
AGX_EXPORT int openat(int dirfd, const char* path, int flags, ...) {
  AGX_OPEN_MODE(flags, mode);
  return guarded(-1, [&] { return shim::open_at(dirfd, path, flags, mode); });
}
// _FORTIFY_SOURCE variants (no mode argument).
AGX_EXPORT int __open_2(const char* path, int flags) {
  return guarded(-1, [&] { return shim::open_at(AT_FDCWD, path, flags, 0); });
}
AGX_EXPORT int __openat_2(int dirfd, const char* path, int flags) {
  return guarded(-1, [&] { return shim::open_at(dirfd, path, flags, 0); });
}
AGX_EXPORT FILE* fopen(const char* path, const char* mode) {
  return guarded<FILE*>(nullptr, [&] { return shim::fopen_path(path, mode); });
}
// On x86-64 the 64-bit-offset names are the same functions.
AGX_EXPORT int open64(const char*, int, ...) __attribute__((alias("open")));
AGX_EXPORT int openat64(int, const char*, int, ...) __attribute__((alias("openat")));
AGX_EXPORT int __open64_2(const char*, int) __attribute__((alias("__open_2")));
AGX_EXPORT int __openat64_2(int, const char*, int) __attribute__((alias("__openat_2")));
AGX_EXPORT FILE* fopen64(const char*, const char*) __attribute__((alias("fopen")));

// --- stat ------------------------------------------------------------------
AGX_EXPORT int stat(const char* path, struct stat* st) noexcept {
  return guarded(-1, [&] { return shim::stat_at(AT_FDCWD, path, st, 0); });
}
AGX_EXPORT int stat64(const char* path, struct stat64* st) noexcept {
  return guarded(-1, [&] { return shim::stat_at(AT_FDCWD, path, reinterpret_cast<struct stat*>(st), 0); });
}
AGX_EXPORT int lstat(const char* path, struct stat* st) noexcept {
  return guarded(-1, [&] { return shim::stat_at(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW); });
}
AGX_EXPORT int lstat64(const char* path, struct stat64* st) noexcept {
  return guarded(-1, [&] {
    return shim::stat_at(AT_FDCWD, path, reinterpret_cast<struct stat*>(st), AT_SYMLINK_NOFOLLOW);
  });
}
AGX_EXPORT int fstat(int fd, struct stat* st) noexcept {
  return guarded(-1, [&] { return shim::stat_fd(fd, st); });
}
AGX_EXPORT int fstat64(int fd, struct stat64* st) noexcept {
  return guarded(-1, [&] { return shim::stat_fd(fd, reinterpret_cast<struct stat*>(st)); });
}
AGX_EXPORT int fstatat(int dirfd, const char* path, struct stat* st, int flags) noexcept {
  return guarded(-1, [&] { return shim::stat_at(dirfd, path, st, flags); });
}
AGX_EXPORT int fstatat64(int dirfd, const char* path, struct stat64* st, int flags) noexcept {
  return guarded(-1, [&] { return shim::stat_at(dirfd, path, reinterpret_cast<struct stat*>(st), flags); });
}
// The pre-2.33 glibc entry points that older binaries still call; on x86-64
// every `ver` means the kernel's struct stat.
AGX_EXPORT int __xstat(int, const char* path, struct stat* st) {
  return guarded(-1, [&] { return shim::stat_at(AT_FDCWD, path, st, 0); });
}
AGX_EXPORT int __xstat64(int, const char* path, struct stat64* st) {
  return guarded(-1, [&] { return shim::stat_at(AT_FDCWD, path, reinterpret_cast<struct stat*>(st), 0); });
}
AGX_EXPORT int __lxstat(int, const char* path, struct stat* st) {
  return guarded(-1, [&] { return shim::stat_at(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW); });
}
AGX_EXPORT int __lxstat64(int, const char* path, struct stat64* st) {
  return guarded(-1, [&] {
    return shim::stat_at(AT_FDCWD, path, reinterpret_cast<struct stat*>(st), AT_SYMLINK_NOFOLLOW);
  });
}
AGX_EXPORT int __fxstat(int, int fd, struct stat* st) {
  return guarded(-1, [&] { return shim::stat_fd(fd, st); });
}
AGX_EXPORT int __fxstat64(int, int fd, struct stat64* st) {
  return guarded(-1, [&] { return shim::stat_fd(fd, reinterpret_cast<struct stat*>(st)); });
}
AGX_EXPORT int __fxstatat(int, int dirfd, const char* path, struct stat* st, int flags) {
  return guarded(-1, [&] { return shim::stat_at(dirfd, path, st, flags); });
}
AGX_EXPORT int __fxstatat64(int, int dirfd, const char* path, struct stat64* st, int flags) {
  return guarded(-1, [&] { return shim::stat_at(dirfd, path, reinterpret_cast<struct stat*>(st), flags); });
}
AGX_EXPORT int statx(int dirfd, const char* path, int flags, unsigned mask, struct statx* stx) noexcept {
  return guarded(-1, [&] { return shim::statx_at(dirfd, path, flags, mask, stx); });
}

// --- access, readlink, realpath, extended attributes -------------------------------------------
AGX_EXPORT int access(const char* path, int mode) noexcept {
  return guarded(-1, [&] { return shim::access_at(AT_FDCWD, path, mode, 0); });
}
AGX_EXPORT int faccessat(int dirfd, const char* path, int mode, int flags) noexcept {
  return guarded(-1, [&] { return shim::access_at(dirfd, path, mode, flags); });
}
AGX_EXPORT ssize_t readlink(const char* path, char* buf, size_t size) noexcept {
  return guarded<ssize_t>(-1, [&] { return shim::readlink_at(AT_FDCWD, path, buf, size); });
}
AGX_EXPORT ssize_t readlinkat(int dirfd, const char* path, char* buf, size_t size) noexcept {
  return guarded<ssize_t>(-1, [&] { return shim::readlink_at(dirfd, path, buf, size); });
}
AGX_EXPORT ssize_t __readlink_chk(const char* path, char* buf, size_t size, size_t buflen) {
  if (size > buflen) abort();  // what the fortified C library does
  return guarded<ssize_t>(-1, [&] { return shim::readlink_at(AT_FDCWD, path, buf, size); });
}
AGX_EXPORT ssize_t __readlinkat_chk(int dirfd, const char* path, char* buf, size_t size, size_t buflen) {
  if (size > buflen) abort();
  return guarded<ssize_t>(-1, [&] { return shim::readlink_at(dirfd, path, buf, size); });
}
AGX_EXPORT char* realpath(const char* path, char* resolved) noexcept {
  return guarded<char*>(nullptr, [&] { return shim::realpath_of(path, resolved); });
}
AGX_EXPORT char* __realpath_chk(const char* path, char* resolved, size_t resolvedlen) {
  if (resolved && resolvedlen < PATH_MAX) abort();
  return guarded<char*>(nullptr, [&] { return shim::realpath_of(path, resolved); });
}

AGX_EXPORT ssize_t getxattr(const char* path, const char* name, void* value, size_t size) noexcept {
  return guarded<ssize_t>(-1, [&] { return shim::getxattr_of(path, name, value, size, true); });
}
AGX_EXPORT ssize_t lgetxattr(const char* path, const char* name, void* value, size_t size) noexcept {
  return guarded<ssize_t>(-1, [&] { return shim::getxattr_of(path, name, value, size, false); });
}
AGX_EXPORT ssize_t listxattr(const char* path, char* list, size_t size) noexcept {
  return guarded<ssize_t>(-1, [&] { return shim::listxattr_of(path, list, size, true); });
}
AGX_EXPORT ssize_t llistxattr(const char* path, char* list, size_t size) noexcept {
  return guarded<ssize_t>(-1, [&] { return shim::listxattr_of(path, list, size, false); });
}

// --- descriptors -----------------------------------------------------------
AGX_EXPORT int close(int fd) {
  return guarded(-1, [&] { return shim::close_fd(fd); });
}
AGX_EXPORT int close_range(unsigned first, unsigned last, int flags) noexcept {
  return guarded(-1, [&] { return shim::close_fd_range(first, last, flags); });
}
AGX_EXPORT void closefrom(int lowfd) noexcept {
  guarded(0, [&] {
    shim::close_from(lowfd);
    return 0;
  });
}
AGX_EXPORT int dup(int fd) noexcept {
  return guarded(-1, [&] { return shim::dup_fd(fd); });
}
AGX_EXPORT int dup2(int oldfd, int newfd) noexcept {
  return guarded(-1, [&] { return shim::dup2_fd(oldfd, newfd); });
}
AGX_EXPORT int dup3(int oldfd, int newfd, int flags) noexcept {
  return guarded(-1, [&] { return shim::dup3_fd(oldfd, newfd, flags); });
}
AGX_EXPORT int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  long arg = va_arg(ap, long);  // an int, a pointer or nothing: one register
  va_end(ap);
  return guarded(-1, [&] { return shim::fcntl_fd(fd, cmd, arg); });
}
AGX_EXPORT int fcntl64(int, int, ...) __attribute__((alias("fcntl")));
AGX_EXPORT int ioctl(int fd, unsigned long request, ...) noexcept {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  return guarded(-1, [&] { return shim::ioctl_fd(fd, request, arg); });
}
AGX_EXPORT void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) noexcept {
  return guarded(MAP_FAILED, [&] { return shim::mmap_fd(addr, length, prot, flags, fd, offset); });
}
AGX_EXPORT void* mmap64(void*, size_t, int, int, int, off64_t) noexcept __attribute__((alias("mmap")));
AGX_EXPORT int munmap(void* addr, size_t length) noexcept {
  return guarded(-1, [&] { return shim::munmap_range(addr, length); });
}

// --- directories -----------------------------------------------------------
AGX_EXPORT DIR* opendir(const char* path) {
  return guarded<DIR*>(nullptr, [&] { return shim::open_dir(path); });
}
AGX_EXPORT struct dirent* readdir(DIR* dir) {
  return guarded<struct dirent*>(nullptr, [&] { return shim::read_dir(dir); });
}
AGX_EXPORT struct dirent64* readdir64(DIR* dir) {
  return guarded<struct dirent64*>(nullptr, [&] { return shim::read_dir64(dir); });
}
AGX_EXPORT int closedir(DIR* dir) {
  return guarded(-1, [&] { return shim::close_dir(dir); });
}
AGX_EXPORT int dirfd(DIR* dir) noexcept {
  return guarded(-1, [&] { return shim::dir_fd(dir); });
}
AGX_EXPORT void rewinddir(DIR* dir) noexcept {
  guarded(0, [&] {
    shim::rewind_dir(dir);
    return 0;
  });
}
