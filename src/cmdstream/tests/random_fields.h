// Random struct contents for the round-trip tests: raw bits drawn per
// field, so every value is one the field can hold.
#pragma once

#include <random>
#include <vector>

#include "cmdstream/cmdstream.h"

namespace agx::cmdstream::testing {

// Random bytes of a struct whose exact fields hold their exact values.
inline std::vector<uint8_t> random_bytes(const StructDesc& s, std::mt19937_64& rng) {
  Words w{};
  for (unsigned i = 0; i < (s.size_B + 3u) / 4; ++i) w[i] = uint32_t(rng());
  std::vector<uint8_t> out(s.size_B);
  std::memcpy(out.data(), w.data(), s.size_B);
  // Exact fields: clear their bits, then OR their value in.
  for (const FieldDesc& f : s.fields) {
    if (!f.exact) continue;
    Words mask{};
    or_raw(mask.data(), f.start, f.size, ~uint64_t{0});
    Words exact{};
    or_raw(exact.data(), f.start, f.size, *encode_field(s, f, f.exact_value));
    for (unsigned i = 0; i < s.size_B; ++i) {
      unsigned word = i / 4, shift = 8 * (i % 4);
      out[i] = uint8_t((out[i] & ~(mask[word] >> shift)) | (exact[word] >> shift));
    }
  }
  return out;
}

// A random logical value for one field (the decode of random raw bits).
inline uint64_t random_value(const FieldDesc& f, std::mt19937_64& rng) {
  if (f.exact) return f.exact_value;
  return decode_field(f, rng() & low_mask(f.size));
}

}  // namespace agx::cmdstream::testing
