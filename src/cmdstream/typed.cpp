// The typed API's pack/unpack, one specialization per struct, generated from
// the table rows: each field is read with its constant position, so the
// compiler folds the table away.
#include "cmdstream/typed.h"

#include <array>
#include <cstring>

namespace agx::cmdstream {
namespace {

Error short_input(const StructDesc& s, size_t size_B) {
  return Error::decode("{}: {} bytes given, the struct has {}", s.name, size_B, unsigned(s.size_B));
}

// One field, its row's constants as template arguments so that each read
// compiles to a shift and a mask.
template <class M, FieldType T, Modifier Mod, uint32_t Arg, unsigned Start, unsigned Size>
inline M read_field(const uint32_t* w) {
  constexpr FieldDesc f{"", "", Start, Size, T, Mod, Arg};
  return from_logical<M>(decode_field(f, get_raw(w, Start, Size)));
}

}  // namespace

#define AGX_CS_READ(m, start, size, ty, mod, arg) \
  out.m = read_field<decltype(out.m), FieldType::ty, Modifier::mod, arg, start, size>(w.data());
#define AGX_STRUCT(Id, name, size_B)                                      \
  template <>                                                           \
  Result<Id> unpack<Id>(std::span<const uint8_t> bytes) {               \
    constexpr const StructDesc& d = k##Id;                              \
    Words w;                                                            \
    if (!load_words(d, bytes, w)) return short_input(d, bytes.size());  \
    Id out;
#define AGX_FIELD(m, name, start, size, ty, mod, arg, E) AGX_CS_READ(m, start, size, ty, mod, arg)
#define AGX_EXACT(m, name, start, size, ty, mod, arg, E, v) AGX_CS_READ(m, start, size, ty, mod, arg)
#define AGX_STRUCT_END(Id) \
  return out;              \
  }
#include "cmdstream/tables/all.inc"

#define AGX_STRUCT(Id, name, size_B)                                              \
  template <>                                                                   \
  Status pack_into<Id>(const Id& in, std::span<uint8_t> out) {                  \
    std::array<uint64_t, std::size(k##Id##FieldRows)> v{};                      \
    size_t n = 0;
#define AGX_FIELD(m, ...) v[n++] = to_logical(in.m);
#define AGX_EXACT(m, ...) v[n++] = to_logical(in.m);
#define AGX_STRUCT_END(Id) \
  return pack_into(k##Id, std::span<const uint64_t>(v.data(), n), out); \
  }
#include "cmdstream/tables/all.inc"

#define AGX_STRUCT(Id, name, size_B)              \
  template <>                                   \
  Values to_values<Id>(const Id& in) {          \
    Values v;                                   \
    v.reserve(k##Id.fields.size());
#define AGX_FIELD(m, ...) v.push_back(to_logical(in.m));
#define AGX_EXACT(m, ...) v.push_back(to_logical(in.m));
#define AGX_STRUCT_END(Id) \
  return v;                \
  }
#include "cmdstream/tables/all.inc"

#define AGX_CS_FROM(m) \
  if (size_t(F::m) < values.size()) out.m = from_logical<decltype(out.m)>(values[size_t(F::m)]);
#define AGX_STRUCT(Id, name, size_B)                                 \
  template <>                                                      \
  Id from_values<Id>(std::span<const uint64_t> values) {           \
    using F [[maybe_unused]] = Id##Field;                          \
    Id out;
#define AGX_FIELD(m, ...) AGX_CS_FROM(m)
#define AGX_EXACT(m, ...) AGX_CS_FROM(m)
#define AGX_STRUCT_END(Id) \
  return out;              \
  }
#include "cmdstream/tables/all.inc"

}  // namespace agx::cmdstream
