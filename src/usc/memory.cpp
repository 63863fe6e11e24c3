// Device, threadgroup and stack memory. device_load follows applegpu's
// DeviceLoadInstructionDesc.exec (address, alignment, mask, formats); the
// stores, threadgroup and stack accesses are derived from the same operand
// layout and Mesa's AGX backend (see docs/usc.md). The element conversions
// of every format live in formats.cpp; this file addresses the elements and
// moves them between registers and memory.
#include <bit>
#include <algorithm>
#include <cstring>

#include "usc/formats.h"
#include "usc/internal.h"
#include "util/bits.h"

namespace agx::usc::detail {

namespace {

using isa::Opcode;

// Step fields: k[0] format, k[1] mask, k[2] first data register (a half
// index when 16-bit, a register index when 32-bit), k[3] 1 = 32-bit data,
// k[4] shift, k[5] offset signedness (1 = unsigned); a = base, b = offset
// (imm or r32).

// The elements a lane moves, as a mask of memory positions: a bit-packed
// format moves its one word (position 0) whatever the mask says.
uint32_t element_mask(const Step& s) { return bit_packed(s.k[0]) ? 1u : s.k[1]; }

// Data registers the instruction reads or writes per lane.
unsigned data_registers(uint32_t f, uint32_t mask) {
  unsigned packed = packed_registers(f);
  return packed ? packed : static_cast<unsigned>(std::popcount(mask));
}

uint32_t get_reg(const Core& c, bool r32, unsigned reg, unsigned lane) {
  return r32 ? c.r[reg][lane] : c.r16(reg, lane);
}

// Moves lane l's data between its registers and memory. io(pos, bytes)
// reads (loads) or writes (stores) the memory_element_B bytes of the
// element at memory position pos. Loads read every element of the lane
// before writing a register, as applegpu's exec does.
template <bool kStore, class Io>
Status move_lane(const Step& s, Core& c, unsigned l, Io&& io) {
  uint32_t f = s.k[0];
  bool r32 = s.k[3];
  unsigned reg = s.k[2];
  uint8_t bytes[4][4] = {};
  if (unsigned n = packed_registers(f)) {
    uint32_t regs[4] = {};
    if constexpr (kStore) {
      for (unsigned k = 0; k < n; ++k) regs[k] = get_reg(c, r32, reg + k, l);
      store_le<uint32_t>(bytes[0], store_word(f, regs, r32));
      return io(0u, bytes[0]);
    } else {
      AGX_CHECK(io(0u, bytes[0]));
      load_word(f, load_le<uint32_t>(bytes[0]), r32, regs);
      for (unsigned k = 0; k < n; ++k) set_reg(c, r32, reg + k, l, regs[k]);
      return {};
    }
  }
  uint32_t mask = s.k[1];
  for (unsigned i = 0; i < 4; ++i) {
    if (!(mask >> i & 1)) continue;
    if constexpr (kStore) store_le<uint32_t>(bytes[i], store_element(f, i, get_reg(c, r32, reg++, l), r32));
    AGX_CHECK(io(i, bytes[i]));
  }
  if constexpr (!kStore)
    for (unsigned i = 0; i < 4; ++i)
      if (mask >> i & 1) set_reg(c, r32, reg++, l, load_element(f, i, load_le<uint32_t>(bytes[i]), r32));
  return {};
}

// Records the registers a load writes: written for output, pending until
// `wait` for the debug check.
void mark_pending(const Step& s, Core& c, Ctx& ctx) {
  unsigned count = data_registers(s.k[0], s.k[1]);
  if (count == 0) return;
  unsigned first = s.k[3] ? s.k[2] : s.k[2] >> 1;
  unsigned last = s.k[3] ? s.k[2] + count - 1 : (s.k[2] + count - 1) / 2;
  for (unsigned r = first; r <= last && r < kRegisters; ++r) {
    c.written[r] = true;
    ctx.pending(r, s.pc);
  }
}

Status fault(const Step& s, const GpuFault& f) {
  return Error::fault("pc 0x{:x}: {}", s.pc, describe(f));
}

// Device addresses (applegpu's exec): the base is rounded down to the
// element's alignment, the offset (signed 16-bit immediate, or r32 signed
// unless Ou) is shifted left by s (3 acts as 2) and counts elements. A
// bit-packed format reads the aligned word at base + offset * 4 (applegpu:
// item size 1, shift forced to 2, base rounded down to 4).
void device_addresses(const Step& s, const Core& c, uint64_t base[kLanes], int64_t index[kLanes]) {
  read_u64(s.a, c, base);
  uint32_t f = s.k[0];
  uint64_t align = memory_element_B(f);
  unsigned sh = bit_packed(f) ? 0 : index_shift(s.k[4]);
  for (unsigned l = 0; l < kLanes; ++l) {
    int64_t off = memory_index(s.b, c, l, s.k[5]);
    index[l] = off * (int64_t{1} << sh);
    base[l] &= ~(align - 1);
  }
}

// Fast path: when every element the active lanes touch lies in one span the
// memory maps contiguously on the host, one host_pointer lookup serves the
// whole instruction. Returns the host address of `lo`, or nullptr.
uint8_t* span_pointer(GpuMemory* m, const Core& c, const uint64_t base[kLanes], const int64_t index[kLanes],
                      uint32_t mask, unsigned size, Access access, uint64_t& lo) {
  if (!m || c.exec == 0 || mask == 0) return nullptr;
  unsigned first = std::countr_zero(mask), last = 31 - std::countl_zero(mask);
  uint64_t hi = 0;
  lo = UINT64_MAX;
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(c.exec, l)) continue;
    uint64_t a0 = base[l] + static_cast<uint64_t>((index[l] + first) * int64_t(size));
    uint64_t a1 = base[l] + static_cast<uint64_t>((index[l] + last) * int64_t(size)) + size;
    if (a1 < a0) return nullptr;  // wraps
    lo = std::min(lo, a0);
    hi = std::max(hi, a1);
  }
  if (hi - lo > (uint64_t{1} << 20)) return nullptr;
  return m->host_pointer(lo, hi - lo, access);
}

