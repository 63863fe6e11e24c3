// USC programs as the data masters find them: code at an address, no length. The
// hardware fetches instructions as it goes; we decode ahead once, up to the
// first `stop` that no branch seen so far jumps past, and cache the result
// by address (checked against the bytes on every use, so code rewritten by
// the driver is decoded again).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "gpu/shader/shader.h"

namespace agx::gpu {

Error fail(GpuFault* where, GpuVa va, GpuUnit unit, Error error) {
  if (where) {
    where->va = va;
    where->unit = unit;
    where->access = Access::read;
    where->reason = error.message();
  }
  return error;
}

Status read_gpu(GpuMemory& m, GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* where) {
  GpuFault f;
  if (m.read(va, dst, size, unit, &f)) return {};
  if (where) *where = f;
  Error e = Error::fault("{}", describe(f));
  if (where) where->reason = e.message();
  return e;
}

namespace {

constexpr size_t kChunk_B = 256;  // divides the 16 KiB page: a chunk is all mapped or not

// The highest 16-bit GPR half an operand names, plus one (0: none).
uint32_t register_end(const isa::Operand& o) {
  switch (o.kind) {
    case isa::OperandKind::kReg16: return uint32_t{o.index} + o.count;
    case isa::OperandKind::kReg32: return 2 * (uint32_t{o.index} + o.count);
    case isa::OperandKind::kReg64: return 2 * (uint32_t{o.index} + 2 * o.count);
    case isa::OperandKind::kText: return 2 * (uint32_t{o.index} + 1);
    default: return 0;
  }
}

bool same_bytes(GpuMemory& m, GpuVa code, const std::vector<uint8_t>& bytes) {
  if (const uint8_t* p = m.host_pointer(code, bytes.size(), Access::read))
    return std::memcmp(p, bytes.data(), bytes.size()) == 0;
  std::vector<uint8_t> now(bytes.size());
  GpuFault f;
  return m.read(code, now.data(), now.size(), GpuUnit::usc, &f) && now == bytes;
}

}  // namespace

Result<ProgramPtr> ProgramCache::load(GpuMemory& m, GpuVa code, GpuFault* where) {
  {
    std::unique_lock lock(mu_);
    auto it = cache_.find(code);
    if (it != cache_.end()) {
      ProgramPtr p = it->second;
      lock.unlock();
      if (same_bytes(m, code, p->bytes)) return p;
    }
  }
  auto out = std::make_shared<LoadedProgram>();
  std::vector<uint8_t>& bytes = out->bytes;
  bool unmapped = false;
  GpuFault unmapped_fault;
  auto ensure = [&](size_t need) {
    while (!unmapped && bytes.size() < need && bytes.size() < kMaxProgram_B) {
      GpuVa next = code + bytes.size();
      size_t chunk = kChunk_B - next % kChunk_B;
      size_t old = bytes.size();
      bytes.resize(old + chunk);
      if (!m.read(next, bytes.data() + old, chunk, GpuUnit::usc, &unmapped_fault)) {
        bytes.resize(old);
        unmapped = true;
      }
    }
  };
  size_t at = 0, end = 0;
  GpuVa max_target = code;
  while (true) {
    ensure(at + isa::kMaxLength_B);
    if (at >= bytes.size()) {
      if (unmapped) {
        GpuFault f = unmapped_fault;
        Error e = Error::fault("code at 0x{:x} runs into {} before a stop (at 0x{:x})", code, describe(f), f.va);
        return fail(where, f.va, GpuUnit::usc, std::move(e));
      }
      return fail(where, code, GpuUnit::usc,
                  Error::limit("no stop within {} bytes of the code at 0x{:x}", kMaxProgram_B, code));
    }
    isa::Instr in;
    Status st = isa::decode_into(std::span<const uint8_t>(bytes).subspan(at), code + at, in);
    if (!st) {
      end = std::min(at + isa::kMinLength_B, bytes.size());  // an error step, reported if reached
      break;
    }
    for (const isa::Operand& o : in.ops()) {
      out->register_halves = std::max(out->register_halves, register_end(o));
      if (o.kind == isa::OperandKind::kBranchOffset)
        max_target = std::max<GpuVa>(max_target, code + at + static_cast<uint64_t>(o.value));
    }
    if (in.op == isa::Opcode::uniform_store) out->writes_uniforms = true;
    at += in.length_B;
    if (in.op == isa::Opcode::stop && max_target < code + at) {
      end = at;
      break;
    }
  }
  bytes.resize(end);
  auto compiled = usc::compile(bytes, code);
  if (!compiled) return fail(where, code, GpuUnit::usc, std::move(compiled).error());
  out->program = std::move(*compiled);
  ProgramPtr p = out;
  std::lock_guard lock(mu_);
  cache_[code] = p;
  return p;
}

}  // namespace agx::gpu
