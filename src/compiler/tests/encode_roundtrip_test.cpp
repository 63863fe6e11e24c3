// The backend's direct encoding, one table row per IR op and per variant,
// immediate and operand kind instruction selection handles: every machine
// instruction it builds is encoded, decoded with isa::decode and compared
// field by field and operand by operand with the machine instruction that
// went in. Each row also gives the applegpu assembly text of those
// instructions (what the packer used to assemble): isa::assemble of that
// text must give the same fields.
#include <gtest/gtest.h>

#include <bit>
#include <functional>

#include "compiler/machine.h"
#include "compiler/passes.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

// A function with hand-placed registers.
struct Fx {
  Function f;
  ValueId val(uint8_t bits, uint8_t comps, int half, bool pair = false) {
    ValueId v = f.new_value(bits, comps);
    f.values[v].reg = half;
    f.values[v].pair = pair;
    return v;
  }
  void op(Op o, ValueId dest, std::vector<Src> srcs, uint64_t imm = 0, Cond cond = Cond::none, bool invert = false) {
    Instr in;
    in.op = o, in.dest = dest, in.srcs = std::move(srcs), in.imm = imm, in.cond = cond, in.invert = invert;
    f.instrs.push_back(std::move(in));
  }
  // Registers: r2, r3 (32-bit), r4 (result), r5h / r6l (16-bit), r8_r9
  // (64-bit), r10-r13 (vec4), r14_r15 (a 2 x 32 pair).
  ValueId a = val(32, 1, 4), b = val(32, 1, 6), d = val(32, 1, 8), h = val(16, 1, 11), d16 = val(16, 1, 12),
          w = val(64, 1, 16), v4 = val(32, 4, 20), p = val(32, 2, 28, true);
};

Src fimm(float x) { return Src::float_immediate(x); }
Src u16(uint32_t u) { return Src::uniform(u, 16); }
Src neg(Src s) { return s.neg = true, s; }
Src abs_(Src s) { return s.abs = true, s; }

struct Case {
  const char* name;
  std::function<void(Fx&)> build;
  std::vector<const char*> text;
};