// The common case, a raw format (i8, i16, i32, f16) whose elements all lie
// in one host span: plain copies, no conversion and no fault possible.
template <bool kStore>
void copy_raw_span(const Step& s, Core& c, uint8_t* host, uint64_t lo, const uint64_t base[kLanes],
                   const int64_t index[kLanes]) {
  unsigned size = memory_element_B(s.k[0]);
  bool r32 = s.k[3];
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(c.exec, l)) continue;
    unsigned reg = s.k[2];
    for (unsigned i = 0; i < 4; ++i) {
      if (!(s.k[1] >> i & 1)) continue;
      uint8_t* p = host + (base[l] + static_cast<uint64_t>((index[l] + i) * int64_t(size)) - lo);
      uint8_t bytes[4] = {};
      if constexpr (kStore) {
        store_le<uint32_t>(bytes, get_reg(c, r32, reg++, l));
        std::memcpy(p, bytes, size);
      } else {
        std::memcpy(bytes, p, size);
        set_reg(c, r32, reg++, l, load_le<uint32_t>(bytes));
      }
    }
  }
}

// The SIMD-group fast path for the raw formats (i8, i16, i32, f16): the
// addresses of all active lanes are computed first (so loads into the base
// or index registers cannot change them), the span they cover is translated
// once with host_pointer, and each element moves with a fixed-size copy per
// lane, or one block copy when the lanes are contiguous. Returns false (and
// has touched nothing) when the span is not one host range, so the caller
// falls back to per-lane reads and writes with their faults.
template <bool kStore, typename T>
void move_lanes(Core& c, bool r32, unsigned reg, uint8_t* at, const uint64_t a[kLanes], uint32_t e) {
  if (r32) {
    uint32_t* r = c.r[reg].data();
    if (sizeof(T) == 4 && e == 0xFFFFFFFFu) {
      bool contiguous = true;
      for (unsigned l = 0; l < kLanes; ++l) contiguous &= a[l] == a[0] + 4 * l;
      if (contiguous) {  // the common case: lane l at element index + l
        if constexpr (kStore) copy_lanes(at + a[0], r);
        else copy_lanes(r, at + a[0]);
        return;
      }
    }
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!lane_on(e, l)) continue;
      if constexpr (kStore) store_le<T>(at + a[l], static_cast<T>(r[l]));
      else r[l] = load_le<T>(at + a[l]);
    }
    return;
  }
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(e, l)) continue;
    if constexpr (kStore) store_le<T>(at + a[l], static_cast<T>(c.r16(reg, l)));
    else set_reg(c, false, reg, l, load_le<T>(at + a[l]));
  }
}

