// ISA-API-STABLE
// The AGX (G13, Apple M1 GPU) instruction set: one table (table.inc), decode,
// length, encode, disassemble and assemble. The encodings, first-match order
// and disassembly text follow dougallj/applegpu (applegpu.py,
// disassemble.py); see docs/isa.md.
//
// After the ISA-API-STABLE line this header only grows: nothing here is
// renamed or removed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace agx::isa {

// ---------------------------------------------------------------------------
// The table. One row per applegpu instruction descriptor, in applegpu's
// registration (= first-match) order; applegpu's TODO.ld/st_tile is two
// rows, ld_tile and st_tile, from Mesa (see table.inc).
enum class Opcode : uint16_t {
#define AGX_ISA_OP(id, ...) id,
#include "isa/table.inc"
#undef AGX_ISA_OP
};
inline constexpr size_t kOpcodeCount = 0
#define AGX_ISA_OP(id, ...) +1
#include "isa/table.inc"
#undef AGX_ISA_OP
    ;

// The kind of operand descriptor in the table (applegpu's *Desc class). It
// says how the fields become an Operand; the emulator can switch on it when
// the Operand kind alone is not enough (e.g. kFloatSrc vs kAluSrc).
enum class OperandDesc : uint8_t {
  kAddSrc, kAluDst, kAluDst64, kAluSrc, kAluSrc16, kAluSrc64,
  kAsyncMemoryBase, kAsyncMemoryReg, kAtomicDestination, kAtomicSource,
  kBinary, kBranchOffset, kCf, kCfPerspective, kCmpselSrc, kCoords,
  kDiscardMask, kEnum, kExReg32, kFCondition, kFloatDst, kFloatDst16,
  kFloatSrc, kFloatSrc16, kICondition, kImmediate, kImplicitR0L,
  kIterSampleId, kLod, kMask, kMemoryBase, kMemoryIndex, kMemoryReg,
  kMemoryShift, kMulSrc, kPairedAluDst, kPairedFloatSrc, kPbeLod,
  kPbeSourceReg, kReg32, kSReg32, kSampleCompareOff, kSampleMask,
  kSampleReg, kSampleUReg, kSampler, kSamplerStateDest, kShift,
  kStackAdjustment, kStackReg32, kTexture, kTextureStateDest,
  kThreadgroupIndex, kThreadgroupMemoryBase, kThreadgroupMemoryReg,
  kTileToMemoryReg, kTruthTable, kUReg64, kUvsIndex, kVarRegister,
  kVarTripleRegister, kZs, kReg32Split,
  // Mesa-sourced (not an applegpu kind): ld_tile/st_tile coordinates, an
  // 8-bit immediate (Ct = 0) or an r16 pair x, y (Ct = 1).
  kTileCoord,
};

inline constexpr size_t kMaxOperands = 16;   // most operands of one row
inline constexpr size_t kMaxFields = 24;     // most merged fields of one row
inline constexpr size_t kMaxLength_B = 12;   // longest encoding
inline constexpr size_t kMinLength_B = 2;    // shortest encoding

// Static facts about one table row.
struct OpInfo {
  std::string_view id;        // enumerator name, e.g. "mov_imm16"
  std::string_view mnemonic;  // applegpu's descriptor name, e.g. "mov_imm"
  uint8_t short_B, long_B;    // encoding lengths; equal when fixed
  uint8_t length_bit;         // bit choosing long_B when set (15 or 47)
  bool executes;              // applegpu has semantics for it
};
const OpInfo& op_info(Opcode op);