// clang-format off
const Case kAlu[] = {
  {"mov r32", [](Fx& x) { x.op(Op::mov, x.d, {Src::val(x.a)}); }, {"mov r4, r2"}},
  {"mov r16 from uniform", [](Fx& x) { x.op(Op::mov, x.d16, {u16(5)}); }, {"mov r6l, u5l"}},
  {"mov 32-bit uniform", [](Fx& x) { x.op(Op::mov, x.d, {Src::uniform(200)}); }, {"mov r4, u200"}},
  {"mov 8-bit immediate", [](Fx& x) { x.op(Op::mov, x.d, {Src::immediate(7)}); }, {"mov r4, 7"}},
  {"mov_imm 32", [](Fx& x) { x.op(Op::mov, x.d, {Src::immediate(0x12345678)}); }, {"mov_imm r4, 305419896, 0b0"}},
  {"mov_imm 16", [](Fx& x) { x.op(Op::mov, x.d16, {Src::immediate(0x1234, 16)}); }, {"mov_imm r6l, 4660"}},
  {"mov negated float immediate", [](Fx& x) { x.op(Op::mov, x.d, {neg(fimm(1.0f))}); }, {"mov_imm r4, 3212836864, 0b0"}},
  {"mov negated register", [](Fx& x) { x.op(Op::mov, x.d, {neg(Src::val(x.a))}); }, {"fadd32 r4, r2.neg, -0.0"}},
  {"collect", [](Fx& x) { x.op(Op::collect, x.v4, {Src::val(x.a), Src::immediate(3), Src::uniform(9), Src::val(x.b)}); },
   {"mov r10, r2", "mov r11, 3", "mov r12, u9", "mov r13, r3"}},
  {"get_sr", [](Fx& x) { x.op(Op::get_sr, x.d, {}, 80); }, {"get_sr r4, sr80"}},
  {"iadd", [](Fx& x) { x.op(Op::iadd, x.d, {Src::val(x.a), Src::immediate(255)}); }, {"iadd r4, r2, 255"}},
  {"isub", [](Fx& x) { x.op(Op::isub, x.d, {Src::uniform(3), Src::val(x.b)}); }, {"isub r4, u3, r3"}},
  {"iadd 64-bit", [](Fx& x) { x.op(Op::iadd, x.w, {Src::val(x.w, 64), Src::val(x.a)}); }, {"iadd r8_r9, r8_r9, r2"}},
  {"imul", [](Fx& x) { x.op(Op::imul, x.d, {Src::val(x.a), Src::val(x.b)}); }, {"imadd r4, r2, r3, 0"}},
  {"umul_wide", [](Fx& x) { x.op(Op::umul_wide, x.p, {Src::val(x.a), Src::val(x.b)}); }, {"imadd r14_r15, r2, r3, 0"}},
  {"imad", [](Fx& x) { x.op(Op::imad, x.d, {Src::val(x.a), Src::immediate(12), Src::val(x.b)}); }, {"imadd r4, r2, 12, r3"}},
  {"ishl", [](Fx& x) { x.op(Op::ishl, x.d, {Src::val(x.a), Src::immediate(3)}); }, {"bfi r4, 0, r2, 3"}},
  {"ushr", [](Fx& x) { x.op(Op::ushr, x.d, {Src::val(x.a), Src::val(x.b)}); }, {"bfeil r4, 0, r2, r3"}},
  {"ishr", [](Fx& x) { x.op(Op::ishr, x.d, {Src::val(x.a), Src::immediate(31)}); }, {"asr r4, r2, 31"}},
  {"iand", [](Fx& x) { x.op(Op::iand, x.d, {Src::val(x.a), Src::val(x.b)}); }, {"and r4, r2, r3"}},
  {"ior", [](Fx& x) { x.op(Op::ior, x.d16, {Src::val(x.h, 16), Src::immediate(1)}); }, {"or r6l, r5h, 1"}},
  {"ixor", [](Fx& x) { x.op(Op::ixor, x.d, {Src::val(x.a), Src::uniform(2)}); }, {"xor r4, r2, u2"}},
  {"inot", [](Fx& x) { x.op(Op::inot, x.d, {Src::val(x.a)}); }, {"not r4, r2"}},
  {"popcount", [](Fx& x) { x.op(Op::popcount, x.d, {Src::val(x.a)}); }, {"popcount r4, r2"}},
  {"ffs", [](Fx& x) { x.op(Op::ffs, x.d, {Src::val(x.a)}); }, {"ffs r4, r2"}},
  {"bitrev", [](Fx& x) { x.op(Op::bitrev, x.d, {Src::val(x.a)}); }, {"bitrev r4, r2"}},
  {"fadd32 modifiers", [](Fx& x) { x.op(Op::fadd, x.d, {abs_(Src::val(x.a)), neg(abs_(Src::val(x.b)))}); },
   {"fadd32 r4, r2.abs, r3.abs.neg"}},
  {"fadd32 float immediate", [](Fx& x) { x.op(Op::fadd, x.d, {Src::val(x.a), fimm(0.5f)}); }, {"fadd32 r4, r2, 0.5"}},
  {"fadd32 16-bit source", [](Fx& x) { x.op(Op::fadd, x.d, {Src::val(x.h, 16), Src::uniform(4)}); }, {"fadd32 r4, r5h, u4"}},
  {"fadd16", [](Fx& x) { x.op(Op::fadd, x.d16, {Src::val(x.h, 16), u16(4)}); }, {"fadd16 r6l, r5h, u4l"}},
  {"fmul32", [](Fx& x) { x.op(Op::fmul, x.d, {Src::val(x.a), neg(fimm(2.0f))}); }, {"fmul32 r4, r2, -2.0"}},
  {"fmul16", [](Fx& x) { x.op(Op::fmul, x.d16, {Src::val(x.h, 16), neg(Src::val(x.h, 16))}); }, {"fmul16 r6l, r5h, r5h.neg"}},
  {"fmadd32", [](Fx& x) { x.op(Op::fmadd, x.d, {Src::val(x.a), Src::val(x.b), fimm(1.0f)}); }, {"fmadd32 r4, r2, r3, 1.0"}},
  {"fmadd16", [](Fx& x) { x.op(Op::fmadd, x.d16, {Src::val(x.h, 16), fimm(0.25f), Src::val(x.d16, 16)}); },
   {"fmadd16 r6l, r5h, 0.25, r6l"}},
  {"floor", [](Fx& x) { x.op(Op::floor, x.d, {Src::val(x.a)}); }, {"floor r4, r2"}},
  {"ceil", [](Fx& x) { x.op(Op::ceil, x.d, {abs_(Src::val(x.a))}); }, {"ceil r4, r2.abs"}},
  {"trunc", [](Fx& x) { x.op(Op::trunc, x.d, {Src::val(x.a)}); }, {"trunc r4, r2"}},
  {"rint", [](Fx& x) { x.op(Op::rint, x.d, {Src::uniform(6)}); }, {"rint r4, u6"}},
  {"rcp", [](Fx& x) { x.op(Op::rcp, x.d, {Src::val(x.a)}); }, {"rcp r4, r2"}},
  {"rsqrt", [](Fx& x) { x.op(Op::rsqrt, x.d, {Src::val(x.a)}); }, {"rsqrt r4, r2"}},
  {"rsqrt_special", [](Fx& x) { x.op(Op::rsqrt_special, x.d, {Src::val(x.a)}); }, {"rsqrt_special r4, r2"}},
  {"log2", [](Fx& x) { x.op(Op::log2, x.d, {Src::val(x.a)}); }, {"log2 r4, r2"}},
  {"exp2", [](Fx& x) { x.op(Op::exp2, x.d16, {Src::val(x.h, 16)}); }, {"exp2 r6l, r5h"}},
  {"sin_pt_1", [](Fx& x) { x.op(Op::sin_pt_1, x.d, {Src::val(x.a)}); }, {"sin_pt_1 r4, r2"}},
  {"sin_pt_2", [](Fx& x) { x.op(Op::sin_pt_2, x.d, {Src::val(x.a)}); }, {"sin_pt_2 r4, r2"}},
  {"icmpsel", [](Fx& x) { x.op(Op::icmpsel, x.d, {Src::val(x.a), Src::immediate(4), Src::immediate(1), Src::val(x.b)}, 0, Cond::ult); },
   {"icmpsel ult, r4, r2, 4, 1, r3"}},
  {"icmpsel signed uniform", [](Fx& x) { x.op(Op::icmpsel, x.d16, {Src::val(x.h, 16), u16(2), u16(3), Src::val(x.h, 16)}, 0, Cond::sgt); },
   {"icmpsel sgt, r6l, r5h, u2l, u3l, r5h"}},
  {"fcmpsel", [](Fx& x) { x.op(Op::fcmpsel, x.d, {Src::val(x.a), neg(fimm(0.5f)), Src::uniform(1), Src::val(x.b)}, 0, Cond::fgte); },
   {"fcmpsel gte, r4, r2, -0.5, u1, r3"}},
  {"ballot", [](Fx& x) { x.op(Op::ballot, x.d, {Src::val(x.a), Src::immediate(0)}, 0, Cond::ueq, true); },
   {"icmp_ballot r4, nueq, r2, 0"}},
  {"simd_shuffle", [](Fx& x) { x.op(Op::simd_shuffle, x.d, {Src::val(x.a), Src::val(x.b)}, 0); }, {"simd_shuffle r4, r2, r3l"}},
  {"simd_shuffle_down", [](Fx& x) { x.op(Op::simd_shuffle, x.d, {Src::val(x.a), Src::immediate(1)}, 1); }, {"simd_shuffle_down r4, r2, 1"}},
  {"simd_shuffle_up", [](Fx& x) { x.op(Op::simd_shuffle, x.d, {Src::val(x.a), Src::immediate(2)}, 2); }, {"simd_shuffle_up r4, r2, 2"}},
  {"simd_shuffle_xor", [](Fx& x) { x.op(Op::simd_shuffle, x.d, {Src::val(x.a), Src::val(x.h, 16)}, 3); }, {"simd_shuffle_xor r4, r2, r5h"}},
  {"convert u32_to_f", [](Fx& x) { x.op(Op::convert, x.d, {Src::val(x.a)}, 0); }, {"convert u32_to_f, r4, r2, rte"}},
  {"convert s32_to_f", [](Fx& x) { x.op(Op::convert, x.d16, {Src::val(x.a)}, 1); }, {"convert s32_to_f, r6l, r2, rte"}},
  {"convert f_to_u32", [](Fx& x) { x.op(Op::convert, x.d, {Src::val(x.a)}, 2); }, {"convert f_to_u32, r4, r2, rtz"}},
  {"convert f_to_s32", [](Fx& x) { x.op(Op::convert, x.d, {Src::uniform(7)}, 3); }, {"convert f_to_s32, r4, u7, rtz"}},
};

