// `agx layout --batch`: many layouts from one CSV (formats in docs/layout.md).
#include <fmt/format.h>

#include <array>
#include <charconv>
#include <optional>

#include "layout/layout.h"

namespace agx::layout {
namespace {

constexpr std::array<std::string_view, 7> kInputColumns = {"format", "width",   "height", "depth",
                                                           "levels", "samples", "tiling"};
constexpr std::string_view kOptionalColumn = "mipmapped_z";

struct Header {
  std::array<int, 7> column{};  // index of each input column in a row
  int mipmapped_z = -1;
  size_t fields = 0;
};

Result<Header> parse_header(std::string_view line) {
  AGX_TRY(auto names, split_csv_line(line));
  Header h;
  h.column.fill(-1);
  h.fields = names.size();
  for (size_t i = 0; i < names.size(); ++i) {
    std::string_view n = names[i];
    int* slot = nullptr;
    for (size_t c = 0; c < kInputColumns.size(); ++c)
      if (n == kInputColumns[c]) slot = &h.column[c];
    if (n == kOptionalColumn) slot = &h.mipmapped_z;
    if (!slot) return Error::parse("header: unknown column '{}'", n);
    if (*slot != -1) return Error::parse("header: column '{}' appears twice", n);
    *slot = static_cast<int>(i);
  }
  for (size_t c = 0; c < kInputColumns.size(); ++c)
    if (h.column[c] == -1) return Error::parse("header: missing column '{}'", kInputColumns[c]);
  return h;
}

Result<uint32_t> parse_u32(std::string_view name, std::string_view text) {
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return Error::parse("{} '{}' is not a decimal number below 2^32", name, text);
  return v;
}

Result<Request> parse_row(const Header& h, const std::vector<std::string>& f) {
  if (f.size() != h.fields) return Error::parse("expected {} fields, found {}", h.fields, f.size());
  auto at = [&](size_t c) -> const std::string& { return f[static_cast<size_t>(h.column[c])]; };
  Request r;
  AGX_TRY(r.format, format::find_format(at(0)));
  AGX_TRY(r.width_px, parse_u32("width", at(1)));
  AGX_TRY(r.height_px, parse_u32("height", at(2)));
  AGX_TRY(r.depth_px, parse_u32("depth", at(3)));
  AGX_TRY(r.levels, parse_u32("levels", at(4)));
  AGX_TRY(r.sample_count_sa, parse_u32("samples", at(5)));
  AGX_TRY(TilingChoice t, parse_tiling(at(6)));
  r.tiling = t.tiling;
  r.compressed = t.compressed;
  if (h.mipmapped_z >= 0) {
    const std::string& m = f[static_cast<size_t>(h.mipmapped_z)];
    if (m != "0" && m != "1" && !m.empty())
      return Error::parse("mipmapped_z '{}' must be 0 or 1", m);
    r.mipmapped_z = m == "1";
  }
  return r;
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += (c == '\r' || c == '\n') ? ' ' : c;
  }
  return out + "\"";
}

std::string result_columns(const Layout& l) {
  std::string offsets;
  // The requested levels, as Mesa's miptree vectors list them; the full
  // chain is allocated either way (size_B).
  for (uint32_t i = 0; i < l.request.levels; ++i)
    offsets += fmt::format("{}{}", i ? ";" : "", l.level_offsets_B[i]);
  return fmt::format("{},{},{},{},", l.size_B, l.metadata_offset_B, l.layer_stride_B, offsets);
}

std::string output_row(const Header& h, const std::vector<std::string>& fields,
                       const Result<Layout>& layout, const std::optional<Error>& error) {
  std::string row;
  for (size_t c = 0; c < kInputColumns.size(); ++c) {
    size_t i = static_cast<size_t>(h.column[c]);
    row += csv_field(i < fields.size() ? fields[i] : "") + ",";
  }
  if (error) return row + ",,,," + csv_field(error->message());
  return row + result_columns(*layout);
}

}  // namespace

Result<std::vector<std::string>> split_csv_line(std::string_view line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"' && out.back().empty()) {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  if (quoted) return Error::parse("unterminated quoted field");
  return out;
}

Result<std::string> run_batch(std::string_view csv) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start < csv.size();) {
    size_t end = csv.find('\n', start);
    if (end == std::string_view::npos) end = csv.size();
    std::string_view line = csv.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  size_t first = 0;
  while (first < lines.size() && lines[first].empty()) ++first;
  if (first == lines.size()) return Error::parse("empty input: expected a CSV header");
  auto header = parse_header(lines[first]);
  if (!header.ok()) return std::move(header).error().context(fmt::format("line {}", first + 1));
  std::string out(kBatchOutputHeader);
  out += '\n';
  for (size_t n = first + 1; n < lines.size(); ++n) {
    if (lines[n].empty()) continue;
    auto fields = split_csv_line(lines[n]);
    std::vector<std::string> cells = fields.ok() ? *fields : std::vector<std::string>{};
    Result<Request> req = fields.ok() ? parse_row(*header, cells) : Result<Request>(fields.error());
    Result<Layout> layout = req.ok() ? make_layout(*req) : Result<Layout>(req.error());
    std::optional<Error> error;
    if (!layout.ok()) error = layout.error().context(fmt::format("line {}", n + 1));
    out += output_row(*header, cells, layout, error) + "\n";
  }
  return out;
}

}  // namespace agx::layout
