// Every cmdbuf.xml struct, from the rows of cmdstream/tables/*.inc:
//  - a typed struct per XML struct (cmdstream::CdmLaunchWord0), one member
//    per field holding its logical value, defaulted to the field's default;
//  - its field-index enum (CdmLaunchWord0Field::mode);
//  - its table, kCdmLaunchWord0 (a StructDesc), and kAllStructs.
// Member types: bool for bool, float for float/half/lod, int64_t for int,
// the enum class for an enum, uint64_t otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cmdstream/enums.h"
#include "cmdstream/field_table.h"

namespace agx::cmdstream {

template <FieldType T, class E>
struct MemberOf {
  using type = uint64_t;
};
template <class E> struct MemberOf<FieldType::boolean, E> { using type = bool; };
template <class E> struct MemberOf<FieldType::sint, E> { using type = int64_t; };
template <class E> struct MemberOf<FieldType::float32, E> { using type = float; };
template <class E> struct MemberOf<FieldType::half, E> { using type = float; };
template <class E> struct MemberOf<FieldType::lod, E> { using type = float; };
template <class E> struct MemberOf<FieldType::enumeration, E> { using type = E; };

// A logical value (field_table.h) as a member's type, and back.
template <class M>
constexpr M from_logical(uint64_t v) {
  if constexpr (std::is_same_v<M, float>) return from_bits(v);
  else if constexpr (std::is_same_v<M, bool>) return v != 0;
  else return static_cast<M>(v);
}
template <class M>
constexpr uint64_t to_logical(M m) {
  if constexpr (std::is_same_v<M, float>) return to_bits(m);
  else return static_cast<uint64_t>(m);
}

#define AGX_CS_MEMBER(m, ty, mod, arg, size, E, ex, exv)                                   \
  typename MemberOf<FieldType::ty, E>::type m = from_logical<typename MemberOf<FieldType::ty, E>::type>( \
      default_value(FieldType::ty, Modifier::mod, arg, size, ex, exv));

// ---- typed structs -----------------------------------------------------------
#define AGX_STRUCT(Id, name, size_B)                \
  struct Id {                                       \
    static constexpr std::string_view kName = name; \
    static constexpr unsigned kSize_B = size_B;
#define AGX_FIELD(m, name, start, size, ty, mod, arg, E) AGX_CS_MEMBER(m, ty, mod, arg, size, E, false, 0)
#define AGX_EXACT(m, name, start, size, ty, mod, arg, E, v) AGX_CS_MEMBER(m, ty, mod, arg, size, E, true, v)
#define AGX_STRUCT_END(Id) \
  bool operator==(const Id&) const = default; \
  };
#include "cmdstream/tables/all.inc"
#undef AGX_CS_MEMBER

// ---- field indices -----------------------------------------------------------
#define AGX_STRUCT(Id, name, size) enum class Id##Field : uint16_t {
#define AGX_FIELD(m, ...) m,
#define AGX_EXACT(m, ...) m,
#define AGX_STRUCT_END(Id) };
#include "cmdstream/tables/all.inc"

// ---- tables --------------------------------------------------------------------
// k<Id>FieldRows ends with an unused row so that a struct without fields
// still makes an array; k<Id>.fields leaves it out.
#define AGX_STRUCT(Id, name, size) inline constexpr FieldDesc k##Id##FieldRows[] = {
#define AGX_FIELD(m, name, start, size, ty, mod, arg, E) \
  FieldDesc{name, #m, start, size, FieldType::ty, Modifier::mod, arg, enum_desc<E>(), false, 0},
#define AGX_EXACT(m, name, start, size, ty, mod, arg, E, v) \
  FieldDesc{name, #m, start, size, FieldType::ty, Modifier::mod, arg, enum_desc<E>(), true, v},
#define AGX_STRUCT_END(Id)                                                         \
  FieldDesc{}};                                                                    \
  inline constexpr StructDesc k##Id{Id::kName, #Id, Id::kSize_B,                    \
                                    std::span(k##Id##FieldRows, std::size(k##Id##FieldRows) - 1)}; \
  static_assert(table_is_valid(k##Id), #Id);
#include "cmdstream/tables/all.inc"

// Every struct, by family (CDM, USC, image descriptors, PPP, VDM, render).
#define AGX_STRUCT(Id, name, size) &k##Id,
inline constexpr const StructDesc* kAllStructs[] = {
#include "cmdstream/tables/each_struct.inc"
};

// The table of a typed struct.
template <class T> constexpr const StructDesc& desc_of();
#define AGX_STRUCT(Id, name, size) \
  template <>                      \
  constexpr const StructDesc& desc_of<Id>() { return k##Id; }
#include "cmdstream/tables/each_struct.inc"

// A struct by its cmdbuf.xml name (exact spelling, then ignoring case), or
// nullptr.
const StructDesc* find_struct(std::string_view name);
const EnumDesc* find_enum(std::string_view name);

}  // namespace agx::cmdstream