const Case kMemory[] = {
  {"device_load lsl", [](Fx& x) { x.op(Op::device_load, x.v4, {Src::val(x.w, 64), Src::val(x.a)}, mem_imm(2)); },
   {"device_load 0, i32, xyzw, r10_r11_r12_r13, r8_r9, r2, signed, lsl 2"}},
  {"device_load i8", [](Fx& x) { x.op(Op::device_load, x.d, {Src::uniform(4, 64), Src::immediate(-3)}, mem_imm(0, 1)); },
   {"device_load 0, i8, x, r4, u4_u5, -3, signed"}},
  {"device_store", [](Fx& x) { x.op(Op::device_store, kNoValue, {Src::val(x.v4), Src::uniform(0, 64), Src::val(x.b)}); },
   {"device_store 0, i32, xyzw, r10_r11_r12_r13, u0_u1, r3, signed, 0"}},
  {"device_store i16 halves", [](Fx& x) { x.op(Op::device_store, kNoValue, {Src::val(x.d16, 16), Src::val(x.w, 64), Src::immediate(9)}, mem_imm(1, 2)); },
   {"device_store 0, i16, x, r6l, r8_r9, 9, signed, lsl 1, 0"}},
  {"local_load constant address", [](Fx& x) { x.op(Op::local_load, x.d, {Src::immediate(64)}); }, {"threadgroup_load i32, x, r4, 0, 16"}},
  {"local_load register address", [](Fx& x) { x.op(Op::local_load, x.v4, {Src::val(x.a)}); }, {"threadgroup_load i32, xyzw, r10_r11_r12_r13, r2l, 0"}},
  {"local_store i16", [](Fx& x) { x.op(Op::local_store, kNoValue, {Src::val(x.h, 16), Src::immediate(6)}, mem_imm(0, 2)); },
   {"threadgroup_store i16, x, r5h, 0, 3"}},
  {"local_store uniform address", [](Fx& x) { x.op(Op::local_store, kNoValue, {Src::val(x.a), u16(100)}); },
   {"threadgroup_store i32, x, r2, u100l, 0"}},
  {"atomic add", [](Fx& x) { x.op(Op::atomic, x.d, {Src::val(x.w, 64), Src::val(x.a), Src::val(x.b)}, uint64_t(AtomicOp::add)); },
   {"atomic add, 0, r4, r8_r9, r2, signed, r3, 0, 0, 0, 0, 0"}},
  {"atomic cmpxchg no result", [](Fx& x) { x.op(Op::atomic, kNoValue, {Src::uniform(2, 64), Src::immediate(5), Src::val(x.p)}, uint64_t(AtomicOp::cmpxchg)); },
   {"atomic cmpxchg, 0, None, u2_u3, 5, signed, r14_r15, 0, 0, 0, 0, 0"}},
  {"local_atomic", [](Fx& x) { x.op(Op::local_atomic, x.d, {Src::val(x.a), Src::val(x.b)}, uint64_t(AtomicOp::umax)); },
   {"threadgroup_atomic umax, r4, r2l, 0, r3, 0, 0, 0, 0"}},
  {"local_atomic cmpxchg", [](Fx& x) { x.op(Op::local_atomic, kNoValue, {Src::immediate(8), Src::val(x.p)}, uint64_t(AtomicOp::cmpxchg)); },
   {"threadgroup_atomic cmpxchg, None, 0, 2, r14_r15, 0, 0, 0, 0"}},
  {"stack_store words", [](Fx& x) { x.op(Op::stack_store, kNoValue, {Src::val(x.v4), Src::val(x.a)}); },
   {"stack_store i32, 0, 0, xyzw, 0, r10_r11_r12_r13, r2, 0"}},
  {"stack_store halves", [](Fx& x) { x.op(Op::stack_store, kNoValue, {Src::val(x.d16), Src::immediate(24)}); },
   {"stack_store i16, 0, 0, x, 0, r6l, 24, 0"}},
  {"stack_load", [](Fx& x) { x.op(Op::stack_load, x.p, {Src::immediate(16)}); }, {"stack_load r14_r15, i32, 0, 0, xy, 0, 16, 0"}},
  {"uniform_store 16-bit", [](Fx& x) { x.op(Op::uniform_store, kNoValue, {Src::val(x.h, 16)}, 9); },
   {"uniform_store 2, i16, x, 0, r5h, 18"}},
  {"uniform_store 32-bit vector", [](Fx& x) {
     ValueId v3 = x.val(32, 3, 20);
     x.op(Op::uniform_store, kNoValue, {Src::val(v3)}, 4);
   }, {"uniform_store 2, i16, xyzw, 0, r10l_r10h_r11l_r11h, 8", "uniform_store 2, i16, xy, 0, r12l_r12h, 12"}},
};

