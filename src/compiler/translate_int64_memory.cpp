// 64-bit integer loads, stores, atomics and phis (GL_ARB_gpu_shader_int64,
// GL_NV_shader_atomic_int64) -> IR; the arithmetic is translate_int64.cpp.
#include <fmt/format.h>

#include "compiler/int64_lowering.h"
#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

// 64-bit loads and stores: two 32-bit words per component, low word at
// the lower address (the buffers are little-endian, as piglit fills them).
Status Translator::load64(const spirv::Inst& in, const Ptr& p) {
  if (in_push_memory(p)) {  // the block in memory: as a buffer
    AGX_TRY(const Ptr m, memory_view(p, in));
    return load64(in, m);
  }
  const auto& w = in.w;
  unsigned n = components(w[0]);
  if (!n) return unsupported(in, "load of a composite containing 64-bit integers");
  TVal out = TVal::data(w[0]);
  for (unsigned i = 0; i < n; ++i) {
    Ptr q = p;
    q.const_B += 8 * i;
    switch (p.space) {
      case Ptr::Space::push: {
        if (q.terms.empty()) {
          out.c.push_back(Src::uniform(q.uniform + q.const_B / 4, 64));
          break;
        }
        AGX_TRY(auto lo, push_word(q, 0, in));  // run-time indices: translate_push_dynamic.cpp
        AGX_TRY(auto hi, push_word(q, 4, in));
        out.c.push_back(pack64(lo, hi));
        break;
      }
      case Ptr::Space::buffer: {
        AGX_TRY(auto idx, buffer_index(q, 4, in));
        ValueId d = pair_value(b_.def(IrOp::device_load, {buffer_base(q), idx}, 32, 2));
        out.c.push_back(Src::val(d, 64));
        break;
      }
      case Ptr::Space::shared: {
        AGX_TRY(auto addr, shared_address(q));
        ValueId d = pair_value(b_.def(IrOp::local_load, {addr}, 32, 2));
        out.c.push_back(Src::val(d, 64));
        break;
      }
      default: return unsupported(in, "64-bit load from this storage class");
    }
  }
  vals_[w[1]] = std::move(out);
  return {};
}

Status Translator::store64(const spirv::Inst& in, const Ptr& p, const std::vector<Src>& data) {
  unsigned n = components(p.type);
  if (!n) return unsupported(in, "store of a composite containing 64-bit integers");
  if (data.size() != n) return unsupported(in, "store of a value of another shape");
  for (unsigned i = 0; i < n; ++i) {
    Ptr q = p;
    q.const_B += 8 * i;
    Src d = Src::val(b_.def(IrOp::collect, {lo32(data[i]), hi32(data[i])}, 32, 2));
    switch (p.space) {
      case Ptr::Space::buffer: {
        AGX_TRY(auto idx, buffer_index(q, 4, in));
        b_.emit(IrOp::device_store, {d, buffer_base(q), idx});
        break;
      }
      case Ptr::Space::shared: {
        AGX_TRY(auto addr, shared_address(q));
        b_.emit(IrOp::local_store, {d, addr});
        break;
      }
      default: return unsupported(in, "64-bit store to a read-only or unsupported storage class");
    }
  }
  return {};
}

