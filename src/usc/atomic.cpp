// Atomics on device memory (`atomic`) and threadgroup memory
// (`threadgroup_atomic`). applegpu decodes both but has no exec for them, so
// the semantics are derived (see docs/usc.md):
//  - operations: applegpu's atomic op enum (add, sub, xchg, cmpxchg, umin,
//    imin, umax, imax, and, or, xor) on 32-bit words; the old value is
//    returned in R when the row has a destination (Rt / Ra set);
//  - cmpxchg reads the register pair S: S = the value to store, S+1 = the
//    value to compare with (Mesa src/asahi/compiler agx_compile.c
//    agx_emit_atomic packs vec2(new, compare));
//  - device address = base (rounded down to 4 bytes, as device_load rounds
//    to its element size) + index * 4; the index is a signed 16-bit
//    immediate or a 32-bit register, signed unless Ou (Mesa
//    agx_nir_lower_address: atomics take no extra shift, the index counts
//    32-bit elements; agx_pack.c sets bit 25 for an unsigned index);
//  - threadgroup address = 16-bit base + index * 4 bytes, like
//    threadgroup_load of 32-bit elements.
// Lanes are applied one at a time in ascending lane order (our choice: the
// hardware guarantees only that each lane's read-modify-write is atomic),
// so lanes hitting the same word see each other's results in that order.
// Device words the memory maps on the host are updated with a host atomic
// compare-exchange, atomic against other threads running SIMD groups.
#include <atomic>
#include <bit>
#include <cstring>

#include "usc/internal.h"
#include "util/bits.h"

namespace agx::usc::detail {

namespace {

using isa::Opcode;

// applegpu.py's atomic op enum (table 16 in src/isa/table.inc).
enum class AtomicOp : uint32_t { add, sub, xchg, cmpxchg, umin, imin, umax, imax, and_, or_, xor_, count };

uint32_t apply(AtomicOp op, uint32_t old, uint32_t value, uint32_t compare) {
  int32_t so = static_cast<int32_t>(old), sv = static_cast<int32_t>(value);
  switch (op) {
    case AtomicOp::add: return old + value;
    case AtomicOp::sub: return old - value;
    case AtomicOp::xchg: return value;
    case AtomicOp::cmpxchg: return old == compare ? value : old;
    case AtomicOp::umin: return old < value ? old : value;
    case AtomicOp::imin: return static_cast<uint32_t>(so < sv ? so : sv);
    case AtomicOp::umax: return old > value ? old : value;
    case AtomicOp::imax: return static_cast<uint32_t>(so > sv ? so : sv);
    case AtomicOp::and_: return old & value;
    case AtomicOp::or_: return old | value;
    default: return old ^ value;
  }
}

// Step fields: k[0] op, k[1] 1 = unsigned register index; d = old-value
// destination (none, r16 or r32), a = base, b = index, c = source (r32, or
// the r64 pair for cmpxchg).
uint32_t lane_result(const Step& s, const Core& c, unsigned l, uint32_t old) {
  uint32_t value = c.r[s.c.index][l];
  uint32_t compare = s.c.kind == Kind::r64 ? c.r[s.c.index + 1][l] : 0;
  return apply(static_cast<AtomicOp>(s.k[0]), old, value, compare);
}

void return_old(const Step& s, Core& c, unsigned l, uint32_t old) {
  if (s.d.kind == Kind::r32 || s.d.kind == Kind::r16) set_reg(c, s.d.kind == Kind::r32, s.d.index, l, old);
}

// The returned value is like a load's: written, and pending until `wait`.
void mark_returned(const Step& s, Core& c, Ctx& ctx) {
  if (s.d.kind != Kind::r32 && s.d.kind != Kind::r16) return;
  unsigned reg = s.d.kind == Kind::r32 ? s.d.index : s.d.index >> 1u;
  c.written[reg] = true;
  ctx.pending_load_pc[reg] = s.pc + 1;
}

int64_t lane_index(const Step& s, const Core& c, unsigned l) { return memory_index(s.b, c, l, s.k[1]); }

Status exec_device_atomic(const Step& s, Core& c, Ctx& ctx) {
  GpuMemory* m = ctx.mem->device;
  alignas(64) uint64_t base[kLanes];
  read_u64(s.a, c, base);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(c.exec, l)) continue;
    if (!m) return Error::fault("pc 0x{:x}: atomic with no device memory", s.pc);
    uint64_t addr = (base[l] & ~uint64_t{3}) + static_cast<uint64_t>(lane_index(s, c, l) * 4);
    // Memory shared with other host threads (the gpu unit runs threadgroups
    // on several): one compare-exchange on the host word, so concurrent
    // SIMD groups' read-modify-writes stay atomic.
    if (uint8_t* p = m->host_pointer(addr, 4, Access::write); p && reinterpret_cast<uintptr_t>(p) % 4 == 0) {
      static_assert(std::endian::native == std::endian::little);
      std::atomic_ref<uint32_t> word(*reinterpret_cast<uint32_t*>(p));
      uint32_t old = word.load();
      while (!word.compare_exchange_weak(old, lane_result(s, c, l, old))) {
      }
      return_old(s, c, l, old);
      continue;
    }
    uint8_t bytes[4];
    GpuFault gf;
    if (!m->read(addr, bytes, 4, GpuUnit::usc, &gf)) return Error::fault("pc 0x{:x}: {}", s.pc, describe(gf));
    uint32_t old = load_le<uint32_t>(bytes);
    store_le<uint32_t>(bytes, lane_result(s, c, l, old));
    if (!m->write(addr, bytes, 4, GpuUnit::usc, &gf)) return Error::fault("pc 0x{:x}: {}", s.pc, describe(gf));
    return_old(s, c, l, old);
  }
  mark_returned(s, c, ctx);
  return {};
}

