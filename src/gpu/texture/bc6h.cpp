// BC6H (BPTC float, signed and unsigned) block decode, written from the
// Khronos Data Format Specification, "BC6H" (the same facts as Microsoft's
// "BC6H Format" page of the Direct3D 11 documentation): the 14 modes with
// their mode codes, region counts, endpoint and delta precisions and the
// order in which each mode scatters endpoint bits through the block; sign
// extension and the inverse delta transform; unquantization to 16 bits;
// interpolation with the BPTC weights; the final scale to half-float bits.
// The 2-region partitions and anchors are BC7's first 32 (texture_bc7.cpp).
#include <array>
#include <cstdint>
#include <string_view>

#include "gpu/texture/texture_internal.h"

namespace agx::gpu::internal {
namespace {

// One run of header bits: `count` stream bits go to endpoint `endpoint`
// (w, x, y, z = 0..3) channel `channel` (r, g, b), the first stream bit to
// bit `first`, the next to first + step (step -1 for the reversed runs).
struct Run {
  uint8_t endpoint, channel, first, count;
  int8_t step;
};

struct Mode {
  uint8_t code;       // the mode bits' value (2 or 5 bits, first stream bit lowest)
  uint8_t code_bits;
  bool transformed;   // endpoints x, y, z are deltas from w
  uint8_t regions;
  uint8_t endpoint_bits;
  std::array<uint8_t, 3> delta_bits;  // per channel (transformed modes)
  // The header after the mode bits, in the specification's notation:
  // `gy[3:0]` is four stream bits going to gy bits 0, 1, 2, 3; `rw[10:15]`
  // (a reversed run) six stream bits going to rw bits 15, 14, ..., 10.
  std::string_view layout;
};

constexpr Mode kBc6hModes[] = {
    {0x00, 2, true, 2, 10, {5, 5, 5},
     "gy[4] by[4] bz[4] rw[9:0] gw[9:0] bw[9:0] rx[4:0] gz[4] gy[3:0] gx[4:0] bz[0] gz[3:0] "
     "bx[4:0] bz[1] by[3:0] ry[4:0] bz[2] rz[4:0] bz[3]"},
    {0x01, 2, true, 2, 7, {6, 6, 6},
     "gy[5] gz[4] gz[5] rw[6:0] bz[0] bz[1] by[4] gw[6:0] by[5] bz[2] gy[4] bw[6:0] bz[3] bz[5] "
     "bz[4] rx[5:0] gy[3:0] gx[5:0] gz[3:0] bx[5:0] by[3:0] ry[5:0] rz[5:0]"},
    {0x02, 5, true, 2, 11, {5, 4, 4},
     "rw[9:0] gw[9:0] bw[9:0] rx[4:0] rw[10] gy[3:0] gx[3:0] gw[10] bz[0] gz[3:0] bx[3:0] "
     "bw[10] bz[1] by[3:0] ry[4:0] bz[2] rz[4:0] bz[3]"},
    {0x06, 5, true, 2, 11, {4, 5, 4},
     "rw[9:0] gw[9:0] bw[9:0] rx[3:0] rw[10] gz[4] gy[3:0] gx[4:0] gw[10] gz[3:0] bx[3:0] "
     "bw[10] bz[1] by[3:0] ry[3:0] bz[0] bz[2] rz[3:0] gy[4] bz[3]"},
    {0x0A, 5, true, 2, 11, {4, 4, 5},
     "rw[9:0] gw[9:0] bw[9:0] rx[3:0] rw[10] by[4] gy[3:0] gx[3:0] gw[10] bz[0] gz[3:0] "
     "bx[4:0] bw[10] by[3:0] ry[3:0] bz[1] bz[2] rz[3:0] bz[4] bz[3]"},
    {0x0E, 5, true, 2, 9, {5, 5, 5},
     "rw[8:0] by[4] gw[8:0] gy[4] bw[8:0] bz[4] rx[4:0] gz[4] gy[3:0] gx[4:0] bz[0] gz[3:0] "
     "bx[4:0] bz[1] by[3:0] ry[4:0] bz[2] rz[4:0] bz[3]"},
    {0x12, 5, true, 2, 8, {6, 5, 5},
     "rw[7:0] gz[4] by[4] gw[7:0] bz[2] gy[4] bw[7:0] bz[3] bz[4] rx[5:0] gy[3:0] gx[4:0] "
     "bz[0] gz[3:0] bx[4:0] bz[1] by[3:0] ry[5:0] rz[5:0]"},
    {0x16, 5, true, 2, 8, {5, 6, 5},
     "rw[7:0] bz[0] by[4] gw[7:0] gy[5] gy[4] bw[7:0] gz[5] bz[4] rx[4:0] gz[4] gy[3:0] "
     "gx[5:0] gz[3:0] bx[4:0] bz[1] by[3:0] ry[4:0] bz[2] rz[4:0] bz[3]"},
    {0x1A, 5, true, 2, 8, {5, 5, 6},
     "rw[7:0] bz[1] by[4] gw[7:0] by[5] gy[4] bw[7:0] bz[5] bz[4] rx[4:0] gz[4] gy[3:0] "
     "gx[4:0] bz[0] gz[3:0] bx[5:0] by[3:0] ry[4:0] bz[2] rz[4:0] bz[3]"},
    {0x1E, 5, false, 2, 6, {6, 6, 6},
     "rw[5:0] gz[4] bz[0] bz[1] by[4] gw[5:0] gy[5] by[5] bz[2] gy[4] bw[5:0] gz[5] bz[3] "
     "bz[5] bz[4] rx[5:0] gy[3:0] gx[5:0] gz[3:0] bx[5:0] by[3:0] ry[5:0] rz[5:0]"},
    {0x03, 5, false, 1, 10, {10, 10, 10},
     "rw[9:0] gw[9:0] bw[9:0] rx[9:0] gx[9:0] bx[9:0]"},
    {0x07, 5, true, 1, 11, {9, 9, 9},
     "rw[9:0] gw[9:0] bw[9:0] rx[8:0] rw[10] gx[8:0] gw[10] bx[8:0] bw[10]"},
    {0x0B, 5, true, 1, 12, {8, 8, 8},
     "rw[9:0] gw[9:0] bw[9:0] rx[7:0] rw[10:11] gx[7:0] gw[10:11] bx[7:0] bw[10:11]"},
    {0x0F, 5, true, 1, 16, {4, 4, 4},
     "rw[9:0] gw[9:0] bw[9:0] rx[3:0] rw[10:15] gx[3:0] gw[10:15] bx[3:0] bw[10:15]"},
};

constexpr unsigned kMaxRuns = 40;
struct ModeRuns {
  std::array<Run, kMaxRuns> runs{};
  unsigned count = 0;
  unsigned bits = 0;  // header bits after the mode bits
};

constexpr unsigned parse_number(std::string_view s, size_t& i) {
  unsigned v = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') v = v * 10 + unsigned(s[i++] - '0');
  return v;
}

// Turns a layout string into runs (at compile time: a malformed table does
// not build).
constexpr ModeRuns parse(std::string_view s) {
  ModeRuns m;
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == ' ') {
      ++i;
      continue;
    }
    const char c = s[i], e = s[i + 1];
    Run r{};
    r.channel = c == 'r' ? 0 : c == 'g' ? 1 : c == 'b' ? 2 : throw "bad channel";
    r.endpoint = e == 'w' ? 0 : e == 'x' ? 1 : e == 'y' ? 2 : e == 'z' ? 3 : throw "bad endpoint";
    i += 2;
    if (s[i++] != '[') throw "expected [";
    const unsigned a = parse_number(s, i);
    unsigned b = a;
    if (s[i] == ':') {
      ++i;
      b = parse_number(s, i);
    }
    if (s[i++] != ']') throw "expected ]";
    // [a:b]: the first stream bit goes to bit b, then toward a.
    r.first = uint8_t(b);
    r.step = a >= b ? 1 : -1;
    r.count = uint8_t((a >= b ? a - b : b - a) + 1);
    if (m.count == kMaxRuns) throw "too many runs";
    m.runs[m.count++] = r;
    m.bits += r.count;
  }
  return m;
}

