// `agx shader-test --report`: the probe records' JSON (round trip, and
// malformed records named) and the page (counts, escaping, the probed
// region placed on the picture with GL's bottom-left rows, the colours).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "shadertest/report.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

ProbeFailure sample_failure() {
  ProbeFailure f;
  f.text = "Probe color at (30,40)\n  Expected: 0 255 0\n  Observed: 255 0 0";
  f.region = {25, 50, 100, 50};
  f.x = 30;
  f.y = 60;
  f.expected = {0, 1, 0, 1};
  f.observed = {1, 0, 0, 1};
  f.channels = 3;
  f.fb_width_px = 250;
  f.fb_height_px = 200;
  f.line = 17;
  return f;
}

TEST(Report, ProbeRecordsRoundTripThroughJson) {
  ProbeFailure depth = sample_failure();
  depth.kind = ProbeFailure::Kind::depth;
  depth.expected = {0.25f, 0, 0, 0};
  depth.observed = {std::numeric_limits<float>::quiet_NaN(), 0, 0, 0};
  auto back = parse_probe_failures(probe_failures_json({sample_failure(), depth}));
  ASSERT_TRUE(back.ok()) << back.error().message();
  ASSERT_EQ(back->size(), 2u);
  const ProbeFailure& f = (*back)[0];
  EXPECT_EQ(f.kind, ProbeFailure::Kind::color);
  EXPECT_EQ(f.text, sample_failure().text);
  EXPECT_EQ(f.region.x, 25);
  EXPECT_EQ(f.region.h, 50);
  EXPECT_EQ(f.y, 60);
  EXPECT_EQ(f.observed, (Rgba{1, 0, 0, 1}));
  EXPECT_EQ(f.channels, 3);
  EXPECT_EQ(f.fb_height_px, 200u);
  EXPECT_EQ(f.line, 17u);
  EXPECT_EQ((*back)[1].kind, ProbeFailure::Kind::depth);
  EXPECT_TRUE(std::isnan((*back)[1].observed[0]));  // JSON's null
}

TEST(Report, MalformedProbeRecordsAreNamed) {
  auto msg = [](const char* json) {
    auto r = parse_probe_failures(json);
    return r.ok() ? std::string("ok") : r.error().message();
  };
  EXPECT_NE(msg("[").find("not JSON"), std::string::npos);
  EXPECT_NE(msg("{}").find("not a JSON array"), std::string::npos);
  EXPECT_NE(msg("[1]").find("probe record 0: not an object"), std::string::npos);
  std::string good = probe_failures_json({sample_failure()});
  EXPECT_EQ(msg(good.c_str()), "ok");
  auto broken = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return msg(s.c_str());
  };
  EXPECT_NE(broken("\"color\"", "\"purple\"").find("'kind'"), std::string::npos);
  EXPECT_NE(broken("[25,50,100,50]", "[25,50]").find("'region'"), std::string::npos);
  EXPECT_NE(broken("[250,200]", "[0,200]").find("'framebuffer'"), std::string::npos);
  EXPECT_NE(broken("\"channels\":3", "\"channels\":9").find("'channels'"), std::string::npos);
  EXPECT_NE(broken("\"line\":17", "\"line\":-1").find("'line'"), std::string::npos);
}

TEST(Report, PageCountsFilesAndMarksTheProbedRegion) {
  ReportFile pass{"spec/a&b.shader_test", Outcome::pass, "", 12.5, "png/a.png", {}};
  ReportFile skip{"spec/skip.shader_test", Outcome::skip, "GL_FOO is not supported", 1.0, "", {}};
  ReportFile fail{"spec/<fail>.shader_test", Outcome::fail, "Probe color at (30,40)", 80.0, "png/fail.png",
                  {sample_failure()}};
  std::string page = report_html({pass, skip, fail}, "run");
  EXPECT_NE(page.find("3 files: 1 passed, 1 failed, 1 skipped, 0 crashed"), std::string::npos);
  EXPECT_NE(page.find("spec/a&amp;b.shader_test"), std::string::npos);
  EXPECT_EQ(page.find("<fail>"), std::string::npos);  // escaped
  EXPECT_NE(page.find("spec/&lt;fail&gt;.shader_test"), std::string::npos);
  EXPECT_NE(page.find("GL_FOO is not supported"), std::string::npos);
  // Region (25, 50) 100x50 of 250x200, rows from the bottom: top = 200 - 50 - 50 = 100 (50%).
  EXPECT_NE(page.find("class=\"region\" title=\"line 17\" style=\"left:10.0000%;top:50.0000%;width:40.0000%;"
                      "height:25.0000%\""),
            std::string::npos)
      << page;
  // The first failing pixel (30, 60): top = 200 - 60 - 1 = 139.
  EXPECT_NE(page.find("left:12.0000%;top:69.5000%;width:0.4000%;height:0.5000%"), std::string::npos);
  EXPECT_NE(page.find("background:rgba(0,255,0,1.000)"), std::string::npos);  // expected, rgb probe: alpha 1
  EXPECT_NE(page.find("background:rgba(255,0,0,1.000)"), std::string::npos);  // observed
  EXPECT_NE(page.find("<img src=\"png/fail.png\""), std::string::npos);
  EXPECT_NE(page.find("href=\"#f2\""), std::string::npos);  // the row links to the failure's section
  EXPECT_EQ(page.find("<img src=\"png/a.png\""), std::string::npos);  // a pass is a link, not a section
}

}  // namespace AGX_UNITY_ID
}  // namespace agx::shadertest