const Case kTexture[] = {
  {"texture_load auto_lod", [](Fx& x) {
     ValueId c = x.val(32, 2, 4);
     x.op(Op::texture_load, x.v4, {Src::val(c), Src::immediate(0)}, image_imm(3, 2, 1));
   }, {"texture_load 0, 0b0000, 0b0, none, xyzw, 0b00, r10_r11_r12_r13, None, ts3, ss1, tex_2d, r2_r3, auto_lod, 0"}},
  {"texture_sample lod_min", [](Fx& x) {
     ValueId c = x.val(32, 3, 4);
     x.op(Op::texture_sample, x.v4, {Src::val(c), Src::val(x.h, 16)}, image_imm(0, 5, 2));
   }, {"texture_sample 0, 0b0000, 0b0, none, xyzw, 0b00, r10_r11_r12_r13, None, ts0, ss2, tex_3d, r2_r3_r4, lod_min, r5h"}},
  {"texture_sample lod_grad", [](Fx& x) {
     ValueId c = x.val(32, 2, 4), g = x.val(32, 4, 32);
     x.op(Op::texture_sample, x.v4, {Src::val(c), Src::val(g)}, image_imm(1, 2, 0));
   }, {"texture_sample 0, 0b0000, 0b0, none, xyzw, 0b00, r10_r11_r12_r13, None, ts1, ss0, tex_2d, r2_r3, lod_grad, r16_r17_r18_r19"}},
  {"texture_sample lod_grad_min", [](Fx& x) {
     ValueId c = x.val(32, 2, 4), g = x.val(32, 4, 32);
     x.f.values[g].comps = 5;
     x.op(Op::texture_sample, x.v4, {Src::val(c), Src::val(g)}, image_imm(1, 2, 0) | kTexGradMin);
   }, {"texture_sample 0, 0b0000, 0b0, none, xyzw, 0b00, r10_r11_r12_r13, None, ts1, ss0, tex_2d, r2_r3, lod_grad_min, r16_r17_r18_r19_r20"}},
  {"texture_sample compare", [](Fx& x) {
     ValueId c = x.val(32, 2, 40);
     x.op(Op::texture_sample, x.v4, {Src::val(c), Src::immediate(0), Src::val(x.a)}, image_imm(0, 2, 0) | kTexCompare);
   }, {"texture_sample 1, 0b0000, 0b0, none, xyzw, 0b00, r10_r11_r12_r13, None, ts0, ss0, tex_2d, r20_r21, auto_lod, 0, r2"}},
  {"texture_load offset", [](Fx& x) {
     ValueId c = x.val(32, 2, 40);
     x.op(Op::texture_load, x.v4, {Src::val(c), Src::immediate(0), Src::val(x.h, 16)}, image_imm(0, 2, 0) | kTexOffset);
   }, {"texture_load 0, 0b0000, 0b0, none, xyzw, 0b00, r10_r11_r12_r13, None, ts0, ss0, tex_2d, r20_r21, auto_lod, 0, r5h"}},
  {"texture_sample compare and offset", [](Fx& x) {
     ValueId c = x.val(32, 2, 40), o = x.val(32, 2, 8);
     x.op(Op::texture_sample, x.v4, {Src::val(c), Src::immediate(0), Src::val(o)}, image_imm(0, 2, 0) | kTexCompare | kTexOffset);
   }, {"texture_sample 1, 0b0000, 0b0, none, xyzw, 0b00, r10_r11_r12_r13, None, ts0, ss0, tex_2d, r20_r21, auto_lod, 0, r4_r5l"}},
  {"texture_sample gather", [](Fx& x) {
     ValueId c = x.val(32, 2, 40);
     x.op(Op::texture_sample, x.v4, {Src::val(c), Src::immediate(0)}, image_imm(2, 2, 3) | tex_gather(6));
   }, {"texture_sample 0, 0b0000, 0b0, gather_g, xyzw, 0b00, r10_r11_r12_r13, None, ts2, ss3, tex_2d, r20_r21, auto_lod, 0"}},
  {"texture_sample query_lod", [](Fx& x) {
     ValueId c = x.val(32, 2, 40);
     x.op(Op::texture_sample, x.v4, {Src::val(c), Src::immediate(0)}, image_imm(0, 2, 0) | kTexQueryLod);
   }, {"texture_sample 0, query_lod, 0b0000, 0b0, none, xyzw, 0b00, r10_r11_r12_r13, None, ts0, ss0, tex_2d, r20_r21, auto_lod, 0"}},
  {"texture_load state registers", [](Fx& x) {
     ValueId c = x.val(32, 1, 40);
     x.op(Op::texture_load, x.v4, {Src::val(c), Src::immediate(0), Src::val(x.h, 16), Src::val(x.d16, 16)}, image_imm(0, 0, 0) | kTexStateReg);
   }, {"texture_load 0, 0b0000, 0b0, none, xyzw, 0b00, r10_r11_r12_r13, None, r5h, r6l, tex_1d, r20, auto_lod, 0"}},
  {"texture_load 2d array", [](Fx& x) {
     ValueId c = x.val(32, 3, 40);
     x.op(Op::texture_load, x.v4, {Src::val(c), Src::immediate(0)}, image_imm(0, 3, 0));
   }, {"texture_load 0, 0b0000, 0b0, none, xyzw, 0b00, r10_r11_r12_r13, None, ts0, ss0, tex_2d_array, r20l_r20h_r21l_r21h_r22l, auto_lod, 0"}},
  {"texture_load 2d ms array", [](Fx& x) {
     ValueId c = x.val(32, 3, 40);
     x.op(Op::texture_load, x.v4, {Src::val(c), Src::immediate(0)}, image_imm(0, 8, 0));
   }, {"texture_load 0, 0b0000, 0b0, none, xyzw, 0b00, r10_r11_r12_r13, None, ts0, ss0, tex_2d_ms_array, r20l_r20h_r21l_r21h_r22l, auto_lod, 0"}},
  {"image_write", [](Fx& x) {
     ValueId c = x.val(32, 2, 40);
     x.op(Op::image_write, kNoValue, {Src::val(x.v4), Src::val(c), Src::immediate(0)}, image_imm(5, 2));
   }, {"image_write r10_r11_r12_r13, r20_r21, 0, None, ts5, tex_2d, rte, 1, 0, 9, 0"}},
  {"image_write state register", [](Fx& x) {
     ValueId c = x.val(32, 3, 40);
     x.op(Op::image_write, kNoValue, {Src::val(x.v4), Src::val(c), Src::val(x.d16, 16), Src::val(x.h, 16)}, image_imm(0, 6) | kTexStateReg);
   }, {"image_write r10_r11_r12_r13, r20_r21_r22, r6l, None, r5h, tex_cube, rte, 1, 0, 9, 0"}},
};

