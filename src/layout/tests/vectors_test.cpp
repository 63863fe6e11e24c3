// Every row of the Metal allocation vectors (tests/data/README.md) must match
// exactly: sizes, level offsets, metadata offsets.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "layout/layout.h"

namespace agx::layout {
namespace AGX_UNITY_ID {

using Row = std::map<std::string, std::string>;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep)) out.push_back(item);
  return out;
}

std::vector<Row> read_csv(const std::string& name) {
  const char* dir = std::getenv("AGX_LAYOUT_VECTORS_DIR");
  std::string path = std::string(dir ? dir : "tests/data") + "/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::string line;
  std::getline(in, line);
  auto header = split(line, ',');
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    auto cells = split(line, ',');
    EXPECT_EQ(cells.size(), header.size()) << line;
    Row row;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

uint32_t u32(const Row& r, const char* key) {
  auto it = r.find(key);
  return it == r.end() ? 0 : static_cast<uint32_t>(std::stoul(it->second));
}

Request request_of(const Row& r) {
  Request q;
  auto f = format::find_format(r.at("format"));
  EXPECT_TRUE(f.ok()) << r.at("format");
  q.format = f.ok() ? *f : format::Format::R8_UNORM;
  q.width_px = u32(r, "width");
  q.height_px = u32(r, "height");
  q.depth_px = u32(r, "depth");
  q.levels = u32(r, "levels");
  q.sample_count_sa = r.count("samples") ? u32(r, "samples") : 1;
  if (r.count("tiling")) {
    auto t = parse_tiling(r.at("tiling"));
    EXPECT_TRUE(t.ok());
    q.tiling = t->tiling;
    q.compressed = t->compressed;
  } else {
    q.tiling = Tiling::gpu;
    q.compressed = u32(r, "compressed") != 0;
  }
  return q;
}

std::string describe_row(const Row& r) {
  std::string s;
  for (const auto& [k, v] : r) s += k + "=" + v + " ";
  return s;
}

void check_sizes(const char* file) {
  auto rows = read_csv(file);
  ASSERT_FALSE(rows.empty());
  size_t matched = 0;
  for (const Row& r : rows) {
    auto l = make_layout(request_of(r));
    ASSERT_TRUE(l.ok()) << describe_row(r) << ": " << l.error().message();
    EXPECT_EQ(l->size_B, std::stoull(r.at("size_B"))) << describe_row(r);
    if (r.count("metadata_offset_B") && l->compressed()) {
      EXPECT_EQ(l->metadata_offset_B, std::stoull(r.at("metadata_offset_B"))) << describe_row(r);
    }
    matched += l->size_B == std::stoull(r.at("size_B"));
  }
  EXPECT_EQ(matched, rows.size());
}

TEST(MetalVectors, UncompressedSizes) {
  check_sizes("uncompressed-sizes.sample.csv");
}
TEST(MetalVectors, CompressedSizes) {
  check_sizes("compressed-sizes.sample.csv");
}
TEST(MetalVectors, Msaa) {
  check_sizes("msaa.sample.csv");
}

TEST(MetalVectors, MiptreeOffsets) {
  auto rows = read_csv("miptree-offsets.sample.csv");
  ASSERT_FALSE(rows.empty());
  for (const Row& r : rows) {
    auto l = make_layout(request_of(r));
    ASSERT_TRUE(l.ok()) << describe_row(r) << ": " << l.error().message();
    auto offsets = split(r.at("level_offsets_B"), ';');
    ASSERT_EQ(offsets.size(), u32(r, "levels"));
    for (size_t i = 0; i < offsets.size(); ++i)
      EXPECT_EQ(l->level_offsets_B[i], std::stoull(offsets[i]))
          << describe_row(r) << " level " << i;
  }
}

// The batch CSV (what `agx layout --batch` prints) carries the same numbers
// in the vector files' own notation.
TEST(MetalVectors, BatchOutputMatchesMiptreeRows) {
  auto rows = read_csv("miptree-offsets.sample.csv");
  std::string in = "format,width,height,depth,levels,samples,tiling\n";
  for (const Row& r : rows)
    in += r.at("format") + "," + r.at("width") + "," + r.at("height") + "," + r.at("depth") + "," +
          r.at("levels") + ",1," + r.at("tiling") + "\n";
  auto out = run_batch(in);
  ASSERT_TRUE(out.ok()) << out.error().message();
  auto lines = split(*out, '\n');
  ASSERT_EQ(lines.size(), rows.size() + 1);
  for (size_t i = 0; i < rows.size(); ++i) {
    auto cells = split(lines[i + 1] + ",", ',');
    ASSERT_GE(cells.size(), 11u) << lines[i + 1];
    EXPECT_EQ(cells[10], rows[i].at("level_offsets_B")) << lines[i + 1];
  }
}

}  // namespace
}  // namespace agx::layout
