// The device's own host descriptors (the memfds behind GEM objects) live in
// the client's descriptor table, as the kernel's files cannot. They are kept
// out of reach: moved to high numbers with close-on-exec, recorded so that
// the shim refuses close/dup2/dup3/mmap/ioctl on them (EBADF, as for a
// descriptor that does not exist), and checked by identity (device and inode)
// before every use, so a number closed and reused behind the device's back
// is never taken for its own.
#pragma once

#include <sys/types.h>

#include <utility>

namespace agx::kmd {

using FdKey = std::pair<dev_t, ino_t>;

// Moves `fd` (which the device owns) to a high number, close-on-exec, and
// records it. Returns the new number (fd itself if it could not move) and
// its identity in *key; -errno on failure (fd is closed then).
int adopt_own_fd(int fd, FdKey* key);
// True while `fd` is still the descriptor recorded with `key`.
bool own_fd_is(int fd, const FdKey& key);
// Forgets `fd` and closes it if it is still the file recorded with `key`
// (never a client's file that took a number closed behind our back).
void close_own_fd(int fd, const FdKey& key);

}  // namespace agx::kmd