// ---------------------------------------------------------------------------
// Decoded operands.
enum class OperandKind : uint8_t {
  kNone,          // absent/undefined operand; prints "None"
  kEmpty,         // prints as nothing and is dropped from the text
                  // (lsl 0, mask 0, enum value named "", empty tuple)
  kReg16,         // GPR halves: index = 2*N (rNl) or 2*N+1 (rNh); a tuple of
                  // `count` consecutive halves starting at index
  kReg32,         // index = N (rN); tuple of `count` consecutive registers
  kReg64,         // index = N: the pair rN_rN+1 (count 1)
  kUReg16,        // uniform halves: index = 2*N (uNl) / 2*N+1 (uNh)
  kUReg32,        // uniform uN
  kUReg64,        // uniform pair uN_uN+1
  kImm,           // integer in `value` (already sign-extended if signed)
  kFloatImm,      // 8-bit float immediate: value = code, fvalue = number
  kSpecialReg,    // srN, index = N (0..255)
  kTextureState,  // tsN, index = N
  kSamplerState,  // ssN, index = N
  kCoefficient,   // cfN (coefficient register), index = N
  kTruthTable,    // bitop truth table: value bit i = tt_i (text tt0 first)
  kCondition,     // value = cc | ccn << 3; integer or float per `desc`
  kEnum,          // value = raw field value; text from the row's enum table
  kBinary,        // value printed as 0b + width_bits digits
  kBranchOffset,  // value = signed byte offset from this instruction's pc
  kShift,         // value = left shift amount, printed "lsl N"
  kBitMask,       // value = m, printed "mask 0x((1<<m)-1)" (m = 0: empty)
  kText,          // texture_sample/load O with both compare and offset:
                  // compare value rN (index = N) followed by the offset r16
                  // half `value`; printed "rN_rMl"
};

// What some table operand kinds (Operand::desc) mean beyond their kind:
//  kAluDst*/kFloatDst*: destination; kFloatDst's saturate is the row field S.
//  kAluSrc*/kMulSrc/kAddSrc/kFloatSrc*: 8-bit immediates are kImm (integer
//    rows) or kFloatImm (float rows); kNone = undefined type encoding.
//  kCmpselSrc: size follows the destination (32-bit if field Dt bit 1).
//  kMemoryReg/kSampleReg/kThreadgroupMemoryReg: data tuple, count =
//    popcount(mask field) (kEmpty if 0); threadgroup_atomic's is kNone when
//    absent. kMemoryBase: r64/u64 base. kMemoryIndex/kThreadgroupIndex:
//    kImm (signed 16-bit) or a register offset; row field Ou = unsigned.
//  kShift/kMemoryShift: extra left shift. kMask: bitfield width m (0 = 32).
//  kTexture: ts (state), r16, kImm 0 or r32 (bindless); kSampleUReg: u64
//    pair or kNone. kCoords/kLod/kSampleCompareOff: tuples sized by the row
//    fields n (dimension) and lod. kCf: coefficient register or r16.
//  kAtomicSource: r64 for cmpxchg (op 3), else r32; kAtomicDestination
//    kNone when the old value is not returned.
//  kVarRegister/kVarTripleRegister: iter/ldcf results, count from field
//    count (0 = 4), times 3 for ldcf.
//  kTileCoord: ld_tile/st_tile coordinates, kImm or an r16 pair (count 2).

// Operand flags, in applegpu's print order (.cache/.discard, .abs, .neg, .sx).
enum OperandFlag : uint8_t {
  kFlagCache = 1 << 0,    // register cache hint
  kFlagDiscard = 1 << 1,  // last use: register value may be discarded
  kFlagAbs = 1 << 2,      // float source absolute value (before neg)
  kFlagNeg = 1 << 3,      // float source negation
  kFlagSx = 1 << 4,       // integer source sign-extended to the op width
};

struct Operand {
  OperandKind kind = OperandKind::kNone;
  OperandDesc desc = OperandDesc::kImmediate;  // the table's operand kind
  uint8_t flags = 0;       // OperandFlag bits
  uint8_t count = 1;       // registers in a tuple (1..12)
  uint8_t width_bits = 0;  // field width (kBinary, kImm) or register size
  uint8_t slot = 0;        // index of this operand in the row's operand list
  uint16_t index = 0;      // register / state / coefficient number
  int64_t value = 0;       // immediate, offset, enum, condition, mask ...
  double fvalue = 0.0;     // kFloatImm: the decoded value
  bool operator==(const Operand&) const = default;
};

// One decoded instruction. Everything the emulator needs is here: no
// re-parsing of bytes.
struct Instr {
  Opcode op{};
  uint8_t length_B = 0;
  uint8_t operand_count = 0;
  uint8_t field_count = 0;
  uint64_t pc = 0;                              // where it was decoded
  std::array<uint8_t, kMaxLength_B> bytes{};    // the encoding (length_B)
  std::array<uint32_t, kMaxFields> fields{};    // merged raw field values, in
                                                // the row's field order
  std::array<Operand, kMaxOperands> operands{}; // in text order

  std::span<const Operand> ops() const { return {operands.data(), operand_count}; }
  // Raw merged field by applegpu's name ("S", "N", "cc", "Dt", ...).
  std::optional<uint32_t> field(std::string_view name) const;
  bool operator==(const Instr&) const = default;
};

