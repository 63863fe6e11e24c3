// A worker's view of the command's VM, and how USC failures become faults.
#include <fmt/format.h>

#include "gpu/shader/shader.h"

namespace agx::gpu {

bool RecordingMemory::read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) {
  if (inner->read(va, dst, size, unit, fault)) return true;
  note(fault);
  return false;
}

bool RecordingMemory::write(GpuVa va, const void* src, size_t size, GpuUnit unit, GpuFault* fault) {
  if (inner->write(va, src, size, unit, fault)) return true;
  note(fault);
  return false;
}

// Translations are cached by 16 KiB window (the UAT page) until reset():
// the SIMD groups of a threadgroup (or of a tile) mostly touch the same
// windows, so most accesses cost no page-table walk. Resetting at each
// unit of work keeps a translation no longer than the host_pointer
// contract allows (the VM does not change under running work).
uint8_t* RecordingMemory::host_pointer(GpuVa va, size_t size, Access access) {
  const GpuVa window = va & ~(kWindow_B - 1);
  if (size == 0 || size > kWindow_B || va + size - window > kWindow_B) return inner->host_pointer(va, size, access);
  for (const Cached& e : cached_)
    if (e.host && e.window == window && e.access == access) return e.host + (va - window);
  uint8_t* host = inner->host_pointer(window, kWindow_B, access);
  if (!host) return inner->host_pointer(va, size, access);  // a window only partly mapped
  cached_[next_] = {window, host, access};
  next_ = (next_ + 1) % kCached;
  return host + (va - window);
}

void RecordingMemory::reset() {
  faulted = false;
  for (Cached& e : cached_) e.host = nullptr;
}

void RecordingMemory::note(const GpuFault* fault) {
  faulted = true;
  if (fault) last = *fault;
}

Error usc_fault(GpuFault* where, RecordingMemory& mem, const usc::Core& c, Error e, const std::string& ctx) {
  Error full = std::move(e).context(ctx);
  if (full.kind() == ErrorKind::fault && mem.faulted) {
    if (where) {
      *where = mem.last;
      where->reason = full.message();
    }
    return full;
  }
  return fail(where, c.pc, GpuUnit::usc, std::move(full));
}

Status check_registers(const LoadedProgram& p, uint32_t allocated_halves, const char* what, GpuVa code,
                       GpuFault* where) {
  if (p.register_halves <= allocated_halves) return {};
  return fail(where, code, GpuUnit::usc,
              Error::fault("{} at 0x{:x} uses {} 16-bit register halves (up to r{}) but only {} are allocated",
                           what, code, p.register_halves, (p.register_halves - 1) / 2, allocated_halves));
}

}  // namespace agx::gpu
