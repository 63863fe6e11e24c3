// Device, threadgroup and stack memory. device_load follows applegpu's
// DeviceLoadInstructionDesc.exec (address, alignment, mask, formats); the
// stores, threadgroup and stack accesses are derived from the same operand
// layout and Mesa's AGX backend (see docs/usc.md).
#include <bit>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "usc/internal.h"
#include "util/bits.h"
#include "util/half.h"

namespace agx::usc::detail {

namespace {

using isa::Opcode;

// MEMORY_FORMATS of applegpu.py: element size in bytes by format code.
unsigned item_size_B(uint32_t f) {
  switch (f) {
    case 1: case 3: case 6: case 7: return 2;
    case 2: return 4;
    default: return 1;
  }
}
bool bit_packed(uint32_t f) { return f == 8 || f == 12 || f == 13; }

// Step fields: k[0] format, k[1] mask, k[2] first data register (a half
// index when 16-bit, a register index when 32-bit), k[3] 1 = 32-bit data,
// k[4] shift, k[5] offset signedness (1 = unsigned); a = base, b = offset
// (imm or r32). All come from the isa unit's decoded operands.

void addresses(const Step& s, const Core& c, uint64_t out[kLanes], int64_t offset_out[kLanes]) {
  uint64_t base[kLanes];
  read_u64(s.a, c, base);
  for (unsigned l = 0; l < kLanes; ++l) {
    int64_t off;
    if (s.b.kind == Kind::imm) off = sign_extend(s.b.imm, 16);
    else off = s.k[5] ? int64_t{c.r[s.b.index][l]} : int64_t{static_cast<int32_t>(c.r[s.b.index][l])};
    unsigned sh = s.k[4] == 3 ? 2 : s.k[4];
    if (bit_packed(s.k[0])) sh = 2;
    offset_out[l] = off * (int64_t{1} << sh);
    out[l] = base[l] & ~uint64_t{item_size_B(s.k[0]) - 1};
  }
}

double decode_float_bits(uint32_t v, unsigned mant_bits) {
  // rg11b10f components: 5-bit exponent (bias 15), no sign.
  uint32_t e = (v >> mant_bits) & 0x1F, m = v & ((1u << mant_bits) - 1);
  if (e == 0x1F) return m ? std::nan("") : HUGE_VAL;
  double frac = e == 0 ? m / double(1u << mant_bits) : 1.0 + m / double(1u << mant_bits);
  return std::ldexp(frac, (e == 0 ? 1 : int(e)) - 15);
}

// Converts one loaded element to register bits (applegpu load conversions).
// Returns false when component n is not written (packed formats' 4th).
bool convert_loaded(uint32_t f, unsigned n, uint32_t value, uint32_t packed, bool r32, uint32_t& out) {
  double real;
  switch (f) {
    case 0: case 1: case 2: case 3: out = value; return true;
    case 4: real = value / 255.0; break;
    case 5: { int64_t v = sign_extend(value, 8); real = (v < -127 ? -127 : v) / 127.0; break; }
    case 6: real = value / 65535.0; break;
    case 7: { int64_t v = sign_extend(value, 16); real = (v < -32767 ? -32767 : v) / 32767.0; break; }
    case 8:
      real = n < 3 ? ((packed >> (10 * n)) & 1023) / 1023.0 : ((packed >> 30) & 3) / 3.0;
      break;
    case 12:
      if (n == 3) return false;
      real = n < 2 ? decode_float_bits((packed >> (11 * n)) & 0x7FF, 6)
                   : decode_float_bits((packed >> 22) & 0x3FF, 5);
      break;
    case 13: {
      if (n == 3) return false;
      int e = static_cast<int>(packed >> 27) - 15;
      real = std::ldexp(double((packed >> (9 * n)) & 0x1FF) / 512.0, e);
      break;
    }
    default: return false;
  }
  // applegpu packs the real with Python's struct: round to nearest even.
  if (std::isnan(real)) out = r32 ? 0x7FC00000u : 0x7E00u;
  else out = r32 ? std::bit_cast<uint32_t>(static_cast<float>(real)) : double_to_half(real);
  return true;
}

Status fault(const Step& s, const GpuFault& f) {
  return Error::fault("pc 0x{:x}: {}", s.pc, describe(f));
}

// Records the registers a load writes: written for output, pending until
// `wait` for the debug check.
void mark_pending(const Step& s, Core& c, Ctx& ctx, unsigned count) {
  if (count == 0) return;
  unsigned first = s.k[3] ? s.k[2] : s.k[2] >> 1;
  unsigned last = s.k[3] ? s.k[2] + count - 1 : (s.k[2] + count - 1) / 2;
  for (unsigned r = first; r <= last && r < kRegisters; ++r) {
    c.written[r] = true;
    ctx.pending_load_pc[r] = s.pc + 1;
  }
}

uint32_t get_reg(const Core& c, bool r32, unsigned reg, unsigned lane) {
  return r32 ? c.r[reg][lane] : c.r16(reg, lane);
}

// Fast path: when every element the active lanes touch lies in one span the
// memory maps contiguously on the host, one host_pointer lookup serves the
// whole instruction. Returns the host address of `lo`, or nullptr.
uint8_t* span_pointer(GpuMemory* m, const Core& c, const uint64_t base[kLanes], const int64_t off[kLanes],
                      uint32_t mask, unsigned size, Access access, uint64_t& lo) {
  if (!m || c.exec == 0 || mask == 0) return nullptr;
  unsigned first = std::countr_zero(mask), last = 31 - std::countl_zero(mask);
  uint64_t hi = 0;
  lo = UINT64_MAX;
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(c.exec, l)) continue;
    uint64_t a0 = base[l] + static_cast<uint64_t>((off[l] + first) * int64_t(size));
    uint64_t a1 = base[l] + static_cast<uint64_t>((off[l] + last) * int64_t(size)) + size;
    if (a1 < a0) return nullptr;  // wraps
    lo = std::min(lo, a0);
    hi = std::max(hi, a1);
  }
  if (hi - lo > (uint64_t{1} << 20)) return nullptr;
  return m->host_pointer(lo, hi - lo, access);
}