// The commonest access of all: every lane present and active, one element
// of a raw format into a 32-bit register, a uniform 64-bit base and a
// 32-bit register index (shift 0) that counts up by one from lane to lane
// (thread_position_in_grid indexing). The 32 elements are then one block
// of 32 * size bytes at (base rounded down to size) + index0 * size, moved
// with one translation and one copy (zero-extended on load, truncated on
// store, as move_lanes). False when the access is not of this shape (the
// caller takes the general paths); true when it was done.
template <bool kStore, typename T>
[[gnu::always_inline]] inline bool device_block(Core& c, unsigned reg, uint64_t base, const uint32_t* idx, bool is_unsigned, GpuMemory* m) {
  uint32_t steps = 0;
  for (unsigned l = 0; l < kLanes; ++l) steps |= idx[l] ^ (idx[0] + l);  // vectorizes
  if (steps) return false;
  // The lanes' indices must not wrap around 32 bits (signed or unsigned).
  const int64_t first = is_unsigned ? int64_t{idx[0]} : int64_t{static_cast<int32_t>(idx[0])};
  if (first + (kLanes - 1) > (is_unsigned ? int64_t{UINT32_MAX} : int64_t{INT32_MAX})) return false;
  const uint64_t at = (base & ~uint64_t{sizeof(T) - 1}) + static_cast<uint64_t>(first * int64_t{sizeof(T)});
  if (at > UINT64_MAX - kLanes * sizeof(T)) return false;
  uint8_t* host = m->host_pointer(at, kLanes * sizeof(T), kStore ? Access::write : Access::read);
  if (!host) return false;
  uint32_t* r = c.r[reg].data();
  if constexpr (sizeof(T) == 4) {
    if constexpr (kStore) copy_lanes(host, r);
    else copy_lanes(r, host);
  } else {
    T v[kLanes];
    if constexpr (kStore) {
      for (unsigned l = 0; l < kLanes; ++l) v[l] = static_cast<T>(r[l]);
      std::memcpy(host, v, sizeof(v));
    } else {
      std::memcpy(v, host, sizeof(v));
      for (unsigned l = 0; l < kLanes; ++l) r[l] = v[l];
    }
  }
  return true;
}

// Whether a decoded device access has the block path's static shape: one
// element (mask 1) of a raw format into a 32-bit register, a uniform base
// and a 32-bit register index with shift 0. Only exec and the index values
// are then left to check when it runs.
bool block_shape(const Step& s) {
  return s.k[0] <= uint32_t(MemFormat::f16) && s.k[1] == 1 && s.k[3] && s.a.kind == Kind::u64 &&
         s.b.kind == Kind::r32 && index_shift(s.k[4]) == 0;
}