const Case kControl[] = {
  {"if icmp", [](Fx& x) { x.op(Op::if_, kNoValue, {Src::val(x.a), Src::immediate(3)}, 0, Cond::ult); }, {"if_icmp r0l, ult, r2, 3, 1"}},
  {"if fcmp inverted", [](Fx& x) { x.op(Op::if_, kNoValue, {Src::val(x.a), fimm(0.5f)}, 0, Cond::flt, true); }, {"if_fcmp r0l, nlt, r2, 0.5, 1"}},
  {"else", [](Fx& x) { x.op(Op::else_, kNoValue, {}); }, {"else_icmp r0l, ueq, 0, 0, 1"}},
  {"end_if", [](Fx& x) { x.op(Op::end_if, kNoValue, {}); }, {"pop_exec r0l, 1"}},
  {"loop of one level", [](Fx& x) { x.op(Op::loop, kNoValue, {}, 1); x.op(Op::end_loop, kNoValue, {}, 1); },
   {"push_exec r0l, 1", "jmp_exec_any pc+0", "pop_exec r0l, 1"}},
  {"loop of two levels", [](Fx& x) {
     x.op(Op::loop, kNoValue, {}, 2);
     x.op(Op::continue_join, kNoValue, {}, 2);
     x.op(Op::end_loop, kNoValue, {}, 2);
   }, {"push_exec r0l, 2", "while_icmp r0l, ueq, 0, 0, 2", "while_icmp r0l, ueq, 0, 0, 2", "jmp_exec_any pc+0", "pop_exec r0l, 2"}},
  {"break", [](Fx& x) { x.op(Op::break_, kNoValue, {}, 3); }, {"mov_imm r0l, 3", "pop_exec r0l, 0"}},
  {"continue", [](Fx& x) { x.op(Op::continue_, kNoValue, {}, 1); }, {"mov_imm r0l, 1", "pop_exec r0l, 0"}},
  {"break_if one level", [](Fx& x) { x.op(Op::break_if, kNoValue, {Src::val(x.a), Src::val(x.b)}, 1, Cond::ult); },
   {"while_icmp r0l, ugte, r2, r3, 1"}},
  {"continue_if one level float", [](Fx& x) { x.op(Op::continue_if, kNoValue, {Src::val(x.a), Src::uniform(3)}, 1, Cond::fgt, true); },
   {"while_fcmp r0l, gt, r2, u3, 1"}},
  {"break_if cmpsel", [](Fx& x) { x.op(Op::break_if, kNoValue, {Src::val(x.a), fimm(1.0f)}, 2, Cond::flt); },
   {"fcmpsel lt, r0l, r2, 1.0, 2, r0l", "pop_exec r0l, 0"}},
  {"break_if cmpsel inverted", [](Fx& x) { x.op(Op::break_if, kNoValue, {Src::uniform(5), Src::immediate(9)}, 3, Cond::ult, true); },
   {"icmpsel ult, r0l, u5, 9, r0l, 3", "pop_exec r0l, 0"}},
  {"break_if past cmpsel's immediate", [](Fx& x) { x.op(Op::break_if, kNoValue, {Src::val(x.a), Src::val(x.b)}, 300, Cond::seq); },
   {"if_icmp r0l, seq, r2, r3, 1", "mov_imm r0l, 301", "pop_exec r0l, 0", "pop_exec r0l, 1"}},
  {"wait, barriers, stop", [](Fx& x) {
     x.op(Op::wait, kNoValue, {});
     x.op(Op::barrier, kNoValue, {});
     x.op(Op::memory_barrier, kNoValue, {});
     x.op(Op::stop, kNoValue, {});
   }, {"wait 0", "threadgroup_barrier", "stop"}},
  {"long if region", [](Fx& x) {
     x.op(Op::if_, kNoValue, {Src::val(x.a), Src::val(x.b)}, 0, Cond::ugt);
     for (int i = 0; i < 6; ++i) x.op(Op::mov, x.d, {Src::immediate(i)});
     x.op(Op::end_if, kNoValue, {});
   }, {"if_icmp r0l, ugt, r2, r3, 1", "jmp_exec_none pc+0", "mov r4, 0", "mov r4, 1", "mov r4, 2", "mov r4, 3", "mov r4, 4",
       "mov r4, 5", "pop_exec r0l, 1"}},
};
// clang-format on

