// The typed API: pack and unpack of the typed structs of tables.h, for
// code that executes packets (no field is looked up by name, unpack does
// not allocate).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cmdstream/tables.h"
#include "util/result.h"

namespace agx::cmdstream {

// Reads a struct from the first T::kSize_B bytes. Every bit pattern reads
// (an unnamed enum value stays in the enum class); only a buffer shorter
// than the struct fails. Bits outside every field are ignored here: the
// generic unpack() of field_table.h reports them.
template <class T>
Result<T> unpack(std::span<const uint8_t> bytes);

// Writes T::kSize_B bytes to out; an out-of-range member is an error naming
// the struct and the field. No allocation unless it fails.
template <class T>
Status pack_into(const T& value, std::span<uint8_t> out);

template <class T>
Result<std::vector<uint8_t>> pack(const T& value) {
  std::vector<uint8_t> out(T::kSize_B);
  AGX_CHECK(pack_into(value, std::span<uint8_t>(out)));
  return out;
}

// A typed struct's logical values in table order (for print and JSON), and
// back.
template <class T>
Values to_values(const T& value);
template <class T>
T from_values(std::span<const uint64_t> values);

#define AGX_STRUCT(Id, name, size)                                  \
  template <>                                                       \
  Result<Id> unpack<Id>(std::span<const uint8_t> bytes);            \
  template <>                                                       \
  Status pack_into<Id>(const Id& value, std::span<uint8_t> out);    \
  template <>                                                       \
  Values to_values<Id>(const Id& value);                            \
  template <>                                                       \
  Id from_values<Id>(std::span<const uint64_t> values);
#include "cmdstream/tables/each_struct.inc"

}  // namespace agx::cmdstream