template <bool kStore>
bool device_fast(const Step& s, Core& c, GpuMemory* m) {
  const uint32_t f = s.k[0], e = c.exec, mask = s.k[1];
  if (!m || f > uint32_t(MemFormat::f16) || e == 0 || mask == 0) return false;
  if (e == 0xFFFFFFFFu && block_shape(s)) {
    const uint64_t b = c.u[s.a.index] | uint64_t{c.u[s.a.index + 1]} << 32;
    const uint32_t* idx = c.r[s.b.index].data();
    bool done = false;
    switch (memory_element_B(f)) {
      case 1: done = device_block<kStore, uint8_t>(c, s.k[2], b, idx, s.k[5], m); break;
      case 2: done = device_block<kStore, uint16_t>(c, s.k[2], b, idx, s.k[5], m); break;
      default: done = device_block<kStore, uint32_t>(c, s.k[2], b, idx, s.k[5], m); break;
    }
    if (done) return true;
  }
  const unsigned size = memory_element_B(f), sh = index_shift(s.k[4]);
  alignas(64) uint64_t base[kLanes], a[kLanes];
  if (s.a.kind == Kind::u64) {  // a uniform base, the common case
    uint64_t b = c.u[s.a.index] | uint64_t{c.u[s.a.index + 1]} << 32;
    for (unsigned l = 0; l < kLanes; ++l) base[l] = b;
  } else {
    read_u64(s.a, c, base);
  }
  alignas(64) int64_t idx[kLanes];
  if (s.b.kind == Kind::r32) {
    const uint32_t* v = c.r[s.b.index].data();
    if (s.k[5]) for (unsigned l = 0; l < kLanes; ++l) idx[l] = int64_t{v[l]};
    else for (unsigned l = 0; l < kLanes; ++l) idx[l] = int64_t{static_cast<int32_t>(v[l])};
  } else {
    for (unsigned l = 0; l < kLanes; ++l) idx[l] = memory_index(s.b, c, l, s.k[5]);
  }
  // Element 0 of each lane (device_addresses' rule): base rounded down to
  // the element size, plus (index << s) elements.
  const uint64_t align = ~uint64_t{size - 1};
  for (unsigned l = 0; l < kLanes; ++l)
    a[l] = (base[l] & align) + static_cast<uint64_t>(idx[l] * (int64_t{1} << sh) * int64_t(size));
  uint64_t lo = UINT64_MAX, hi = 0;
  if (e == 0xFFFFFFFFu) {
    for (unsigned l = 0; l < kLanes; ++l) {
      lo = std::min(lo, a[l]);
      hi = std::max(hi, a[l]);
    }
  } else {
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!lane_on(e, l)) continue;
      lo = std::min(lo, a[l]);
      hi = std::max(hi, a[l]);
    }
  }
  const unsigned first = std::countr_zero(mask), last = 31 - std::countl_zero(mask);
  const uint64_t span_lo = lo + first * size, span_hi = hi + (last + 1) * size;
  if (hi > UINT64_MAX - 64 || span_hi - span_lo > (uint64_t{1} << 20)) return false;
  uint8_t* host = m->host_pointer(span_lo, span_hi - span_lo, kStore ? Access::write : Access::read);
  if (!host) return false;
  const bool r32 = s.k[3];
  unsigned reg = s.k[2];
  if (kStore && std::popcount(mask) > 1) {
    // Several elements per lane: lane by lane, as the per-lane path, so
    // lanes whose elements overlap leave the same bytes.
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!lane_on(e, l)) continue;
      unsigned r = reg;
      for (unsigned i = 0; i < 4; ++i) {
        if (!(mask >> i & 1)) continue;
        uint8_t* p = host + ((a[l] + i * size) - span_lo);  // element i of lane l (>= span_lo)
        uint32_t v = get_reg(c, r32, r++, l);
        if (size == 1) store_le<uint8_t>(p, static_cast<uint8_t>(v));
        else if (size == 2) store_le<uint16_t>(p, static_cast<uint16_t>(v));
        else store_le<uint32_t>(p, v);
      }
    }
    return true;
  }
  for (unsigned i = 0; i < 4; ++i) {
    if (!(mask >> i & 1)) continue;
    // at + a[l] is element i of lane l in host memory.
    uint8_t* at = host - span_lo + i * size;
    switch (size) {
      case 1: move_lanes<kStore, uint8_t>(c, r32, reg, at, a, e); break;
      case 2: move_lanes<kStore, uint16_t>(c, r32, reg, at, a, e); break;
      default: move_lanes<kStore, uint32_t>(c, r32, reg, at, a, e); break;
    }
    ++reg;
  }
  return true;
}

