// `agx layout`: print an image layout (text or JSON), the address of an
// element, or lay out every row of a CSV (--batch). Formats: docs/layout.md.
#include <fmt/format.h>

#include <charconv>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "layout/layout.h"

namespace AGX_UNITY_ID {

using agx::Error;
using agx::Result;

struct Options {
  std::string format, size, tiling = "gpu", batch, address;
  uint32_t levels = 1, samples = 1, stride_B = 0;
  bool mipmapped_z = false, json = false, writeable = false, renderable = false;
};

Result<std::vector<uint32_t>> parse_numbers(const std::string& text, char sep, const char* what,
                                            size_t min_count, size_t max_count) {
  std::vector<uint32_t> out;
  size_t start = 0;
  while (true) {
    size_t end = text.find(sep, start);
    std::string_view part(text.data() + start,
                          (end == std::string::npos ? text.size() : end) - start);
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || p != part.data() + part.size())
      return Error::parse("{} '{}': '{}' is not a number", what, text, part);
    out.push_back(v);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (out.size() < min_count || out.size() > max_count)
    return Error::parse("{} '{}' needs {} to {} numbers separated by '{}'", what, text, min_count,
                        max_count, sep);
  return out;
}

Result<agx::layout::Request> make_request(const Options& o) {
  agx::layout::Request r;
  AGX_TRY(r.format, agx::format::find_format(o.format));
  AGX_TRY(auto dims, parse_numbers(o.size, 'x', "--size", 1, 3));
  r.width_px = dims[0];
  r.height_px = dims.size() > 1 ? dims[1] : 1;
  r.depth_px = dims.size() > 2 ? dims[2] : 1;
  AGX_TRY(auto t, agx::layout::parse_tiling(o.tiling));
  r.tiling = t.tiling;
  r.compressed = t.compressed;
  r.levels = o.levels;
  r.sample_count_sa = o.samples;
  r.mipmapped_z = o.mipmapped_z;
  r.linear_stride_B = o.stride_B;
  r.writeable_image = o.writeable;
  r.renderable = o.renderable;
  return r;
}

void print_address(const agx::layout::Layout& l, const std::string& spec) {
  auto n = parse_numbers(spec, ',', "--address", 2, 5);
  if (!n.ok()) agx::cli::fail(n.error());
  auto v = *n;
  v.resize(5, 0);
  auto a = agx::layout::element_address_B(l, v[0], v[1], v[2], v[3], v[4]);
  if (!a.ok()) agx::cli::fail(a.error());
  fmt::print("address of pixel ({}, {}) layer {} level {} sample {}: {} B (0x{:x})\n", v[0], v[1],
             v[2], v[3], v[4], *a, *a);
}

void run(const Options& o) {
  if (!o.batch.empty()) {
    auto text = agx::cli::read_file(o.batch);
    if (!text.ok()) agx::cli::fail(text.error());
    auto out = agx::layout::run_batch(*text);
    if (!out.ok()) agx::cli::fail(std::move(out).error().context(o.batch));
    fmt::print("{}", *out);
    return;
  }
  if (o.format.empty()) agx::cli::fail("layout: --format is required (or --batch FILE)");
  if (o.size.empty()) agx::cli::fail("layout: --size WxH or WxHxD is required (or --batch FILE)");
  auto req = make_request(o);
  if (!req.ok()) agx::cli::fail(req.error());
  auto l = agx::layout::make_layout(*req);
  if (!l.ok()) agx::cli::fail(l.error());
  if (!o.address.empty()) return print_address(*l, o.address);
  fmt::print("{}", o.json ? agx::layout::to_json(*l) + "\n" : agx::layout::describe(*l));
}

void setup_layout(agx::cli::Args& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option("--format,-f", o->format, "Gallium format name, e.g. R8G8B8A8_UNORM");
  sub.add_option("--size,-s", o->size, "WxH or WxHxD in pixels (D: layers or 3D slices)");
  sub.add_option("--levels,-l", o->levels, "Mip levels (>1 allocates the full chain)");
  sub.add_option("--samples", o->samples, "Samples per pixel: 1, 2 or 4");
  sub.add_option("--tiling,-t", o->tiling,
                 "linear, gpu, twiddled, gpu_compressed or twiddled_compressed");
  sub.add_flag("--mipmapped-z", o->mipmapped_z, "A 3D image: depth counts for the level count");
  sub.add_option("--stride", o->stride_B, "Linear row stride in bytes (multiple of 16)");
  sub.add_flag("--writeable", o->writeable, "Used as a writeable image (page-aligned layers)");
  sub.add_flag("--renderable", o->renderable, "Rendered to (layered targets: page-aligned layers)");
  sub.add_flag("--json", o->json, "Print the layout as JSON");
  sub.add_option("--address", o->address,
                 "X,Y[,LAYER[,LEVEL[,SAMPLE]]]: print one element's address");
  sub.add_option("--batch", o->batch,
                 "CSV file ('-' = stdin) with header format,width,height,depth,levels,samples,"
                 "tiling[,mipmapped_z]; prints one result row per input row");
  sub.callback([o] { run(*o); });
}

agx::cli::Command kLayout{"layout", "Print an AGX image layout (sizes, offsets, tiles, metadata)",
                          setup_layout};

}  // namespace AGX_UNITY_ID
