// copy_from_user / copy_to_user with process_vm_readv / process_vm_writev on
// the own process: the host kernel does the access and answers EFAULT for a
// bad range, so a client's bad pointer never faults the device, and a
// mapping changed by another thread at the same moment is safe too (no
// signal handler, no check-then-use window).
#include "kmd/uaccess.h"

#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace agx::kmd {

namespace {

// The own pid, refreshed in a forked child so that a stale pid never names
// another process.
std::atomic<pid_t> g_pid{0};
void forget_pid() { g_pid.store(0, std::memory_order_relaxed); }
pid_t self() {
  pid_t pid = g_pid.load(std::memory_order_relaxed);
  if (pid == 0) {
    static const bool registered = [] { return ::pthread_atfork(nullptr, nullptr, forget_pid) == 0; }();
    (void)registered;
    pid = ::getpid();
    g_pid.store(pid, std::memory_order_relaxed);
  }
  return pid;
}

// One transfer, retried after a short count (a later page may still be
// readable when the host split the copy); a short count that makes no
// progress is a bad page.
template <typename Op>
int transfer(uint64_t user, void* local, size_t size_B, Op op) {
  size_t done = 0;
  while (done < size_B) {
    iovec mine{static_cast<uint8_t*>(local) + done, size_B - done};
    iovec theirs{reinterpret_cast<void*>(user + done), size_B - done};
    if (user + done < user) return -EFAULT;  // wraps the address space
    ssize_t n = op(self(), &mine, 1, &theirs, 1, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -EFAULT;
    }
    if (n == 0) return -EFAULT;
    done += size_t(n);
  }
  return 0;
}

}  // namespace

int copy_from_user(void* dst, uint64_t user_src, size_t size_B) {
  if (size_B == 0) return 0;
  return transfer(user_src, dst, size_B, ::process_vm_readv);
}

int copy_to_user(uint64_t user_dst, const void* src, size_t size_B) {
  if (size_B == 0) return 0;
  return transfer(user_dst, const_cast<void*>(src), size_B, ::process_vm_writev);
}

}  // namespace agx::kmd
