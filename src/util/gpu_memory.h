// The interface through which every part of the software GPU touches GPU
// memory. The `mem` unit implements it with per-VM page tables; tests and
// `agx emu` may implement it with a plain map. An access that cannot be
// satisfied returns a Fault, recorded by the implementation; it never
// touches host memory outside what was mapped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace agx {

using GpuVa = uint64_t;  // a GPU virtual address

enum class Access : uint8_t { read, write };

// The hardware unit that made an access, so a fault names its origin.
enum class GpuUnit : uint8_t { usc, cdm, vdm, ppp, isp, pdm, pbe, texture, firmware, host };

const char* to_string(Access access);
const char* to_string(GpuUnit unit);

struct GpuFault {
  GpuVa va = 0;           // first faulting byte
  Access access = Access::read;
  GpuUnit unit = GpuUnit::usc;
  std::string reason;     // "unmapped", "not writable", ...
};

std::string describe(const GpuFault& fault);  // "read of 0x... by usc: unmapped"

class GpuMemory {
 public:
  virtual ~GpuMemory() = default;

  // Copies `size` bytes from GPU VA `va` to `dst`. Returns false and fills
  // *fault if any byte is unmapped or not readable; then dst is unspecified.
  virtual bool read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) = 0;

  // Copies `size` bytes from `src` to GPU VA `va`. Returns false and fills
  // *fault if any byte is unmapped or not writable; then no byte is written.
  virtual bool write(GpuVa va, const void* src, size_t size, GpuUnit unit, GpuFault* fault) = 0;

  // Fast path: a host pointer to `size` bytes at `va` if they are contiguous
  // in host memory and allow `access`, else nullptr (the caller falls back to
  // read/write, which report the fault). Valid until the mapping changes.
  virtual uint8_t* host_pointer(GpuVa va, size_t size, Access access) { return nullptr; }
};

}  // namespace agx