// The decoded encoding of `want` has its fields and operands.
void expect_decodes_as(const isa::Instr& want, const isa::Encoded& encoded) {
  auto got = isa::decode(encoded.span());
  ASSERT_TRUE(got.ok()) << got.error().message();
  ASSERT_EQ(got->op, want.op);
  ASSERT_EQ(got->field_count, want.field_count);
  const auto names = isa::field_names(want.op);
  for (size_t k = 0; k < got->field_count; ++k) EXPECT_EQ(got->fields[k], want.fields[k]) << "field " << names[k];
  ASSERT_EQ(got->operand_count, want.operand_count);
  for (size_t k = 0; k < got->operand_count; ++k) {
    const isa::Operand &g = got->operands[k], &w = want.operands[k];
    EXPECT_EQ(g.kind, w.kind) << "operand " << k;
    EXPECT_EQ(g.desc, w.desc) << "operand " << k;
    EXPECT_EQ(g.slot, w.slot) << "operand " << k;
    EXPECT_EQ(g.index, w.index) << "operand " << k;
    EXPECT_EQ(g.count, w.count) << "operand " << k;
    EXPECT_EQ(g.flags, w.flags) << "operand " << k;
    EXPECT_EQ(g.value, w.value) << "operand " << k;
  }
}

void check(const Case& c) {
  SCOPED_TRACE(c.name);
  Fx x;
  c.build(x);
  auto code = select(x.f);
  ASSERT_TRUE(code.ok()) << code.error().message();
  ASSERT_EQ(code->size(), c.text.size());
  for (size_t i = 0; i < code->size(); ++i) {
    const isa::Instr& want = (*code)[i].instr;
    SCOPED_TRACE(c.text[i]);
    expect_decodes_as(want, (*code)[i].encoded);
    // The assembly text the packer used to write gives the same fields.
    auto ref = isa::assemble(c.text[i]);
    ASSERT_TRUE(ref.ok()) << ref.error().message();
    auto ref_in = isa::decode(ref->span());
    ASSERT_TRUE(ref_in.ok());
    EXPECT_EQ(ref_in->op, want.op);
    const auto names = isa::field_names(want.op);
    for (size_t k = 0; k < ref_in->field_count; ++k) EXPECT_EQ(ref_in->fields[k], want.fields[k]) << "assembled field " << names[k];
  }
}