Status exec_device_load(const Step& s, Core& c, Ctx& ctx) {
  GpuMemory* m = ctx.mem->device;
  uint32_t f = s.k[0];
  bool r32 = s.k[3];
  unsigned size = item_size_B(f);
  uint32_t mask = bit_packed(f) ? 0xF : s.k[1];
  uint64_t base[kLanes];
  int64_t off[kLanes];
  addresses(s, c, base, off);
  if (bit_packed(f))
    for (unsigned l = 0; l < kLanes; ++l) base[l] &= ~uint64_t{3};
  uint64_t lo = 0;
  const uint8_t* host = span_pointer(m, c, base, off, mask, size, Access::read, lo);
  unsigned written = 0;
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(c.exec, l)) continue;
    uint64_t addr = base[l];
    uint32_t vals[4] = {}, packed = 0;
    for (unsigned i = 0; i < 4; ++i) {
      if (!(mask >> i & 1)) continue;
      uint64_t a = addr + static_cast<uint64_t>((off[l] + i) * int64_t(size));
      uint8_t bytes[4] = {};
      GpuFault gf;
      if (host) std::memcpy(bytes, host + (a - lo), size);
      else if (!m) return Error::fault("pc 0x{:x}: device_load with no device memory", s.pc);
      else if (!m->read(a, bytes, size, GpuUnit::usc, &gf)) return fault(s, gf);
      vals[i] = load_le<uint32_t>(bytes) & static_cast<uint32_t>(low_mask(size * 8));
      packed |= (vals[i] & 0xFF) << (8 * i);
    }
    unsigned reg = s.k[2];
    for (unsigned i = 0; i < 4; ++i) {
      if (!(mask >> i & 1)) continue;
      uint32_t out;
      if (!convert_loaded(f, i, vals[i], packed, r32, out)) continue;
      set_reg(c, r32, reg++, l, out);
    }
    written = reg - s.k[2];
  }
  mark_pending(s, c, ctx, written ? written : std::popcount(mask));
  return {};
}

// Packs a register value into a stored element (derived: the inverse of the
// load conversions, rounding to nearest).
uint32_t pack_store(uint32_t f, uint32_t reg, bool r32) {
  if (f <= 3) return reg;
  double x = r32 ? double(std::bit_cast<float>(reg)) : half_to_double(static_cast<uint16_t>(reg));
  if (std::isnan(x)) x = 0;
  switch (f) {
    case 4: return static_cast<uint32_t>(std::nearbyint(std::fmin(std::fmax(x, 0.0), 1.0) * 255));
    case 5: return static_cast<uint32_t>(static_cast<int32_t>(std::nearbyint(std::fmin(std::fmax(x, -1.0), 1.0) * 127))) & 0xFF;
    case 6: return static_cast<uint32_t>(std::nearbyint(std::fmin(std::fmax(x, 0.0), 1.0) * 65535));
    default: return static_cast<uint32_t>(static_cast<int32_t>(std::nearbyint(std::fmin(std::fmax(x, -1.0), 1.0) * 32767))) & 0xFFFF;
  }
}