Status exec_threadgroup_atomic(const Step& s, Core& c, Ctx& ctx) {
  std::vector<uint8_t>* tg = ctx.mem->threadgroup;
  alignas(64) uint32_t base[kLanes];
  read_u32(s.a, c, base);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(c.exec, l)) continue;
    int64_t a = int64_t{base[l] & 0xFFFF} + lane_index(s, c, l) * 4;
    if (!tg || a < 0 || static_cast<uint64_t>(a) + 4 > tg->size())
      return Error::fault("pc 0x{:x}: threadgroup atomic at 0x{:x} (lane {}) outside the {} bytes of threadgroup memory",
                          s.pc, a, l, tg ? tg->size() : 0);
    uint8_t* p = tg->data() + a;
    uint32_t old = load_le<uint32_t>(p);
    store_le<uint32_t>(p, lane_result(s, c, l, old));
    return_old(s, c, l, old);
  }
  mark_returned(s, c, ctx);
  return {};
}

}  // namespace

Result<bool> compile_atomic(const isa::Instr& in, Step& s) {
  bool device = in.op == Opcode::atomic;
  if (!device && in.op != Opcode::threadgroup_atomic) return false;
  s.k[0] = static_cast<uint32_t>(operand_value(in, "op"));
  if (s.k[0] >= static_cast<uint32_t>(AtomicOp::count))
    return Error::unsupported("not supported by the emulator: atomic op {}", s.k[0]);
  s.k[1] = device ? static_cast<uint32_t>(operand_value(in, "Ou")) : 0;
  AGX_TRY(s.d, operand(in, "R"));  // kAtomicDestination / kThreadgroupMemoryReg
  AGX_TRY(s.a, operand(in, "A"));  // kMemoryBase (r64/u64) / kThreadgroupMemoryBase
  AGX_TRY(s.b, operand(in, "O"));  // kMemoryIndex / kThreadgroupIndex
  AGX_TRY(s.c, operand(in, "S"));  // kAtomicSource: r32, r64 for cmpxchg
  if (s.c.kind != Kind::r32 && s.c.kind != Kind::r64)
    return Error::decode("atomic source must be a register");
  s.run = device ? exec_device_atomic : exec_threadgroup_atomic;
  return true;
}

}  // namespace agx::usc::detail