template <bool kStore>
Status exec_device(const Step& s, Core& c, Ctx& ctx) {
  GpuMemory* m = ctx.mem->device;
  if (device_fast<kStore>(s, c, m)) {
    if constexpr (!kStore) mark_pending(s, c, ctx);
    return {};
  }
  unsigned size = memory_element_B(s.k[0]);
  alignas(64) uint64_t base[kLanes];
  alignas(64) int64_t index[kLanes];
  device_addresses(s, c, base, index);
  uint64_t lo = 0;
  uint8_t* host = span_pointer(m, c, base, index, element_mask(s), size, kStore ? Access::write : Access::read, lo);
  if (host && s.k[0] <= uint32_t(MemFormat::f16)) {
    copy_raw_span<kStore>(s, c, host, lo, base, index);
    if constexpr (!kStore) mark_pending(s, c, ctx);
    return {};
  }
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(c.exec, l)) continue;
    auto io = [&](unsigned pos, uint8_t* bytes) -> Status {
      uint64_t a = base[l] + static_cast<uint64_t>((index[l] + pos) * int64_t(size));
      GpuFault gf;
      if (host) {
        if constexpr (kStore) std::memcpy(host + (a - lo), bytes, size);
        else std::memcpy(bytes, host + (a - lo), size);
        return {};
      }
      if (!m) return Error::fault("pc 0x{:x}: {} with no device memory", s.pc, kStore ? "device_store" : "device_load");
      bool ok = kStore ? m->write(a, bytes, size, GpuUnit::usc, &gf) : m->read(a, bytes, size, GpuUnit::usc, &gf);
      if (!ok) return fault(s, gf);
      return {};
    };
    AGX_CHECK(move_lane<kStore>(s, c, l, io));
  }
  if constexpr (!kStore) mark_pending(s, c, ctx);
  return {};
}

// The handler compile_memory gives a step of block_shape: the block path
// with its static checks done at decode, else the general exec_device.
template <bool kStore, typename T>
Status exec_device_block(const Step& s, Core& c, Ctx& ctx) {
  if (c.exec == 0xFFFFFFFFu && ctx.mem->device) {
    const uint64_t b = c.u[s.a.index] | uint64_t{c.u[s.a.index + 1]} << 32;
    if (device_block<kStore, T>(c, s.k[2], b, c.r[s.b.index].data(), s.k[5], ctx.mem->device)) {
      if constexpr (!kStore) {
        c.written[s.k[2]] = true;
        ctx.pending(s.k[2], s.pc);
      }
      return {};
    }
  }
  return exec_device<kStore>(s, c, ctx);
}

template <bool kStore>
Step::Handler device_handler(const Step& s) {
  if (!block_shape(s)) return exec_device<kStore>;
  switch (memory_element_B(s.k[0])) {
    case 1: return exec_device_block<kStore, uint8_t>;
    case 2: return exec_device_block<kStore, uint16_t>;
    default: return exec_device_block<kStore, uint32_t>;
  }
}