// The tile operand encoders (Emit::sample_mask, own_pixel, tile_offset)
// give the operands the decoder reads back.
TEST(EncodeRoundTrip, TileOperands) {
  using O = isa::Opcode;
  for (O op : {O::st_tile, O::ld_tile}) {
    Emit e(op);
    ASSERT_TRUE(e.data(operand_fields(op, "R", "Rt"), reg32(2, 4), isa::OperandDesc::kThreadgroupMemoryReg).ok());
    e.enumeration(isa::find_field_id(op, "F"), 4);
    e.imm(isa::find_field_id(op, "u0"), op == O::ld_tile ? 1 : 0);
    e.enumeration(isa::find_field_id(op, "mask"), 0xF);
    e.imm(isa::find_field_id(op, "O"), 8);
    e.sample_mask(operand_fields(op, "S", "St"), 5);
    e.own_pixel(operand_fields(op, "C", "Ct"));
    auto enc = isa::encode(e.done().instr);
    ASSERT_TRUE(enc.ok()) << enc.error().message();
    expect_decodes_as(e.done().instr, *enc);
  }
  constexpr O op = O::image_write_block;
  Emit e(op);
  e.tile_offset(isa::field_id(op, "R"), 7);
  ASSERT_TRUE(e.coords(operand_fields(op, "C", "Ct", "Cs"), reg32(4, 2), 2).ok());
  ASSERT_TRUE(e.pbe_lod(operand_fields(op, "D", "Dt"), imm_operand(0)).ok());
  isa::Operand ts{isa::OperandKind::kTextureState};
  ts.index = 3;
  ASSERT_TRUE(e.texture(operand_fields(op, "T", "Tt"), ts).ok());
  e.enumeration(isa::field_id(op, "n"), 2);
  e.enumeration(isa::field_id(op, "round"), 0);
  e.enumeration(isa::field_id(op, "F"), 4);
  e.imm(isa::field_id(op, "q0"), 0);
  e.imm(isa::field_id(op, "q1"), 9);
  e.imm(isa::field_id(op, "q2"), 1);
  auto enc = isa::encode(e.done().instr);
  ASSERT_TRUE(enc.ok()) << enc.error().message();
  expect_decodes_as(e.done().instr, *enc);
}

TEST(EncodeRoundTrip, Alu) {
  for (const Case& c : kAlu) check(c);
}

TEST(EncodeRoundTrip, Memory) {
  for (const Case& c : kMemory) check(c);
}

TEST(EncodeRoundTrip, Texture) {
  for (const Case& c : kTexture) check(c);
}

TEST(EncodeRoundTrip, Control) {
  for (const Case& c : kControl) check(c);
}

}  // namespace
}  // namespace agx::compiler

