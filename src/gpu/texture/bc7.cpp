// BC7 (BPTC unorm) block decode, written from the Khronos Data Format
// Specification, "BPTC Compressed Texture Image Formats": the mode table
// (subsets, partition / rotation / index-selection bits, colour and alpha
// precision, endpoint and shared P-bits, index precisions), the 2- and
// 3-subset partition tables with their anchor indices, and the 2/3/4-bit
// interpolation weights. Tables restated here as the specification lists
// them (also tabulated in Microsoft's DirectXTex BC6HBC7.cpp).
#include <array>
#include <cstdint>

#include "gpu/texture/texture_internal.h"

namespace agx::gpu::internal {
namespace {

struct Bc7Mode {
  uint8_t subsets, partition_bits, rotation_bits, selection_bits, colour_bits, alpha_bits,
      endpoint_pbits, shared_pbits, index_bits, index2_bits;
};
constexpr Bc7Mode kBc7Modes[8] = {
    {3, 4, 0, 0, 4, 0, 1, 0, 3, 0}, {2, 6, 0, 0, 6, 0, 0, 1, 3, 0},
    {3, 6, 0, 0, 5, 0, 0, 0, 2, 0}, {2, 6, 0, 0, 7, 0, 1, 0, 2, 0},
    {1, 0, 2, 1, 5, 6, 0, 0, 2, 3}, {1, 0, 2, 0, 7, 8, 0, 0, 2, 2},
    {1, 0, 0, 0, 7, 7, 1, 0, 4, 0}, {2, 6, 0, 0, 5, 5, 1, 0, 2, 0},
};

// Subset of each texel (x + 4 y) per partition.
constexpr const char* kPartition2[64] = {
    "0011001100110011", "0001000100010001", "0111011101110111", "0001001100110111",
    "0000000100010011", "0011011101111111", "0001001101111111", "0000000100110111",
    "0000000000010011", "0011011111111111", "0000000101111111", "0000000000010111",
    "0001011111111111", "0000000011111111", "0000111111111111", "0000000000001111",
    "0000100011101111", "0111000100000000", "0000000010001110", "0111001100010000",
    "0011000100000000", "0000100011001110", "0000000010001100", "0111001100110001",
    "0011000100010000", "0000100010001100", "0110011001100110", "0011011001101100",
    "0001011111101000", "0000111111110000", "0111000110001110", "0011100110011100",
    "0101010101010101", "0000111100001111", "0101101001011010", "0011001111001100",
    "0011110000111100", "0101010110101010", "0110100101101001", "0101101010100101",
    "0111001111001110", "0001001111001000", "0011001001001100", "0011101111011100",
    "0110100110010110", "0011110011000011", "0110011010011001", "0000011001100000",
    "0100111001000000", "0010011100100000", "0000001001110010", "0000010011100100",
    "0110110010010011", "0011011011001001", "0110001110011100", "0011100111000110",
    "0110110011001001", "0110001100111001", "0111111010000001", "0001100011100111",
    "0000111100110011", "0011001111110000", "0010001011101110", "0100010001110111"};
constexpr const char* kPartition3[64] = {
    "0011001102212222", "0001001122112221", "0000200122112211", "0222002200110111",
    "0000000011221122", "0011001100220022", "0022002211111111", "0011001122112211",
    "0000000011112222", "0000111111112222", "0000111122222222", "0012001200120012",
    "0112011201120112", "0122012201220122", "0011011211221222", "0011200122002220",
    "0001001101121122", "0111001120012200", "0000112211221122", "0022002200221111",
    "0111011102220222", "0001000122212221", "0000001101220122", "0000110022102210",
    "0122012200110000", "0012001211222222", "0110122112210110", "0000011012211221",
    "0022110211020022", "0110011020022222", "0011012201220011", "0000200022112221",
    "0000000211221222", "0222002200120011", "0011001200220222", "0120012001200120",
    "0000111122220000", "0120120120120120", "0120201212010120", "0011220011220011",
    "0011112222000011", "0101010122222222", "0000000021212121", "0022112200221122",
    "0022001100220011", "0220122102201221", "0101222222220101", "0000212121212121",
    "0101010101012222", "0222011102220111", "0002111200021112", "0000211221122112",
    "0222011101110222", "0002111211120002", "0110011001102222", "0000000021122112",
    "0110011022222222", "0022001100110022", "0022112211220022", "0000000000002112",
    "0002000100020001", "0222122202221222", "0101222222222222", "0111201122012220"};
// Anchor texel of subset 1 (2 subsets), and of subsets 1 and 2 (3 subsets).
constexpr uint8_t kAnchor2[64] = {15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
                                  15, 2,  8,  2,  2,  8,  8,  15, 2,  8,  2,  2,  8,  8,  2,  2,
                                  15, 15, 6,  8,  2,  8,  15, 15, 2,  8,  2,  2,  2,  15, 15, 6,
                                  6,  2,  6,  8,  15, 15, 2,  2,  15, 15, 15, 15, 15, 2,  2,  15};
constexpr uint8_t kAnchor3a[64] = {3,  3,  15, 15, 8,  3,  15, 15, 8,  8,  6,  6,  6,  5,  3,  3,
                                   3,  3,  8,  15, 3,  3,  6,  10, 5,  8,  8,  6,  8,  5,  15, 15,
                                   8,  15, 3,  5,  6,  10, 8,  15, 15, 3,  15, 5,  15, 15, 15, 15,
                                   3,  15, 5,  5,  5,  8,  5,  10, 5,  10, 8,  13, 15, 12, 3,  3};
constexpr uint8_t kAnchor3b[64] = {15, 8,  8,  3,  15, 15, 3,  8,  15, 15, 15, 15, 15, 15, 15, 8,
                                   15, 8,  15, 3,  15, 8,  15, 8,  3,  15, 6,  10, 15, 15, 10, 8,
                                   15, 3,  15, 10, 10, 8,  9,  10, 6,  15, 8,  15, 3,  6,  6,  8,
                                   15, 3,  15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 3,  15, 15, 8};
constexpr uint8_t kWeights2[4] = {0, 21, 43, 64};
constexpr uint8_t kWeights3[8] = {0, 9, 18, 27, 37, 46, 55, 64};
constexpr uint8_t kWeights4[16] = {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64};

const uint8_t* weights(unsigned bits) {
  return bits == 2 ? kWeights2 : bits == 3 ? kWeights3 : kWeights4;
}

int unquantize(uint32_t v, unsigned prec) {
  v <<= 8 - prec;
  return int(v | (v >> prec)) & 255;
}

}  // namespace

// The partitions, their anchors and the interpolation weights are shared
// with BC6H, which uses the first 32 2-subset partitions.
BptcIndices bptc_read_indices(Bits& bits, unsigned subsets, unsigned partition, unsigned index_bits) {
  partition &= 63;
  BptcIndices out;
  for (unsigned t = 0; t < 16; ++t) {
    bool anchor = t == 0;
    if (subsets == 2) {
      out.subset[t] = uint8_t(kPartition2[partition][t] - '0');
      anchor = anchor || t == kAnchor2[partition];
    } else if (subsets == 3) {
      out.subset[t] = uint8_t(kPartition3[partition][t] - '0');
      anchor = anchor || t == kAnchor3a[partition] || t == kAnchor3b[partition];
    }
    out.index[t] = bits.read(index_bits - (anchor ? 1 : 0));
  }
  return out;
}
unsigned bptc_weight(unsigned index_bits, unsigned index) {
  return weights(index_bits)[index & ((1u << index_bits) - 1)];
}

// Decodes one BC7 block to 16 RGBA8 texels (x + 4 y). A block without a
// mode bit is reserved and decodes to zero.
void decode_bc7(const uint8_t* block, std::array<std::array<int, 4>, 16>& out) {
  unsigned mode = 0;
  while (mode < 8 && !((block[0] >> mode) & 1)) ++mode;
  if (mode == 8) {
    for (auto& t : out) t = {0, 0, 0, 0};
    return;
  }
  const Bc7Mode& m = kBc7Modes[mode];
  Bits bits(block);
  bits.read(mode + 1);
  const uint32_t partition = bits.read(m.partition_bits);
  const uint32_t rotation = bits.read(m.rotation_bits);
  const uint32_t selection = bits.read(m.selection_bits);
  const unsigned ns = m.subsets, ne = 2 * ns;
  int ep[6][4] = {};
  for (unsigned c = 0; c < 3; ++c)
    for (unsigned e = 0; e < ne; ++e) ep[e][c] = int(bits.read(m.colour_bits));
  for (unsigned e = 0; e < ne; ++e) ep[e][3] = m.alpha_bits ? int(bits.read(m.alpha_bits)) : 255;
  unsigned cprec = m.colour_bits, aprec = m.alpha_bits;
  if (m.endpoint_pbits || m.shared_pbits) {
    uint32_t p[6];
    if (m.endpoint_pbits)
      for (unsigned e = 0; e < ne; ++e) p[e] = bits.read(1);
    else
      for (unsigned s = 0; s < ns; ++s) p[2 * s] = p[2 * s + 1] = bits.read(1);
    for (unsigned e = 0; e < ne; ++e) {
      for (unsigned c = 0; c < 3; ++c) ep[e][c] = ep[e][c] << 1 | int(p[e]);
      if (m.alpha_bits) ep[e][3] = ep[e][3] << 1 | int(p[e]);
    }
    ++cprec;
    if (aprec) ++aprec;
  }
  for (unsigned e = 0; e < ne; ++e) {
    for (unsigned c = 0; c < 3; ++c) ep[e][c] = unquantize(uint32_t(ep[e][c]), cprec);
    if (aprec) ep[e][3] = unquantize(uint32_t(ep[e][3]), aprec);
  }
  const BptcIndices first = bptc_read_indices(bits, ns, partition, m.index_bits);
  uint32_t idx2[16] = {};
  if (m.index2_bits)
    for (unsigned t = 0; t < 16; ++t) idx2[t] = bits.read(m.index2_bits - (t == 0 ? 1 : 0));
  for (unsigned t = 0; t < 16; ++t) {
    const unsigned s = first.subset[t];
    const int* e0 = ep[2 * s];
    const int* e1 = ep[2 * s + 1];
    unsigned ci = first.index[t], cbits = m.index_bits, ai = first.index[t], abits = m.index_bits;
    if (m.index2_bits) {
      if (selection) {
        ci = idx2[t];
        cbits = m.index2_bits;
      } else {
        ai = idx2[t];
        abits = m.index2_bits;
      }
    }
    const int wc = weights(cbits)[ci], wa = weights(abits)[ai];
    std::array<int, 4> px{};
    for (unsigned c = 0; c < 3; ++c) px[c] = ((64 - wc) * e0[c] + wc * e1[c] + 32) >> 6;
    px[3] = ((64 - wa) * e0[3] + wa * e1[3] + 32) >> 6;
    if (rotation) std::swap(px[3], px[rotation - 1]);
    out[t] = px;
  }
}

}  // namespace agx::gpu::internal