// Threadgroup memory (derived from Mesa's local_load/local_store): byte
// address = base (16-bit) + (index + position) * element size, per lane; a
// bit-packed format moves the word at base + index * 4.
template <bool kStore>
Status exec_threadgroup(const Step& s, Core& c, Ctx& ctx) {
  std::vector<uint8_t>* tg = ctx.mem->threadgroup;
  unsigned size = memory_element_B(s.k[0]);
  alignas(64) uint32_t base[kLanes], index[kLanes];
  read_u32(s.a, c, base);
  read_u32(s.b, c, index);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(c.exec, l)) continue;
    int64_t idx = s.b.kind == Kind::imm ? sign_extend(s.b.imm, 16) : int64_t{index[l] & 0xFFFF};
    auto io = [&](unsigned pos, uint8_t* bytes) -> Status {
      int64_t a = int64_t{base[l] & 0xFFFF} + (idx + pos) * int64_t(size);
      if (!tg || a < 0 || static_cast<uint64_t>(a) + size > tg->size())
        return Error::fault("pc 0x{:x}: threadgroup {} of 0x{:x} (lane {}) outside the {} bytes of threadgroup memory",
                            s.pc, kStore ? "write" : "read", a, l, tg ? tg->size() : 0);
      if constexpr (kStore) std::memcpy(tg->data() + a, bytes, size);
      else std::memcpy(bytes, tg->data() + a, size);
      return {};
    };
    AGX_CHECK(move_lane<kStore>(s, c, l, io));
  }
  if constexpr (!kStore) mark_pending(s, c, ctx);
  return {};
}

// Stack (scratch) memory (derived from Mesa's use of stack_load/stack_store
// for spills): byte offset = O (signed immediate or 32-bit register) +
// position * element size within the lane's own scratch area; a bit-packed
// format moves the word at O.
template <bool kStore>
Status exec_stack(const Step& s, Core& c, Ctx& ctx) {
  // After a stack_adjust only its frame is addressable; without one, all of
  // the scratch the dispatch gave.
  uint32_t per_lane = c.stack_frame_B ? c.stack_frame_B : ctx.mem->stack_size_B;
  uint32_t area_B = ctx.mem->stack_size_B;
  if (c.stack.size() != size_t{area_B} * kLanes) c.stack.assign(size_t{area_B} * kLanes, 0);
  unsigned size = memory_element_B(s.k[0]);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(c.exec, l)) continue;
    int64_t off = memory_index(s.b, c, l, false);
    auto io = [&](unsigned pos, uint8_t* bytes) -> Status {
      int64_t a = off + int64_t{pos} * size;
      if (a < 0 || a + size > per_lane)
        return Error::fault("pc 0x{:x}: stack {} of offset {} (lane {}) outside the {} bytes of {}", s.pc,
                            kStore ? "write" : "read", a, l, per_lane,
                            c.stack_frame_B ? "the frame stack_adjust allocated" : "scratch per thread");
      uint8_t* p = c.stack.data() + size_t{l} * area_B + a;
      if constexpr (kStore) std::memcpy(p, bytes, size);
      else std::memcpy(bytes, p, size);
      return {};
    };
    AGX_CHECK(move_lane<kStore>(s, c, l, io));
  }
  if constexpr (!kStore) mark_pending(s, c, ctx);
  return {};
}

// Mesa's stack_adjust (bminor/mesa-mesa src/asahi/compiler: agx_opcodes.py
// row stack_adjust with a signed 16-bit STACK_SIZE immediate; agx_compile.c
// emits it at the entry of a kernel with scratch, STACK_SIZE = the scratch
// in 32-bit words, plus 10, aligned to 4; agx_pack.c packs it into the bits
// applegpu's TODO.stack_adjust row calls `v`). It grows (or, negative,
// shrinks) the thread's stack frame by STACK_SIZE * 4 bytes. Step: offset =
// the signed change in bytes.
Status exec_stack_adjust(const Step& s, Core& c, Ctx& ctx) {
  int64_t frame = int64_t{c.stack_frame_B} + s.offset;
  if (frame < 0)
    return Error::fault("pc 0x{:x}: stack_adjust by {} bytes frees more than the {} bytes allocated", s.pc, s.offset,
                        c.stack_frame_B);
  if (frame > ctx.mem->stack_size_B)
    return Error::fault("pc 0x{:x}: stack_adjust to a frame of {} bytes exceeds the {} bytes of scratch per thread",
                        s.pc, frame, ctx.mem->stack_size_B);
  c.stack_frame_B = static_cast<uint32_t>(frame);
  return {};
}