// 64-bit atomics. The AGX atomic instructions work on 32-bit words
// (dougallj/applegpu: `atomic` / `threadgroup_atomic` take one 32-bit
// register, a pair only for cmpxchg's new/compare values), so a 64-bit
// read-modify-write runs under a spin lock: a lane takes the lock word with
// an exchange, does the plain load, operation and store, gives the lock
// back and leaves the loop in the same iteration -- no lane ever waits
// while it holds the lock, so SIMD lanes and groups always make progress.
// Shared variables: the lock is 4 bytes the compiler adds after them.
// Buffers: one device word the runtime provides (Abi::atomic_lock_uniform,
// docs/compiler.md), a lock for every 64-bit buffer atomic of the dispatch.
Status Translator::atomic64(const spirv::Inst& in, const Ptr& p) {
  const auto& w = in.w;
  bool device = p.space == Ptr::Space::buffer;
  if (!device && p.space != Ptr::Space::shared) return unsupported(in, "64-bit atomic on this storage class");
  if (!device && lock_offset_B_ == UINT32_MAX) {
    lock_offset_B_ = (abi_.threadgroup_memory_B + 3) / 4 * 4;
    abi_.threadgroup_memory_B = lock_offset_B_ + 4;
    if (abi_.threadgroup_memory_B > 32 * 1024)
      return unsupported(in, "no room for the 64-bit atomics' lock word in 32 KiB of threadgroup memory");
    // Threadgroup memory starts undefined: the first thread of the group
    // clears the lock before anyone may take it, at the top of the shader
    // (before any control flow, so every thread meets the barrier).
    // thread_index_in_threadgroup is sr51 (applegpu SR_NAMES).
    Function& f = b_.function();
    ValueId index = f.new_value(), zero = f.new_value();
    std::vector<Instr> init = {
        Instr{IrOp::get_sr, Cond::none, false, index, {}, 51, 0},
        Instr{IrOp::if_, Cond::ueq, false, kNoValue, {Src::val(index), Src::immediate(0)}, 0, 0},
        Instr{IrOp::mov, Cond::none, false, zero, {Src::immediate(0)}, 0, 0},
        Instr{IrOp::local_store, Cond::none, false, kNoValue, {Src::val(zero), Src::immediate(lock_offset_B_)}, 0, 0},
        Instr{IrOp::end_if, Cond::none, false, kNoValue, {}, 0, 0},
        Instr{IrOp::barrier, Cond::none, false, kNoValue, {}, 0, 0},
    };
    f.instrs.insert(f.instrs.begin(), init.begin(), init.end());
  }
  if (device && abi_.atomic_lock_uniform == UINT32_MAX) {
    abi_.atomic_lock_uniform = (abi_.uniform_count + 1) / 2 * 2;
    abi_.uniform_count = abi_.atomic_lock_uniform + 2;
    if (abi_.uniform_count > 256)
      return unsupported(in, fmt::format("needs {} uniform registers with the 64-bit atomics' lock (at most 256)", abi_.uniform_count));
  }
  Int64 x(b_);
  Pair value{}, compare{};
  spv::Op op = in.op;
  switch (op) {
    case SpvOp::OpAtomicIIncrement: case SpvOp::OpAtomicIDecrement: value = {Src::immediate(1), Src::immediate(0)}; break;
    case SpvOp::OpAtomicCompareExchange: {
      if (w.size() < 8) return Error::decode("{}: bad OpAtomicCompareExchange", o_.file_name);
      AGX_TRY(auto v, scalar(w[6], in));
      AGX_TRY(auto c, scalar(w[7], in));
      value = {lo32(v), hi32(v)};
      compare = {lo32(c), hi32(c)};
      break;
    }
    default: {
      if (w.size() < 6) return Error::decode("{}: bad atomic", o_.file_name);
      AGX_TRY(auto v, scalar(w[5], in));
      value = {lo32(v), hi32(v)};
    }
  }
  AGX_TRY(Src addr, word_address(p, in));
  Src base = buffer_base(p);
  Function& f = b_.function();
  ValueId res = f.new_value(32, 2, true);
  auto xchg = [&](uint32_t v) {
    Src d = Src::val(b_.def(IrOp::mov, {Src::immediate(v)}));
    ValueId old = f.new_value();
    std::vector<Src> srcs = device ? std::vector<Src>{Src::uniform(abi_.atomic_lock_uniform, 64), Src::immediate(0), d}
                                   : std::vector<Src>{Src::immediate(lock_offset_B_), d};
    f.instrs.push_back(Instr{device ? IrOp::atomic : IrOp::local_atomic, Cond::none, false, old, std::move(srcs),
                             static_cast<uint64_t>(AtomicOp::xchg), b_.line});
    return Src::val(old);
  };
  b_.emit(IrOp::loop);
  Src got = xchg(1);
  b_.emit(IrOp::if_, {got, Src::immediate(0)}, 0, Cond::ueq, false);
  ValueId old = device ? b_.def(IrOp::device_load, {base, addr}, 32, 2) : b_.def(IrOp::local_load, {addr}, 32, 2);
  Pair o{Src::val(old, 32, 0), Src::val(old, 32, 1)};
  Pair r;
  switch (op) {
    case SpvOp::OpAtomicIAdd: case SpvOp::OpAtomicIIncrement: r = x.add(o, value); break;
    case SpvOp::OpAtomicISub: case SpvOp::OpAtomicIDecrement: r = x.sub(o, value); break;
    case SpvOp::OpAtomicExchange: r = value; break;
    case SpvOp::OpAtomicCompareExchange: r = x.pick(x.differs(o, compare), o, value); break;
    case SpvOp::OpAtomicUMin: r = x.pick(x.less(false, o, value), o, value); break;
    case SpvOp::OpAtomicSMin: r = x.pick(x.less(true, o, value), o, value); break;
    case SpvOp::OpAtomicUMax: r = x.pick(x.less(false, o, value), value, o); break;
    case SpvOp::OpAtomicSMax: r = x.pick(x.less(true, o, value), value, o); break;
    case SpvOp::OpAtomicAnd: r = x.bitwise(IrOp::iand, o, value); break;
    case SpvOp::OpAtomicOr: r = x.bitwise(IrOp::ior, o, value); break;
    case SpvOp::OpAtomicXor: r = x.bitwise(IrOp::ixor, o, value); break;
    default: return unsupported(in, "64-bit atomic operation");
  }
  Src data = Src::val(b_.def(IrOp::collect, {r.lo, r.hi}, 32, 2));
  if (device) b_.emit(IrOp::device_store, {data, base, addr});
  else b_.emit(IrOp::local_store, {data, addr});
  b_.def_into(res, IrOp::collect, {o.lo, o.hi});
  xchg(0);
  b_.emit(IrOp::break_);
  b_.emit(IrOp::end_if);
  b_.emit(IrOp::end_loop);
  TVal out = TVal::data(w[0]);
  Src old_lo = Src::val(b_.def(IrOp::mov, {Src::val(res, 32, 0)}));
  out.c.push_back(pack64(old_lo, Src::val(b_.def(IrOp::mov, {Src::val(res, 32, 1)}))));
  vals_[w[1]] = std::move(out);
  return {};
}

// A phi of a 64-bit integer: one 2 x 32-bit variable per component.
ValueId Translator::phi_var64() {
  return pair_value(b_.function().new_value(32, 2, true));
}

void Translator::phi_move64(ValueId dest, const Src& src) {
  b_.def_into(dest, IrOp::collect, {lo32(src), hi32(src)});
}

}  // namespace agx::compiler::detail