constexpr std::array<ModeRuns, std::size(kBc6hModes)> parse_all() {
  std::array<ModeRuns, std::size(kBc6hModes)> out{};
  for (size_t k = 0; k < std::size(kBc6hModes); ++k) {
    out[k] = parse(kBc6hModes[k].layout);
    // Every mode's header fills 82 bits (two regions, then 5 partition
    // bits) or 65 bits (one region), mode bits included.
    const unsigned want = kBc6hModes[k].regions == 2 ? 77 : 65;
    if (out[k].bits + kBc6hModes[k].code_bits != want) throw "header length";
  }
  return out;
}
constexpr auto kRuns = parse_all();

int sign_extend(int v, unsigned bits) {
  const int m = 1 << (bits - 1);
  v &= (1 << bits) - 1;
  return (v ^ m) - m;
}

int unquantize(int c, unsigned bits, bool is_signed) {
  if (!is_signed) {
    if (bits >= 15) return c;
    if (c == 0) return 0;
    if (c == (1 << bits) - 1) return 0xFFFF;
    return ((c << 16) + 0x8000) >> bits;
  }
  if (bits >= 16) return c;
  const bool neg = c < 0;
  int m = neg ? -c : c;
  int u;
  if (m == 0) u = 0;
  else if (m >= (1 << (bits - 1)) - 1) u = 0x7FFF;
  else u = ((m << 15) + 0x4000) >> (bits - 1);
  return neg ? -u : u;
}