Status exec_memory_nop(const Step&, Core&, Ctx&) { return {}; }

// The coherent forms Mesa's compiler emits (agx_pack.c: u1 = 1, u3 = 0,
// u4 = 7 at bit 44 when `coherent`, u5 = 0; agx_nir lowers atomic-counter
// and coherent buffer reads to them), which applegpu decodes as its
// device_load.TODO / device_store.TODO rows. They bypass the caches that are
// not coherent; the emulator's device memory is one coherent store, so they
// are device_load / device_store. Other values of those bits have no
// public meaning and stay unsupported.
Result<bool> coherent_form(const isa::Instr& in) {
  AGX_TRY(uint32_t u1, field(in, "u1"));
  AGX_TRY(uint32_t u3, field(in, "u3"));
  AGX_TRY(uint32_t u4, field(in, "u4"));
  AGX_TRY(uint32_t u5, field(in, "u5"));
  // device_store.TODO's u4 is the two bits above bit 44 (u6 is bit 44).
  uint32_t coherent_u4 = in.op == isa::Opcode::device_load_todo ? 7u : 3u;
  if (u1 == 1 && u3 == 0 && u4 == coherent_u4 && u5 == 0) return true;
  return Error::unsupported("not supported by the emulator: {} with u1={} u3={} u4={} u5={} (only Mesa's coherent "
                            "form, u1=1 u3=0 u4={} u5=0, has a known meaning)",
                            isa::op_info(in.op).mnemonic, u1, u3, u4, u5, coherent_u4);
}

// Format, mask and data registers into k[0..3]. Like applegpu's exec, the
// first data register comes from the raw R and Rt fields: the register
// count follows the format (a bit-packed format uses 4 or 3 registers
// whatever the mask), not the popcount(mask) tuple the disassembly shows.
Status data_operands(const isa::Instr& in, Step& s) {
  AGX_TRY(int64_t format, operand_value(in, "F"));
  uint32_t f = static_cast<uint32_t>(format);
  if (!memory_format_defined(f))
    return Error::decode("undefined memory format {} (applegpu's MEMORY_FORMATS defines 0-8, 10 and 12-15)", f);
  s.k[0] = f;
  AGX_TRY(int64_t mask, operand_value(in, "mask"));
  AGX_TRY(uint32_t rt, field(in, "Rt"));
  AGX_TRY(uint32_t r, field(in, "R"));
  s.k[1] = static_cast<uint32_t>(mask);
  s.k[3] = rt != 0;
  s.k[2] = s.k[3] ? r >> 1 : r;
  unsigned count = data_registers(f, s.k[1]);
  if (!s.k[3] && f == uint32_t(MemFormat::i32) && count)
    return Error::decode("i32 data in 16-bit registers is an illegal instruction");
  unsigned last = s.k[3] ? s.k[2] + count - 1 : (s.k[2] + count - 1) / 2;
  if (count && last >= kRegisters)
    return Error::decode("{} data registers from {}{} run past r{}", memory_format_name(f), s.k[3] ? "r" : "half ",
                         s.k[2], kRegisters - 1);
  return {};
}

// applegpu's exec runs device_load per active lane (MaskedInstructionDesc),
// so an instruction it cannot run (undefined format with a non-empty mask,
// data registers past r127, i32 data in 16-bit registers) fails only when a
// lane is active; with none it does nothing. The reason is worked out again
// from the instruction.
Status exec_device_load_refused(const Step& s, Core& c, Ctx& ctx) {
  if (c.exec == 0) return {};
  const isa::Instr& in = ctx.program->instr(static_cast<size_t>(ctx.program->index_of(s.pc)));
  Step scratch;
  Status why = data_operands(in, scratch);
  if (why) why = Error::decode("i32 data in 16-bit registers is an illegal instruction");  // the empty mask
  return Error::unsupported("pc 0x{:x}: device_load: {}", s.pc, why.error().message());
}

