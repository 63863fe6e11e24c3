// Sparse tables: sizes from Mesa src/asahi/layout/tests/test-layout.cpp; the
// word index of a page from layout-facts.md §10.
#include <gtest/gtest.h>

#include "layout/layout.h"

namespace agx::layout {
namespace AGX_UNITY_ID {

using format::Format;

TEST(Sparse, EntryIndexFollowsFolios) {
  auto l = make_layout({.format = Format::R8G8B8A8_UNORM,
                        .width_px = 4096,
                        .height_px = 4096,
                        .depth_px = 2,
                        .levels = 13});
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->sparse_folios_per_layer, 22u);  // 85.3 MiB per layer
  EXPECT_EQ(*sparse_entry_offset_B(*l, 0, 0), 0u);
  EXPECT_EQ(*sparse_entry_offset_B(*l, 0, 255), 255u * 4);
  EXPECT_EQ(*sparse_entry_offset_B(*l, 0, 256), 512u * 4);  // second folio, after the counters
  EXPECT_EQ(*sparse_entry_offset_B(*l, 1, 3), (22u * 512 + 3) * 4);
  EXPECT_FALSE(sparse_entry_offset_B(*l, 2, 0).ok());
  EXPECT_FALSE(sparse_entry_offset_B(*l, 0, sparse_pages_per_layer(*l)).ok());
}

TEST(Sparse, BuildAndReadBack) {
  auto l = make_layout({.format = Format::R32_FLOAT,
                        .width_px = 32,
                        .height_px = 16,
                        .depth_px = 64,
                        .levels = 4,
                        .writeable_image = true});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->sparse_table_size_B, 64u * 2048);
  auto va_of = [](uint32_t layer, uint32_t page) -> std::optional<uint64_t> {
    if (layer % 3 == 1) return std::nullopt;  // unbound layers
    return 0x15'0000'0000ull + (uint64_t{layer} * 7 + page) * kPage_B;
  };
  auto table = build_sparse_table(*l, va_of);
  ASSERT_TRUE(table.ok());
  ASSERT_EQ(table->size(), l->sparse_table_size_B);
  for (uint32_t layer = 0; layer < 64; ++layer) {
    auto va = sparse_page_va(*l, *table, layer, 0);
    ASSERT_TRUE(va.ok());
    EXPECT_EQ(*va, va_of(layer, 0)) << layer;
  }
  EXPECT_FALSE(sparse_page_va(*l, std::span<const uint8_t>(*table).first(8), 1, 0).ok());
}

TEST(Sparse, RejectsUnalignedVa) {
  auto l = make_layout({.format = Format::R8_UNORM, .width_px = 256, .height_px = 256});
  ASSERT_TRUE(l.ok());
  auto bad =
      build_sparse_table(*l, [](uint32_t, uint32_t) { return std::optional<uint64_t>(0x1234); });
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("16 KiB-aligned"), std::string::npos);
}

}  // namespace
}  // namespace agx::layout