namespace agx::compiler {
namespace AGX_UNITY_ID {

TEST(EncodeLayout, BranchOffsetsFollowTheEncodedLengths) {
  // loop { if (r2 > r3) { 6 movs } } stop: the if is jumped over when no
  // lane runs it, the loop jumps back to its first instruction.
  Fx x;
  x.op(Op::loop, kNoValue, {}, 1);
  x.op(Op::if_, kNoValue, {Src::val(x.a), Src::val(x.b)}, 0, Cond::ugt);
  for (int i = 0; i < 6; ++i) x.op(Op::mov, x.d, {Src::immediate(i)});
  x.op(Op::end_if, kNoValue, {});
  x.op(Op::end_loop, kNoValue, {}, 1);
  x.op(Op::stop, kNoValue, {});
  auto code = select(x.f);
  ASSERT_TRUE(code.ok()) << code.error().message();
  // push_exec, if_icmp, jmp_exec_none, 6 x mov, pop_exec, jmp_exec_any, pop_exec, stop
  ASSERT_EQ(code->size(), 13u);
  auto bytes = encode_all(*code);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  std::vector<uint64_t> pc{0};
  for (const MachineInstr& m : *code) pc.push_back(pc.back() + m.encoded.length_B);
  ASSERT_EQ(bytes->size(), pc.back());
  const std::pair<size_t, size_t> branches[] = {{2, 9}, {10, 1}};  // jmp_exec_none -> pop_exec, jmp_exec_any -> if_icmp
  for (auto [from, to] : branches) {
    auto in = isa::decode(std::span(*bytes).subspan(pc[from]), pc[from]);
    ASSERT_TRUE(in.ok()) << in.error().message();
    EXPECT_EQ(in->op, from == 2 ? isa::Opcode::jmp_exec_none : isa::Opcode::jmp_exec_any);
    const int64_t want = static_cast<int64_t>(pc[to]) - static_cast<int64_t>(pc[from]);
    EXPECT_EQ(in->operands[0].value, want);
    EXPECT_EQ((*code)[from].instr.operands[0].value, want);
    EXPECT_EQ(in->fields, (*code)[from].instr.fields);
  }
  EXPECT_LT((*code)[10].instr.operands[0].value, 0);
}

struct Bad {
  const char* name;
  std::function<void(Fx&)> build;
  const char* error;
};

TEST(EncodeRoundTrip, OperandsOutsideTheEncodingsAreErrors) {
  const Bad cases[] = {
      {"float immediate without a code", [](Fx& x) { x.op(Op::fadd, x.d, {Src::val(x.a), fimm(0.1f)}); }, "has no 8-bit code"},
      {"integer immediate past 8 bits", [](Fx& x) { x.op(Op::iadd, x.d, {Src::val(x.a), Src::immediate(300)}); },
       "an 8-bit immediate (0-255) is needed"},
      {"inverted select", [](Fx& x) { x.op(Op::icmpsel, x.d, {Src::val(x.a), Src::val(x.b), Src::val(x.a), Src::val(x.b)}, 0, Cond::ult, true); },
       "without the n (inverted) bit"},
      {"64-bit move", [](Fx& x) { x.op(Op::mov, x.w, {Src::val(x.w, 64)}); }, "64-bit moves"},
      {"division", [](Fx& x) { x.op(Op::udiv, x.d, {Src::val(x.a), Src::val(x.b)}); }, "lower_idiv did not run"},
      {"device offset past 16 bits", [](Fx& x) { x.op(Op::device_load, x.d, {Src::val(x.w, 64), Src::immediate(40000)}); },
       "a signed 16-bit offset is needed"},
      {"unaligned threadgroup address", [](Fx& x) { x.op(Op::local_load, x.d, {Src::immediate(6)}); }, "not a multiple of 4"},
      {"64-bit source of a 32-bit op", [](Fx& x) { x.op(Op::iand, x.d, {Src::val(x.w, 64), Src::val(x.a)}); },
       "a 16- or 32-bit source is needed"},
      {"32-bit uniform as a threadgroup base", [](Fx& x) { x.op(Op::local_load, x.d, {Src::uniform(3)}); },
       "an r16 register, a u16 uniform or 0 is needed"},
      {"an atomic without its value", [](Fx& x) { x.op(Op::atomic, x.d, {Src::val(x.w, 64), Src::val(x.a)}); },
       "2 sources where at least 3 are read"},
      {"an add of one source", [](Fx& x) { x.op(Op::iadd, x.d, {Src::val(x.a)}); }, "1 sources where 2 are read"},
      {"an unallocated value", [](Fx& x) { x.op(Op::inot, x.d, {Src::val(x.f.new_value())}); }, "a source without a register"},
      {"loop of three levels", [](Fx& x) { x.op(Op::loop, kNoValue, {}, 3); }, "loop of 3 levels"},
      {"end_loop alone", [](Fx& x) { x.op(Op::end_loop, kNoValue, {}, 1); }, "end_loop without loop"},
      {"texture into two registers", [](Fx& x) {
         ValueId c = x.val(32, 2, 40);
         x.op(Op::texture_load, x.p, {Src::val(c), Src::immediate(0)}, image_imm(0, 2, 0));
       }, "4 x 32 needed"},
  };
  for (const Bad& c : cases) {
    SCOPED_TRACE(c.name);
    Fx x;
    c.build(x);
    auto code = select(x.f);
    ASSERT_FALSE(code.ok());
    EXPECT_NE(code.error().message().find(c.error), std::string::npos) << code.error().message();
    EXPECT_NE(code.error().message().find("packing '"), std::string::npos) << code.error().message();
  }
}

}  // namespace
}  // namespace agx::compiler