// Index of a named field in a row's field list (for precomputing lookups),
// or -1.
int field_index(Opcode op, std::string_view name);
// The names of a row's fields, in order.
std::vector<std::string_view> field_names(Opcode op);
// Width in bits of a row's field `index` (0 when out of range).
unsigned field_width(Opcode op, size_t index);

// ---------------------------------------------------------------------------
// Length: the instruction length in bytes from its first bytes. Needs at
// least 2 bytes (6 when the length bit is 47). Errors name the pc and what
// was expected (unknown encoding, truncated).
Result<size_t> instruction_length(std::span<const uint8_t> bytes, uint64_t pc = 0);

// Decode the instruction at the start of `bytes` (which may hold more). Never
// reads past the span. `pc` is recorded and used in error messages. Like
// applegpu, the first-match test sees up to 12 bytes: bytes after a short
// instruction can select an earlier, longer row (decode code in place).
Result<Instr> decode(std::span<const uint8_t> bytes, uint64_t pc = 0);

// decode() into an existing Instr (no large copies): for decoders that
// keep a cache of decoded instructions, e.g. the emulator. On error `out`
// is unspecified.
Status decode_into(std::span<const uint8_t> bytes, uint64_t pc, Instr& out);

// Which row matches (first match), without decoding operands.
Result<Opcode> identify(std::span<const uint8_t> bytes, uint64_t pc = 0);
// Whether `bytes` has row `op`'s constant bits (whatever row decodes first):
// how a decoded instruction is told apart as a later row applegpu never
// reaches, e.g. Mesa's stack_adjust inside a stack_store encoding.
bool matches_row(Opcode op, std::span<const uint8_t> bytes);

// Encoding: packs instr.op's constants and instr.fields into bytes (the long
// form when a field needs bits beyond the short form, or when instr.length_B
// is already the long form). Bits no field or constant covers are taken
// from instr.bytes, so encode(decode(b)) == b and decode(encode(x)) == x.
// Fails if a field value is out of range or the result would decode as an
// earlier row.
struct Encoded {
  std::array<uint8_t, kMaxLength_B> bytes{};
  uint8_t length_B = 0;
  std::span<const uint8_t> span() const { return {bytes.data(), length_B}; }
};
Result<Encoded> encode(const Instr& instr);
// Encode from an opcode and named field values (others zero).
Result<Encoded> encode_fields(Opcode op, std::span<const std::pair<std::string_view, uint32_t>> fields);

// Disassembly text exactly as applegpu's disassemble.py prints it:
// mnemonic.ljust(16) + " " + operands joined by ", " (empty ones dropped).
// With a pc, branch targets print as "0x%X" of pc + offset; without, as
// "pc+N"/"pc-N".
std::string disassemble(const Instr& instr, std::optional<uint64_t> pc);
// The row's mnemonic with its field suffixes (.sat, isub, imsub), before the
// operand-based aliases (and, not, push_exec, map ...) that disassemble()
// applies.
std::string mnemonic(const Instr& instr);
// One operand's text ("" when dropped).
std::string operand_text(const Instr& instr, size_t i);

// Assemble one line of that text (extra spaces allowed). Branch targets may
// be absolute (0x...; relative to `pc`) or pc+N / pc-N. Errors name the
// column and what was expected.
Result<Encoded> assemble(std::string_view line, uint64_t pc = 0);
// Assemble several instructions separated by ';' or newlines, laid out from
// `base_pc`. Errors name the instruction number and column.
Result<std::vector<uint8_t>> assemble_program(std::string_view text, uint64_t base_pc = 0);

// A stream of `count` valid instructions of random rows and field values
// (each decodes without error), for tests, fuzz seeds and benchmarks.
std::vector<uint8_t> random_stream(size_t count, uint64_t seed);

// Index of the operand named `name` (applegpu's operand name: "D", "A",
// "cc", ...) in a row's operand list, i.e. the Operand::slot it decodes
// into, or -1 when the row has no such operand.
int operand_index(Opcode op, std::string_view name);

// The number an 8-bit float immediate code stands for (kFloatImm's fvalue):
// sign bit 7, exponent bits 4-6, mantissa bits 0-3; exponent 0 gives m/64.
double float_immediate(uint8_t code);

}  // namespace agx::isa
