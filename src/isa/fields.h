// The isa table read at compile time, for code that executes instructions:
// fields by compile-time index (no lookup by name) and applegpu's
// TEX_SIZES. Part of the isa unit's public API beside isa.h.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "isa/isa.h"

namespace agx::isa {

// ---------------------------------------------------------------------------
// Fields by compile-time index. field_id(op, "name") is the position of the
// row's field (applegpu's name) in Instr::fields, computed from table.inc
// at compile time: a name the row does not have does not compile. Code that
// executes instructions reads in.fields[field_id(...)] with no lookup.
namespace detail {
struct FieldName {
  Opcode op;
  std::string_view name;
};
inline constexpr FieldName kFieldNames[] = {
#define AGX_ISA_FIELD(id, name, ...) {Opcode::id, name},
#include "isa/table.inc"
#undef AGX_ISA_FIELD
};
// Not constexpr: reaching it in a constant evaluation fails to compile.
void no_such_field();
}  // namespace detail

// The same lookup as a constexpr function that does not fail: kMaxFields
// when the row has no such field (for tables of field indices built by
// constexpr functions, which cannot call field_id with their parameters).
constexpr size_t find_field_id(Opcode op, std::string_view name) {
  size_t index = 0;
  for (const detail::FieldName& f : detail::kFieldNames) {
    if (f.op != op) continue;
    if (f.name == name) return index;
    ++index;
  }
  return kMaxFields;
}

consteval size_t field_id(Opcode op, std::string_view name) {
  const size_t index = find_field_id(op, name);
  if (index == kMaxFields) detail::no_such_field();
  return index;
}

// ---------------------------------------------------------------------------
// The registers a texture instruction's coordinates take, per value of its
// dimension field n (1d, 1d_array, 2d, 2d_array, 2d_ms, 3d, cube,
// cube_array, 2d_ms_array): `count` coordinates (32-bit, or 16-bit with Cs)
// and `extra` 16-bit halves after them (array layer, sample index).
// dougallj/applegpu applegpu.py TEX_SIZES: the project's one copy.
struct TexSize {
  uint8_t count, extra;
};
inline constexpr size_t kTexDimCount = 9;
inline constexpr std::array<TexSize, kTexDimCount> kTexSizes = {
    {{1, 0}, {1, 1}, {2, 0}, {2, 1}, {2, 1}, {3, 0}, {3, 0}, {3, 1}, {2, 2}}};
// kTexSizes[n], or nullopt for a dimension code applegpu does not define.
constexpr std::optional<TexSize> tex_size(uint32_t n) {
  if (n >= kTexDimCount) return std::nullopt;
  return kTexSizes[n];
}


}  // namespace agx::isa