Status exec_device_store(const Step& s, Core& c, Ctx& ctx) {
  GpuMemory* m = ctx.mem->device;
  uint32_t f = s.k[0];
  bool r32 = s.k[3];
  unsigned size = item_size_B(f);
  uint64_t base[kLanes];
  int64_t off[kLanes];
  addresses(s, c, base, off);
  uint64_t lo = 0;
  uint8_t* host = span_pointer(m, c, base, off, s.k[1], size, Access::write, lo);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(c.exec, l)) continue;
    unsigned reg = s.k[2];
    for (unsigned i = 0; i < 4; ++i) {
      if (!(s.k[1] >> i & 1)) continue;
      uint64_t a = base[l] + static_cast<uint64_t>((off[l] + i) * int64_t(size));
      uint8_t bytes[4];
      store_le<uint32_t>(bytes, pack_store(f, get_reg(c, r32, reg++, l), r32));
      GpuFault gf;
      if (host) std::memcpy(host + (a - lo), bytes, size);
      else if (!m) return Error::fault("pc 0x{:x}: device_store with no device memory", s.pc);
      else if (!m->write(a, bytes, size, GpuUnit::usc, &gf)) return fault(s, gf);
    }
  }
  return {};
}

// Moves component i of lane l between a host pointer `p` (`size` bytes of
// format f) and data register `reg` (advanced when a register is used):
// the element step shared by threadgroup and stack memory.
template <bool kStore>
void move_component(Core& c, uint8_t* p, uint32_t f, unsigned size, unsigned i, bool r32,
                    unsigned& reg, unsigned l) {
  if constexpr (kStore) {
    uint8_t bytes[4];
    store_le<uint32_t>(bytes, pack_store(f, get_reg(c, r32, reg++, l), r32));
    std::memcpy(p, bytes, size);
  } else {
    uint8_t bytes[4] = {};
    std::memcpy(bytes, p, size);
    uint32_t out;
    if (convert_loaded(f, i, load_le<uint32_t>(bytes), 0, r32, out)) set_reg(c, r32, reg++, l, out);
  }
}

// Threadgroup memory (derived from Mesa's local_load/local_store): byte
// address = base (16-bit) + (index + i) * element size, per lane.
template <bool kStore>
Status exec_threadgroup(const Step& s, Core& c, Ctx& ctx) {
  std::vector<uint8_t>* tg = ctx.mem->threadgroup;
  uint32_t f = s.k[0];
  bool r32 = s.k[3];
  unsigned size = item_size_B(f);
  uint32_t base[kLanes], index[kLanes];
  read_u32(s.a, c, base);
  read_u32(s.b, c, index);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(c.exec, l)) continue;
    unsigned reg = s.k[2];
    int64_t idx = s.b.kind == Kind::imm ? sign_extend(s.b.imm, 16) : int64_t{index[l] & 0xFFFF};
    for (unsigned i = 0; i < 4; ++i) {
      if (!(s.k[1] >> i & 1)) continue;
      int64_t a = int64_t{base[l] & 0xFFFF} + (idx + i) * int64_t(size);
      if (!tg || a < 0 || static_cast<uint64_t>(a) + size > tg->size())
        return Error::fault("pc 0x{:x}: threadgroup {} of 0x{:x} (lane {}) outside the {} bytes of threadgroup memory",
                            s.pc, kStore ? "write" : "read", a, l, tg ? tg->size() : 0);
      uint8_t* p = tg->data() + a;
      move_component<kStore>(c, p, f, size, i, r32, reg, l);
    }
  }
  if constexpr (!kStore) mark_pending(s, c, ctx, std::popcount(s.k[1]));
  return {};
}

// Stack (scratch) memory (derived from Mesa's use of stack_load/stack_store
// for spills): byte offset = O (signed immediate or 32-bit register) +
// i * element size within the lane's own scratch area.
template <bool kStore>
Status exec_stack(const Step& s, Core& c, Ctx& ctx) {
  uint32_t per_lane = ctx.mem->stack_size_B;
  if (c.stack.size() != size_t{per_lane} * kLanes) c.stack.assign(size_t{per_lane} * kLanes, 0);
  uint32_t f = s.k[0];
  bool r32 = s.k[3];
  unsigned size = item_size_B(f);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!lane_on(c.exec, l)) continue;
    int64_t off = s.b.kind == Kind::imm ? sign_extend(s.b.imm, 16) : int64_t{static_cast<int32_t>(c.r[s.b.index][l])};
    unsigned reg = s.k[2];
    for (unsigned i = 0; i < 4; ++i) {
      if (!(s.k[1] >> i & 1)) continue;
      int64_t a = off + int64_t{i} * size;
      if (a < 0 || a + size > per_lane)
        return Error::fault("pc 0x{:x}: stack {} of offset {} (lane {}) outside the {} bytes of scratch per thread",
                            s.pc, kStore ? "write" : "read", a, l, per_lane);
      uint8_t* p = c.stack.data() + size_t{l} * per_lane + a;
      move_component<kStore>(c, p, f, size, i, r32, reg, l);
    }
  }
  if constexpr (!kStore) mark_pending(s, c, ctx, std::popcount(s.k[1]));
  return {};
}

