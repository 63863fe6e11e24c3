// Memory a test can point the device at: a writable page followed by an
// inaccessible one and a read-only one, and an address with nothing mapped.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace agx::kmd::test {

struct GuardPages {
  GuardPages() {
    page_B = size_t(sysconf(_SC_PAGESIZE));
    base = static_cast<uint8_t*>(::mmap(nullptr, 3 * page_B, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    std::memset(base, 0, 3 * page_B);
    ::mprotect(base + page_B, page_B, PROT_NONE);
    ::mprotect(base + 2 * page_B, page_B, PROT_READ);
  }
  ~GuardPages() { ::munmap(base, 3 * page_B); }
  GuardPages(const GuardPages&) = delete;
  GuardPages& operator=(const GuardPages&) = delete;

  // The last n bytes of the writable page: byte n is inaccessible.
  template <typename T = uint8_t>
  T* edge(size_t n_B) { return reinterpret_cast<T*>(base + page_B - n_B); }
  uint64_t none() const { return reinterpret_cast<uintptr_t>(base + page_B); }           // PROT_NONE
  uint64_t read_only() const { return reinterpret_cast<uintptr_t>(base + 2 * page_B); }  // PROT_READ
  // Below vm.mmap_min_addr (64 KiB by default), where nothing is ever
  // mapped. (An address freed with munmap could be mapped again meanwhile,
  // as AddressSanitizer's allocator does.)
  uint64_t unmapped() const { return 0x1000; }

  size_t page_B = 0;
  uint8_t* base = nullptr;
};

}  // namespace agx::kmd::test
