// Random valid instruction streams: random rows, random field values
// (small values often, as in real code). Decoding looks at up to 12 bytes,
// so an instruction can read differently once bytes follow it (as in
// applegpu's disassemble.py); a candidate is kept only if every instruction
// it can affect still decodes as written.
#include <random>

#include "isa/internal.h"

namespace agx::isa {

namespace {

struct Placed {
  size_t offset;
  Opcode op;
  uint8_t length_B;
};

std::optional<Encoded> random_encoding(std::mt19937_64& rng) {
  Instr in;
  in.op = static_cast<Opcode>(rng() % kOpcodeCount);
  auto fields = detail::fields_of(in.op);
  in.field_count = static_cast<uint8_t>(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    unsigned w = fields[i].width();
    uint64_t v = rng();
    if (rng() % 3 == 0) v &= 3;
    in.fields[i] = static_cast<uint32_t>(w >= 32 ? v : v & ((uint64_t{1} << w) - 1));
  }
  auto e = encode(in);
  if (!e) return std::nullopt;
  return *e;
}

// Whether every instruction whose 12-byte window reaches the bytes added at
// `added` still decodes as placed.
bool still_decodes(const std::vector<uint8_t>& out, const std::vector<Placed>& placed, size_t added) {
  for (size_t i = placed.size(); i-- > 0;) {
    const Placed& p = placed[i];
    if (p.offset + kMaxLength_B <= added) break;
    auto in = decode(std::span<const uint8_t>(out).subspan(p.offset), p.offset);
    if (!in || in->op != p.op || in->length_B != p.length_B) return false;
  }
  return true;
}

}  // namespace

std::vector<uint8_t> random_stream(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> out;
  std::vector<Placed> placed;
  out.reserve(count * 8);
  while (placed.size() < count) {
    auto e = random_encoding(rng);
    if (!e) continue;
    auto alone = decode(e->span());
    if (!alone) continue;
    size_t at = out.size();
    out.insert(out.end(), e->bytes.begin(), e->bytes.begin() + e->length_B);
    placed.push_back({at, alone->op, e->length_B});
    if (!still_decodes(out, placed, at)) {
      out.resize(at);
      placed.pop_back();
    }
  }
  return out;
}

}  // namespace agx::isa
