// The text and JSON reports of a layout.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tilebuffer/report.h"

namespace agx::tilebuffer {
namespace AGX_UNITY_ID {

Layout mrt() {
  RenderTargets t{};
  t[0] = format::Format::R8G8B8A8_UNORM;
  t[2] = format::Format::R10G10B10A2_UNORM;
  auto l = build_layout(t, 1);
  EXPECT_TRUE(l.ok());
  return l.ok() ? *l : Layout{};
}

TEST(TilebufferReport, Text) {
  EXPECT_EQ(report_text(mrt()),
            "tile 32x32 px, 1 sample(s), 8 B per sample, 8192 B of tile memory\n"
            "rt0: R8G8B8A8_UNORM (U8NORM) at 4 B, 4 B\n"
            "rt2: R10G10B10A2_UNORM (RGB10A2) at 0 B, 4 B, no component mask\n"
            "USC Shared: 4dbd1020\n");
}

TEST(TilebufferReport, Json) {
  auto j = nlohmann::json::parse(report_json(mrt()));
  EXPECT_EQ(j["tile_width_px"], 32);
  EXPECT_EQ(j["total_B"], 8192);
  ASSERT_EQ(j["render_targets"].size(), 2u);
  EXPECT_EQ(j["render_targets"][1]["index"], 2);
  EXPECT_EQ(j["render_targets"][1]["isa_format"], "RGB10A2");
  EXPECT_EQ(j["render_targets"][1]["supports_mask"], false);
  EXPECT_EQ(j["usc_shared"], "4dbd1020");
}

}  // namespace
}  // namespace agx::tilebuffer