uint16_t finish(int v, bool is_signed) {
  if (!is_signed) return uint16_t((v * 31) >> 6);
  if (v < 0) return uint16_t(0x8000 | (((-v) * 31) >> 5));
  return uint16_t((v * 31) >> 5);
}

}  // namespace

void decode_bc6h(const uint8_t* block, bool is_signed,
                 std::array<std::array<uint16_t, 3>, 16>& out) {
  unsigned code = block[0] & 3;
  if (code >= 2) code = block[0] & 31;
  const Mode* mode = nullptr;
  size_t k = 0;
  for (; k < std::size(kBc6hModes); ++k)
    if (kBc6hModes[k].code == code && (kBc6hModes[k].code_bits == 2) == (code < 2)) {
      mode = &kBc6hModes[k];
      break;
    }
  if (mode == nullptr) {  // reserved mode codes decode to zero
    for (auto& t : out) t = {0, 0, 0};
    return;
  }
  Bits bits(block);
  bits.read(mode->code_bits);
  int ep[4][3] = {};  // endpoints w, x, y, z; channels r, g, b
  const ModeRuns& runs = kRuns[k];
  for (unsigned r = 0; r < runs.count; ++r) {
    const Run& run = runs.runs[r];
    for (unsigned i = 0; i < run.count; ++i)
      ep[run.endpoint][run.channel] |= int(bits.read(1)) << (run.first + run.step * int(i));
  }
  const unsigned partition = mode->regions == 2 ? bits.read(5) : 0;
  const unsigned n_ep = 2u * mode->regions;
  const unsigned eb = mode->endpoint_bits;
  for (unsigned c = 0; c < 3; ++c) {
    if (is_signed) ep[0][c] = sign_extend(ep[0][c], eb);
    for (unsigned e = 1; e < n_ep; ++e) {
      if (mode->transformed) {
        const int d = sign_extend(ep[e][c], mode->delta_bits[c]);
        ep[e][c] = (ep[0][c] + d) & ((1 << eb) - 1);
        if (is_signed) ep[e][c] = sign_extend(ep[e][c], eb);
      } else if (is_signed) {
        ep[e][c] = sign_extend(ep[e][c], eb);
      }
    }
    for (unsigned e = 0; e < n_ep; ++e) ep[e][c] = unquantize(ep[e][c], eb, is_signed);
  }
  const unsigned index_bits = mode->regions == 2 ? 3 : 4;
  const BptcIndices indices = bptc_read_indices(bits, mode->regions, partition, index_bits);
  for (unsigned t = 0; t < 16; ++t) {
    const unsigned s = indices.subset[t];
    const int w = int(bptc_weight(index_bits, indices.index[t]));
    for (unsigned c = 0; c < 3; ++c) {
      const int v = ((64 - w) * ep[2 * s][c] + w * ep[2 * s + 1][c] + 32) >> 6;
      out[t][c] = finish(v, is_signed);
    }
  }
}

}  // namespace agx::gpu::internal
