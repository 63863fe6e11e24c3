// Caller memory, as a kernel reaches user memory: every read and write of an
// address the client passed (the ioctl argument, and every pointer inside
// it) goes through copy_from_user / copy_to_user, which report -EFAULT for
// an unmapped, unreadable or unwritable range instead of faulting. The
// device lives inside the client's process, so it must never dereference a
// client pointer directly.
#pragma once

#include <cstddef>
#include <cstdint>

namespace agx::kmd {

// 0, or -EFAULT when any byte of [user_src, user_src + size_B) cannot be
// read. A size of 0 always succeeds (any address).
int copy_from_user(void* dst, uint64_t user_src, size_t size_B);
// 0, or -EFAULT when any byte of [user_dst, user_dst + size_B) cannot be
// written (read-only or unmapped pages). Bytes before the first bad page may
// have been written, as with the kernel's copy_to_user.
int copy_to_user(uint64_t user_dst, const void* src, size_t size_B);

inline uint64_t user_ptr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace agx::kmd