Status check_regs(const Step& s, unsigned count) {
  unsigned last = s.k[3] ? s.k[2] + count - 1 : (s.k[2] + count - 1) / 2;
  if (count && last >= kRegisters)
    return Error::decode("memory data registers run past r{}", kRegisters - 1);
  return {};
}

// Format, mask and data registers (kEnum F and mask, the R tuple) into
// k[0..3]. A mask of 0 decodes R as empty (no registers, no size).
Status data_operands(const isa::Instr& in, Step& s) {
  s.k[0] = static_cast<uint32_t>(operand_value(in, "F"));
  s.k[1] = static_cast<uint32_t>(operand_value(in, "mask"));
  AGX_TRY(Operand r, operand(in, "R"));
  s.k[2] = r.index;
  s.k[3] = r.kind == Kind::r32;
  return {};
}

Status illegal_i32_in_r16(const Step& s, const isa::Instr& in) {
  if (!s.k[3] && s.k[0] == 2 && find_operand(in, "R")->kind != isa::OperandKind::kEmpty)
    return Error::decode("i32 data in 16-bit registers is an illegal instruction");
  return {};
}

// O as a signed 16-bit immediate or a 32-bit register (kMemoryIndex).
Status index_operand(const isa::Instr& in, Step& s) {
  AGX_TRY(s.b, operand(in, "O"));
  return {};
}

}  // namespace

Result<bool> compile_memory(const isa::Instr& in, Step& s) {
  switch (in.op) {
    case Opcode::device_load:
    case Opcode::device_store: {
      AGX_CHECK(data_operands(in, s));
      s.k[4] = static_cast<uint32_t>(operand_value(in, "s"));
      s.k[5] = static_cast<uint32_t>(operand_value(in, "Ou"));
      uint32_t f = s.k[0];
      bool load = in.op == Opcode::device_load;
      if (f > 8 && !(load && (f == 12 || f == 13)))
        return Error::unsupported("not supported by the emulator: {} format {}", load ? "device_load" : "device_store", f);
      AGX_CHECK(illegal_i32_in_r16(s, in));
      if (bit_packed(f) && s.k[1] == 0)
        return Error::unsupported("not supported by the emulator: device_load of a packed format with mask 0");
      AGX_TRY(s.a, operand(in, "A"));  // kMemoryBase: r64 or u64 pair
      AGX_CHECK(index_operand(in, s));
      unsigned count = bit_packed(f) ? 4 : std::popcount(s.k[1]);
      AGX_CHECK(check_regs(s, count));
      s.run = load ? exec_device_load : exec_device_store;
      return true;
    }
    case Opcode::threadgroup_load:
    case Opcode::threadgroup_store: {
      AGX_CHECK(data_operands(in, s));
      if (s.k[0] > 7) return Error::unsupported("not supported by the emulator: threadgroup access format {}", s.k[0]);
      AGX_CHECK(illegal_i32_in_r16(s, in));
      // kThreadgroupMemoryBase: r16, u16 or 0; kThreadgroupIndex: signed
      // 16-bit immediate or r16.
      AGX_TRY(s.a, operand(in, "A"));
      AGX_CHECK(index_operand(in, s));
      AGX_CHECK(check_regs(s, std::popcount(s.k[1])));
      s.run = in.op == Opcode::threadgroup_load ? exec_threadgroup<false> : exec_threadgroup<true>;
      return true;
    }
    case Opcode::stack_load:
    case Opcode::stack_store: {
      AGX_CHECK(data_operands(in, s));
      if (s.k[0] > 7) return Error::unsupported("not supported by the emulator: stack access format {}", s.k[0]);
      AGX_CHECK(illegal_i32_in_r16(s, in));
      AGX_CHECK(index_operand(in, s));
      AGX_CHECK(check_regs(s, std::popcount(s.k[1])));
      s.run = in.op == Opcode::stack_load ? exec_stack<false> : exec_stack<true>;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace agx::usc::detail
