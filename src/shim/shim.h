// agx::shim: a DRM render node for unmodified clients.
//
// libagx_shim.so, loaded with LD_PRELOAD, makes /dev/dri/renderD128 and the
// /sys entries libdrm inspects appear, backed by agx::kmd in the same
// process: open() of the node gives a real host descriptor (a memfd) whose
// ioctls and mmaps go to an agx::kmd::File. See docs/shim.md.
//
// These functions are the whole behaviour of the preloaded symbols, with the
// C library's conventions (-1 or nullptr and errno on failure); preload.cpp
// only forwards each libc entry point to one of them. Anything that is not
// ours goes to the C library's own implementation.
#pragma once

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

struct statx;

namespace agx::shim {

// Paths: open/openat (all variants), fopen, stat/lstat/fstatat (and the old
// __xstat family), statx, access/faccessat, readlink/readlinkat, realpath.
int open_at(int dirfd, const char* path, int flags, mode_t mode);
FILE* fopen_path(const char* path, const char* mode);
int stat_at(int dirfd, const char* path, struct stat* st, int flags);
int stat_fd(int fd, struct stat* st);
int statx_at(int dirfd, const char* path, int flags, unsigned mask, struct statx* stx);
int access_at(int dirfd, const char* path, int mode, int flags);
ssize_t readlink_at(int dirfd, const char* path, char* buf, size_t size);
char* realpath_of(const char* path, char* resolved);
// Extended attributes (what `ls -l` asks for ACLs and SELinux labels): our
// nodes have none.
ssize_t getxattr_of(const char* path, const char* name, void* value, size_t size, bool follow);
ssize_t listxattr_of(const char* path, char* list, size_t size, bool follow);

// Descriptors: close/close_range/closefrom, dup/dup2/dup3, fcntl, ioctl, mmap, munmap.
int close_fd(int fd);
int close_fd_range(unsigned first, unsigned last, int flags);
void close_from(int lowfd);
int dup_fd(int fd);
int dup2_fd(int oldfd, int newfd);
int dup3_fd(int oldfd, int newfd, int flags);
int fcntl_fd(int fd, int cmd, long arg);
int ioctl_fd(int fd, unsigned long request, void* arg);
void* mmap_fd(void* addr, size_t length, int prot, int flags, int fd, off_t offset);
int munmap_range(void* addr, size_t length);

// Directories: opendir/readdir/readdir64/closedir/dirfd/rewinddir.
DIR* open_dir(const char* path);
struct dirent* read_dir(DIR* dir);
struct dirent64* read_dir64(DIR* dir);
int close_dir(DIR* dir);
int dir_fd(DIR* dir);
void rewind_dir(DIR* dir);

// True if fd is an open of the render node (for tests and tools).
bool is_render_fd(int fd);

}  // namespace agx::shim
