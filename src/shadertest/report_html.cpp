// The page of `agx shader-test --report` (report.h): presentation only.
// Probe regions are drawn over the picture as outlined boxes placed in
// percent of the image, so the PNG stays the window's exact pixels and the
// marks scale with it. Window rows count from the bottom (GL's
// glReadPixels); the picture's from the top.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "shadertest/report.h"

namespace agx::shadertest {

namespace {

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

constexpr const char* kStyle = R"(body{font-family:sans-serif;margin:1em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}
.pass{background:#8d8}.fail{background:#e88}.skip{background:#ddd}.crash{background:#c6c}
pre{margin:0;white-space:pre-wrap;max-width:70em}
.pic{position:relative;display:inline-block;line-height:0}
.pic img{width:500px;image-rendering:pixelated;border:1px solid #888}
.region{position:absolute;box-sizing:border-box;border:2px solid #f0f;min-width:4px;min-height:4px}
.pixel{position:absolute;box-sizing:border-box;border:2px solid #ff0;outline:1px solid #000;min-width:6px;min-height:6px}
.sw{display:inline-block;width:2.5em;height:1.2em;border:1px solid #000;vertical-align:middle}
.probe{margin:0.5em 0}
)";

// A colour (0..1 per channel, clamped) as CSS; a probe of rgb shows alpha 1.
std::string css_color(const Rgba& c, int channels) {
  auto byte = [](float v) { return std::isnan(v) ? 0 : int(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
  float a = channels == 4 ? c[3] : 1.0f;
  return fmt::format("rgba({},{},{},{:.3f})", byte(c[0]), byte(c[1]), byte(c[2]),
                     std::isnan(a) ? 1.0f : std::clamp(a, 0.0f, 1.0f));
}

std::string values(const Rgba& c, int channels) {
  std::string s;
  for (int i = 0; i < channels; ++i) s += fmt::format("{}{:g}", i ? " " : "", c[i]);
  return s;
}

// A box over the picture for `r` (window pixels, row 0 at the bottom).
std::string box(const char* cls, const PixelRect& r, const ProbeFailure& f, const std::string& title) {
  const double w = f.fb_width_px, h = f.fb_height_px;
  return fmt::format(R"(<div class="{}" title="{}" style="left:{:.4f}%;top:{:.4f}%;width:{:.4f}%;height:{:.4f}%"></div>)",
                     cls, escape(title), 100.0 * r.x / w, 100.0 * (h - r.y - r.h) / h, 100.0 * r.w / w,
                     100.0 * r.h / h);
}

std::string probe_html(const ProbeFailure& f) {
  std::string s = fmt::format("<div class=\"probe\"><b>line {}</b>: region ({}, {}) {}x{}, first failing pixel ({}, {})",
                              f.line, f.region.x, f.region.y, f.region.w, f.region.h, f.x, f.y);
  if (f.kind == ProbeFailure::Kind::color) {
    s += fmt::format("<br>expected <span class=\"sw\" style=\"background:{}\"></span> {} &nbsp; observed "
                     "<span class=\"sw\" style=\"background:{}\"></span> {}",
                     css_color(f.expected, f.channels), values(f.expected, f.channels),
                     css_color(f.observed, f.channels), values(f.observed, f.channels));
  }
  return s + fmt::format("<pre>{}</pre></div>\n", escape(f.text));
}

std::string failure_section(const ReportFile& file, size_t index) {
  std::string s = fmt::format("<h3 id=\"f{}\">{}</h3>\n", index, escape(file.name));
  if (!file.png.empty()) {
    s += fmt::format("<div class=\"pic\"><img src=\"{}\" alt=\"the window\">", escape(file.png));
    for (const auto& f : file.probes) {
      if (f.fb_width_px == 0 || f.fb_height_px == 0) continue;
      std::string title = fmt::format("line {}", f.line);
      s += box("region", f.region, f, title);
      s += box("pixel", {f.x, f.y, 1, 1}, f, title + ": first failing pixel");
    }
    s += "</div>\n";
  }
  for (const auto& f : file.probes) s += probe_html(f);
  if (file.probes.empty() && !file.detail.empty()) s += fmt::format("<pre>{}</pre>\n", escape(file.detail));
  return s;
}

}  // namespace

std::string report_html(const std::vector<ReportFile>& files, std::string_view title) {
  size_t count[4] = {};
  double total_ms = 0;
  for (const auto& f : files) {
    ++count[static_cast<int>(f.outcome)];
    total_ms += f.ms;
  }
  std::string s = fmt::format("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title><style>{}</style>"
                              "</head><body>\n<h1>{}</h1>\n",
                              escape(title), kStyle, escape(title));
  s += fmt::format("<p>{} files: {} passed, {} failed, {} skipped, {} crashed; {:.1f} s of child time.</p>\n",
                   files.size(), count[int(Outcome::pass)], count[int(Outcome::fail)], count[int(Outcome::skip)],
                   count[int(Outcome::crash)], total_ms / 1000);
  s += "<table><tr><th>result</th><th>file</th><th>ms</th><th>detail</th><th>window</th></tr>\n";
  std::string failures;
  for (size_t i = 0; i < files.size(); ++i) {
    const auto& f = files[i];
    const bool shown = (f.outcome == Outcome::fail || f.outcome == Outcome::crash) && (!f.png.empty() || !f.probes.empty());
    std::string name = escape(f.name);
    if (shown) name = fmt::format("<a href=\"#f{}\">{}</a>", i, name);
    std::string detail = f.detail;
    if (detail.size() > 400) {
      detail.resize(400);
      detail += " ...";
    }
    s += fmt::format("<tr><td class=\"{}\">{}</td><td>{}</td><td>{:.1f}</td><td><pre>{}</pre></td><td>{}</td></tr>\n",
                     to_string(f.outcome), to_upper_string(f.outcome), name, f.ms, escape(detail),
                     f.png.empty() ? "" : fmt::format("<a href=\"{}\">png</a>", escape(f.png)));
    if (shown) failures += failure_section(f, i);
  }
  s += "</table>\n";
  if (!failures.empty()) s += "<h2>Failures</h2>\n" + failures;
  return s + "</body></html>\n";
}

}  // namespace agx::shadertest
