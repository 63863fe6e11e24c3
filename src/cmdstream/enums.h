// Every cmdbuf.xml enum as a C++ enum class and an EnumDesc (names and
// values), built from the project's one table of them,
// format/genxml_enums.h. Channels and TextureType are the format unit's.
//
// Enumerators are k + the XML name in PascalCase (CdmMode::kIndirectGlobal,
// TextureDimension::k2DArray, Channel::k1), except the format unit's
// Channels (Channels::R8G8B8A8) and TextureType (TextureType::Unorm).
// A field holding a value the XML does not name keeps it: an enum class may
// hold any value of its underlying type.
#pragma once

#include <cstdint>
#include <span>

#include "cmdstream/field_table.h"
#include "format/format.h"
#include "format/genxml_enums.h"

namespace agx::cmdstream {

#define AGX_CS_ENUM_VALUE(id, name, value) id = value,
#define AGX_CS_DEFINE_format(Id) using Id = format::Id;
#define AGX_CS_DEFINE_cmdstream(Id) enum class Id : uint32_t { AGX_GENXML_ENUM_##Id(AGX_CS_ENUM_VALUE) };
#define AGX_CS_ENUM(Id, name, owner) AGX_CS_DEFINE_##owner(Id)
AGX_GENXML_ENUMS(AGX_CS_ENUM)
#undef AGX_CS_ENUM
#undef AGX_CS_DEFINE_cmdstream
#undef AGX_CS_DEFINE_format
#undef AGX_CS_ENUM_VALUE

#define AGX_CS_ENUM_ROW(id, name, value) EnumValue{name, value},
#define AGX_CS_ENUM(Id, name, owner)                                                    \
  inline constexpr EnumValue k##Id##Values[] = {AGX_GENXML_ENUM_##Id(AGX_CS_ENUM_ROW)}; \
  inline constexpr EnumDesc k##Id##Enum{name, #Id, k##Id##Values};
AGX_GENXML_ENUMS(AGX_CS_ENUM)
#undef AGX_CS_ENUM
#undef AGX_CS_ENUM_ROW

// Every enum, in cmdbuf.xml order.
#define AGX_CS_ENUM(Id, name, owner) &k##Id##Enum,
inline constexpr const EnumDesc* kAllEnums[] = {AGX_GENXML_ENUMS(AGX_CS_ENUM)};
#undef AGX_CS_ENUM

// The EnumDesc of an enum class (nullptr for void: a field without enum).
template <class E>
constexpr const EnumDesc* enum_desc() {
  return nullptr;
}
#define AGX_CS_ENUM(Id, name, owner) \
  template <>                        \
  constexpr const EnumDesc* enum_desc<Id>() { return &k##Id##Enum; }
AGX_GENXML_ENUMS(AGX_CS_ENUM)
#undef AGX_CS_ENUM

// The cmdbuf.xml name of a value, or empty when the XML names none.
template <class E>
  requires(enum_desc<E>() != nullptr)
std::string_view to_string(E e) {
  return enum_name(*enum_desc<E>(), uint64_t(e));
}

}  // namespace agx::cmdstream
