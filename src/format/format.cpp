#include "format/format.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "format/compression.h"

namespace agx::format {
namespace {

constexpr ChannelsInfo kChannels[] = {
#define AGX_CHANNELS(name, bytes, bw, bh, family) \
  {#name, Channels::name, bytes, bw, bh, Compression::family != Compression::none},
#include "format/channels.inc"
#undef AGX_CHANNELS
};

constexpr const ChannelsInfo& channels_row(Channels c) {
  for (const auto& row : kChannels)
    if (row.code == c) return row;
  return kChannels[0];  // unreachable: every enumerator has a row
}

constexpr bool has_srgb(std::string_view n) {
  return n.find("SRGB") != std::string_view::npos;
}

constexpr FormatInfo make_row(const char* n, Format f, Channels c, TextureType t, IsaFormat isa,
                              uint8_t flags) {
  const ChannelsInfo& ch = channels_row(c);
  return FormatInfo{n,
                    f,
                    c,
                    t,
                    isa,
                    ch.bytes_B,
                    ch.block_width_px,
                    ch.block_height_px,
                    (flags & kDepth) != 0,
                    (flags & kStencil) != 0,
                    (flags & kSeparateStencil) != 0,
                    ch.block_compressed,
                    isa != IsaFormat::None,
                    (flags & kLowered) != 0,
                    (flags & kBufferOnly) != 0,
                    has_srgb(n)};
}

constexpr FormatInfo kFormats[] = {
#define AGX_FORMAT(name, ch, type, isa, flags) \
  make_row(#name, Format::name, Channels::ch, TextureType::type, IsaFormat::isa, flags),
#include "format/formats.inc"
#undef AGX_FORMAT
};

constexpr bool table_is_in_enum_order() {
  for (size_t i = 0; i < std::size(kFormats); ++i)
    if (static_cast<size_t>(kFormats[i].format) != i) return false;
  return true;
}
static_assert(table_is_in_enum_order());

constexpr bool channel_codes_fit_field() {
  for (const auto& c : kChannels)
    if (static_cast<unsigned>(c.code) >= 0x80) return false;
  return true;
}
static_assert(channel_codes_fit_field(), "Channels is a 7-bit descriptor field");
#define AGX_COUNT_VALUE(id, name, value) +1
static_assert(std::size(kChannels) == 0 AGX_GENXML_ENUM_Channels(AGX_COUNT_VALUE),
              "one channels.inc row per cmdbuf.xml Channels value");
#undef AGX_COUNT_VALUE

// Names people use for the BC formats, mapped to Gallium's.
struct Alias {
  std::string_view alias, gallium;
};
constexpr Alias kAliases[] = {
    {"BC1_RGB", "DXT1_RGB"},           {"BC1_RGBA", "DXT1_RGBA"},
    {"BC1_SRGB", "DXT1_SRGB"},         {"BC1_SRGBA", "DXT1_SRGBA"},
    {"BC2_RGBA", "DXT3_RGBA"},         {"BC2_SRGBA", "DXT3_SRGBA"},
    {"BC3_RGBA", "DXT5_RGBA"},         {"BC3_SRGBA", "DXT5_SRGBA"},
    {"BC4_UNORM", "RGTC1_UNORM"},      {"BC4_SNORM", "RGTC1_SNORM"},
    {"BC5_UNORM", "RGTC2_UNORM"},      {"BC5_SNORM", "RGTC2_SNORM"},
    {"BC6H_SFLOAT", "BPTC_RGB_FLOAT"}, {"BC6H_UFLOAT", "BPTC_RGB_UFLOAT"},
    {"BC7_UNORM", "BPTC_RGBA_UNORM"},  {"BC7_SRGB", "BPTC_SRGBA"},
};

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string_view strip_prefix(std::string_view s) {
  constexpr std::string_view kPrefix = "PIPE_FORMAT_";
  if (s.size() > kPrefix.size() && upper(s.substr(0, kPrefix.size())) == kPrefix)
    s.remove_prefix(kPrefix.size());
  return s;
}

// True if every character of `key` appears in `name` in order ("Z32F" in
// "Z32_FLOAT"): a typical abbreviation.
bool is_subsequence(std::string_view key, std::string_view name) {
  size_t i = 0;
  for (char c : name)
    if (i < key.size() && key[i] == c) ++i;
  return i == key.size();
}

bool same_name(std::string_view upper_key, std::string_view name) {
  if (upper_key.size() != name.size()) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (upper_key[i] != std::toupper(static_cast<unsigned char>(name[i]))) return false;
  return true;
}

// Levenshtein distance, or any value > limit once it must exceed limit; `b`
// is a table name (short), `a` at most kMaxKey.
constexpr size_t kMaxKey = 64;
size_t edit_distance(std::string_view a, std::string_view b, size_t limit) {
  std::array<size_t, kMaxKey + 1> row{};
  b = b.substr(0, kMaxKey);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
    size_t best = row[0];
    for (size_t j = 1; j <= b.size(); ++j) best = row[j] < best ? row[j] : best;
    if (best > limit) return best;  // rows never decrease their minimum
  }
  return row[b.size()];
}

}  // namespace

const FormatInfo& info(Format f) {
  return kFormats[static_cast<size_t>(f)];
}
const char* name(Format f) {
  return info(f).name;
}
std::span<const FormatInfo> all_formats() {
  return kFormats;
}
std::span<const ChannelsInfo> all_channels() {
  return kChannels;
}

Result<ChannelsInfo> channels_from_code(uint32_t code) {
  for (const auto& row : kChannels)
    if (static_cast<uint32_t>(row.code) == code) return row;
  return Error::decode("unknown Channels code 0x{:02x}", code);
}

Result<ChannelsInfo> channels_info(Channels c) {
  return channels_from_code(static_cast<uint32_t>(c));
}

uint8_t component_count(const ChannelsInfo& c) {
  if (c.block_compressed) return 0;
  uint8_t n = 0;
  for (const char* p = c.name; p[0] != '\0' && p[1] != '\0'; ++p) {
    const bool channel = p[0] == 'R' || p[0] == 'G' || p[0] == 'B' || p[0] == 'A';
    if (channel && p[1] >= '0' && p[1] <= '9') ++n;
  }
  return n;
}

const char* to_string(TextureType t) {
  switch (t) {
    case TextureType::Unorm:
      return "Unorm";
    case TextureType::Snorm:
      return "Snorm";
    case TextureType::Uint:
      return "Uint";
    case TextureType::Sint:
      return "Sint";
    case TextureType::Float:
      return "Float";
    case TextureType::XR:
      return "XR";
  }
  return "?";
}

const char* to_string(IsaFormat f) {
  constexpr const char* kNames[] = {"none",   "I8",       "I16",     "I32",     "F16",
                                    "U8NORM", "S8NORM",   "U16NORM", "S16NORM", "RGB10A2",
                                    "SRGBA8", "RG11B10F", "RGB9E5"};
  auto i = static_cast<size_t>(f);
  return i < std::size(kNames) ? kNames[i] : "?";
}

std::vector<std::string> near_matches(std::string_view name, size_t max) {
  std::string key = upper(strip_prefix(name));
  if (key.size() > kMaxKey) return {};  // nothing is that long
  const size_t limit = std::max<size_t>(3, key.size() / 2);
  std::vector<std::pair<size_t, std::string_view>> scored;
  for (const auto& f : kFormats) {
    std::string_view n = f.name;
    std::string u = upper(n);
    // The distance is at least the length difference: skip hopeless names.
    size_t gap = key.size() > u.size() ? key.size() - u.size() : u.size() - key.size();
    size_t d = gap > limit ? limit + 1 : edit_distance(key, u, limit);
    // A known name that starts with what was typed is a good suggestion too.
    if (!key.empty() && u.compare(0, key.size(), key) == 0) d = std::min<size_t>(d, 1);
    if (key.size() >= 3 && is_subsequence(key, u)) d = std::min<size_t>(d, 2);
    scored.emplace_back(d, n);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [d, n] : scored) {
    if (out.size() >= max || d > limit) break;
    out.emplace_back(n);
  }
  return out;
}

Result<Format> find_format(std::string_view name) {
  std::string key = upper(strip_prefix(name));
  for (const auto& a : kAliases)
    if (key == a.alias) key = std::string(a.gallium);
  for (const auto& f : kFormats)
    if (same_name(key, f.name)) return f.format;
  auto near = near_matches(name);
  std::string list;
  for (const auto& n : near) list += (list.empty() ? "" : ", ") + n;
  if (list.empty()) return Error::not_found("unknown format '{}'", name);
  return Error::not_found("unknown format '{}'; did you mean: {}", name, list);
}

Compression compression(Channels c) {
  struct Row {
    Channels code;
    Compression family;
  };
  static constexpr Row kRows[] = {
#define AGX_CHANNELS(name, bytes, bw, bh, family) {Channels::name, Compression::family},
#include "format/channels.inc"
#undef AGX_CHANNELS
  };
  for (const Row& r : kRows)
    if (r.code == c) return r.family;
  return Compression::none;
}

}  // namespace agx::format
