// Sparse page tables: folios of 256 pages (Mesa src/asahi/layout/layout.c,
// ail_make_miptree's sparse sizes; layout-facts.md §10).
#include "layout/layout.h"
#include "util/bits.h"

namespace agx::layout {

uint32_t sparse_pages_per_layer(const Layout& l) {
  return static_cast<uint32_t>(div_round_up(l.layer_stride_B, kPage_B));
}

Result<uint64_t> sparse_entry_offset_B(const Layout& l, uint32_t layer, uint32_t page) {
  if (layer >= l.request.depth_px)
    return Error::invalid_argument("layer {} out of range: the image has {} layers", layer,
                                   l.request.depth_px);
  if (page >= sparse_pages_per_layer(l))
    return Error::invalid_argument("page {} out of range: a layer has {} pages", page,
                                   sparse_pages_per_layer(l));
  uint64_t folio = uint64_t{layer} * l.sparse_folios_per_layer + page / kSparsePagesPerFolio;
  return (folio * 2 * kSparsePagesPerFolio + page % kSparsePagesPerFolio) * 4;
}

Result<std::vector<uint8_t>> build_sparse_table(const Layout& l, const PageVa& va_of) {
  std::vector<uint8_t> table(l.sparse_table_size_B, 0);
  const uint32_t pages = sparse_pages_per_layer(l);
  for (uint32_t layer = 0; layer < l.request.depth_px; ++layer) {
    for (uint32_t page = 0; page < pages; ++page) {
      std::optional<uint64_t> va = va_of(layer, page);
      if (!va) continue;
      if (*va % kPage_B != 0 || *va > kSparseMaxVa)
        return Error::invalid_argument(
            "layer {} page {}: VA 0x{:x} is not a 16 KiB-aligned address below 0x{:x}", layer, page,
            *va, kSparseMaxVa + 1);
      AGX_TRY(uint64_t at, sparse_entry_offset_B(l, layer, page));
      store_le<uint32_t>(&table[at],
                         kSparseMapped | static_cast<uint32_t>(*va >> kSparsePageShift));
    }
  }
  return table;
}

Result<std::optional<uint64_t>> sparse_page_va(const Layout& l, std::span<const uint8_t> table,
                                               uint32_t layer, uint32_t page) {
  AGX_TRY(uint64_t at, sparse_entry_offset_B(l, layer, page));
  if (at + 4 > table.size())
    return Error::invalid_argument("sparse table of {} B is too small for layer {} page {}",
                                   table.size(), layer, page);
  uint32_t entry = load_le<uint32_t>(&table[at]);
  if (!(entry & kSparseMapped)) return std::optional<uint64_t>{};
  return std::optional<uint64_t>{uint64_t{entry & ~kSparseMapped} << kSparsePageShift};
}

}  // namespace agx::layout