// applegpu's bit_packed set (F in 8, 12, 13): they load their word whatever
// the mask. The .rtz forms (14, 15) are per-element formats there, so an
// empty mask loads nothing for them.
bool applegpu_bit_packed(int64_t f) {
  return f == int64_t(MemFormat::rgb10a2) || f == int64_t(MemFormat::rg11b10f) || f == int64_t(MemFormat::rgb9e5);
}

}  // namespace

Result<bool> compile_memory(const isa::Instr& in, Step& s) {
  switch (in.op) {
    case Opcode::device_load_todo:
    case Opcode::device_store_todo:
      AGX_CHECK(coherent_form(in));
      [[fallthrough]];
    case Opcode::device_load:
    case Opcode::device_store: {
      bool load = in.op == Opcode::device_load || in.op == Opcode::device_load_todo;
      AGX_TRY(int64_t mask, operand_value(in, "mask"));
      AGX_TRY(int64_t format, operand_value(in, "F"));
      if (load && mask == 0 && !applegpu_bit_packed(format)) {
        // applegpu's exec: an empty component mask loads nothing (only the
        // bit-packed formats, which ignore the mask, still load their
        // word), so an undefined format, the registers and the addresses
        // are never looked at; only i32 into 16-bit registers is checked
        // first (illegal whenever a lane runs it).
        AGX_TRY(uint32_t rt, field(in, "Rt"));
        s.run = format == int64_t(MemFormat::i32) && rt == 0 ? exec_device_load_refused : exec_memory_nop;
        return true;
      }
      if (Status st = data_operands(in, s); !st) {
        if (!load) return std::move(st).error();
        s.run = exec_device_load_refused;
        return true;
      }
      AGX_TRY(int64_t shift, operand_value(in, "s"));
      AGX_TRY(int64_t ou, operand_value(in, "Ou"));
      s.k[4] = static_cast<uint32_t>(shift);
      s.k[5] = static_cast<uint32_t>(ou);
      AGX_TRY(s.a, operand(in, "A"));  // kMemoryBase: r64 or u64 pair
      AGX_TRY(s.b, operand(in, "O"));  // signed 16-bit immediate or r32
      s.run = load ? device_handler<false>(s) : device_handler<true>(s);
      return true;
    }
    case Opcode::threadgroup_load:
    case Opcode::threadgroup_store: {
      AGX_CHECK(data_operands(in, s));
      // kThreadgroupMemoryBase: r16, u16 or 0; kThreadgroupIndex: signed
      // 16-bit immediate or r16.
      AGX_TRY(s.a, operand(in, "A"));
      AGX_TRY(s.b, operand(in, "O"));
      s.run = in.op == Opcode::threadgroup_load ? exec_threadgroup<false> : exec_threadgroup<true>;
      return true;
    }
    case Opcode::stack_load:
    case Opcode::stack_store: {
      if (in.op == Opcode::stack_store &&
          isa::matches_row(Opcode::todo_stack_adjust, std::span(in.bytes.data(), in.length_B))) {
        // Mesa's stack_adjust: applegpu decodes it as this stack_store (with
        // an empty mask) and so does the disassembly; its STACK_SIZE lies in
        // the bits of stack_store's O field (table.inc: TODO.stack_adjust's
        // `v` and stack_store's `O` have the same three parts).
        AGX_TRY(uint32_t v, field(in, "O"));
        s.offset = sign_extend(v, 16) * 4;
        s.run = exec_stack_adjust;
        return true;
      }
      AGX_CHECK(data_operands(in, s));
      AGX_TRY(s.b, operand(in, "O"));
      s.run = in.op == Opcode::stack_load ? exec_stack<false> : exec_stack<true>;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace agx::usc::detail
