// Unpack of every cmdbuf.xml struct from arbitrary bytes: the first byte
// picks the struct, the rest are its bytes. Unpack must never refuse a
// full-size struct, the typed and generic paths must agree, and packing the
// values back must give every covered bit (exact fields restored first).
// Bytes that are not a struct are also fed to the --batch line parsers.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "cmdstream/cmdstream.h"

namespace cs = agx::cmdstream;

namespace {

template <class T>
void typed_agrees(std::span<const uint8_t> bytes, const cs::Values& values) {
  auto t = cs::unpack<T>(bytes);
  if (!t.ok()) __builtin_trap();
  cs::Values tv = cs::to_values(*t);
  for (size_t i = 0; i < tv.size(); ++i)
    if (tv[i] != values[i]) __builtin_trap();
}

void typed_agrees(const cs::StructDesc& s, std::span<const uint8_t> bytes, const cs::Values& v) {
#define AGX_STRUCT(Id, name, size_B) \
  if (&s == &cs::k##Id) return typed_agrees<cs::Id>(bytes, v);
#include "cmdstream/tables/each_struct.inc"
  __builtin_trap();  // every table has its typed struct
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)cs::batch_unpack_line(text);
  (void)cs::batch_pack_line(text);

  const cs::StructDesc& s = *cs::kAllStructs[data[0] % std::size(cs::kAllStructs)];
  std::vector<uint8_t> bytes(data + 1, data + size);
  if (bytes.size() < s.size_B) {
    if (cs::unpack(s, bytes).ok()) __builtin_trap();  // a short buffer is the one error
    bytes.resize(s.size_B, 0);
  }
  bytes.resize(s.size_B);
  auto u = cs::unpack(s, bytes);
  if (!u.ok()) __builtin_trap();
  (void)cs::print(s, *u);
  (void)cs::fields_to_json(s, u->values).dump();
  typed_agrees(s, bytes, u->values);

  cs::Values v = u->values;
  for (size_t i = 0; i < v.size(); ++i)
    if (s.fields[i].exact) v[i] = s.fields[i].exact_value;
  auto packed = cs::pack(s, v);
  if (!packed.ok()) __builtin_trap();
  std::vector<uint8_t> covered = cs::covered_bits(s);
  for (size_t i = 0; i < bytes.size(); ++i) {
    // Exact fields' bits now hold the exact value; the rest must come back.
    if (u->exact_mismatches.empty() && (*packed)[i] != (bytes[i] & covered[i])) __builtin_trap();
    if ((u->unknown_bits[i] & covered[i]) != 0) __builtin_trap();
  }
  return 0;
}
