#include "shadertest/vertex_data.h"

#include <cmath>
#include <cstring>

#include "shadertest/command_words.h"

namespace agx::shadertest {

namespace {

using namespace words;

struct TypeName {
  std::string_view name;
  VertexDataType type;
  uint32_t bytes;
};
constexpr TypeName kTypes[] = {
    {"byte", VertexDataType::byte, 1},   {"ubyte", VertexDataType::ubyte, 1}, {"short", VertexDataType::short_, 2},
    {"ushort", VertexDataType::ushort, 2}, {"int", VertexDataType::int_, 4}, {"uint", VertexDataType::uint, 4},
    {"float", VertexDataType::float_, 4}, {"double", VertexDataType::double_, 8},
};

Result<VertexAttributeColumn> parse_column(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '/') {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (parts.size() < 3 || parts.size() > 4 || parts[0].empty())
    return Error::parse("vertex data column '{}' is not NAME/TYPE/COUNT[/MATRIX_COLUMN]", text);
  VertexAttributeColumn c;
  c.name = std::string(parts[0]);
  if (const size_t open = c.name.find('['); open != std::string::npos) {
    const std::string_view index = std::string_view(c.name).substr(open + 1);
    if (open == 0 || index.size() < 2 || index.back() != ']')
      return Error::parse("vertex data column '{}': '{}' is not NAME or NAME[INDEX]", text, parts[0]);
    AGX_TRY(c.array_index, parse_int<uint32_t>(index.substr(0, index.size() - 1), "array index"));
    c.name.resize(open);
  }
  bool found = false;
  for (const auto& t : kTypes)
    if (t.name == parts[1]) c.type = t.type, found = true;
  if (!found) return Error::parse("vertex data column '{}': type '{}' is not byte, ubyte, short, ushort, int, uint, "
                                  "float or double", text, parts[1]);
  if (!parts[2].empty() && parts[2][0] >= '0' && parts[2][0] <= '9') {
    AGX_TRY(c.components, parse_int<uint32_t>(parts[2], "component count"));
  } else {
    // A GLSL type: a vector's size, or a matrix's column size.
    AGX_TRY(GlslType g, parse_glsl_type(parts[2]));
    if (g.opaque) return Error::parse("vertex data column '{}': '{}' is not a vector or matrix", text, parts[2]);
    c.components = g.rows;
    c.matrix_columns = g.columns;
    if (g.columns > 1 && parts.size() != 4)
      return Error::parse("vertex data column '{}': a matrix takes /MATRIX_COLUMN", text);
  }
  if (c.components < 1 || c.components > 4)
    return Error::parse("vertex data column '{}': {} components is not 1..4", text, c.components);
  if (parts.size() == 4) {
    AGX_TRY(c.matrix_column, parse_int<int32_t>(parts[3], "matrix column"));
    if (c.matrix_column < 0 || c.matrix_column > 3)
      return Error::parse("vertex data column '{}': matrix column {} is not 0..3", text, c.matrix_column);
  }
  return c;
}

}  // namespace

const char* to_string(VertexDataType t) {
  for (const auto& n : kTypes)
    if (n.type == t) return n.name.data();
  return "?";
}

uint32_t size_B(VertexDataType t) {
  for (const auto& n : kTypes)
    if (n.type == t) return n.bytes;
  return 0;
}

uint32_t VertexData::stride() const {
  uint32_t n = 0;
  for (const auto& c : columns) n += c.components;
  return n;
}

std::vector<uint8_t> VertexData::packed() const {
  std::vector<uint8_t> out;
  size_t v = 0;
  for (uint32_t r = 0; r < rows; ++r) {
    for (const auto& c : columns) {
      for (uint32_t k = 0; k < c.components; ++k, ++v) {
        double x = values[v];
        uint8_t bytes[8] = {};
        switch (c.type) {
          case VertexDataType::byte: bytes[0] = uint8_t(int8_t(x)); break;
          case VertexDataType::ubyte: bytes[0] = uint8_t(x); break;
          case VertexDataType::short_: { int16_t s = int16_t(x); std::memcpy(bytes, &s, 2); break; }
          case VertexDataType::ushort: { uint16_t s = uint16_t(x); std::memcpy(bytes, &s, 2); break; }
          case VertexDataType::int_: { int32_t s = int32_t(x); std::memcpy(bytes, &s, 4); break; }
          case VertexDataType::uint: { uint32_t s = uint32_t(x); std::memcpy(bytes, &s, 4); break; }
          case VertexDataType::float_: { float f = float(x); std::memcpy(bytes, &f, 4); break; }
          case VertexDataType::double_: std::memcpy(bytes, &x, 8); break;
        }
        out.insert(out.end(), bytes, bytes + size_B(c.type));
      }
    }
  }
  return out;
}

Result<VertexData> parse_vertex_data(std::string_view text, unsigned first_line) {
  VertexData d;
  bool header = false;
  unsigned line_num = first_line - 1;
  size_t pos = 0;
  while (pos < text.size()) {
    std::string_view line = next_line(text, pos);
    ++line_num;
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    auto w = split_words(line);
    if (w.empty()) continue;
    if (!header) {
      for (auto col : w) {
        auto c = parse_column(col);
        if (!c.ok()) return std::move(c).error().context(fmt::format("line {}", line_num));
        d.columns.push_back(std::move(*c));
      }
      header = true;
      continue;
    }
    if (w.size() != d.stride())
      return Error::parse("line {}: a vertex data row of {} values, the header names {}", line_num, w.size(),
                          d.stride());
    size_t k = 0;
    for (const auto& c : d.columns) {
      for (uint32_t i = 0; i < c.components; ++i, ++k) {
        Scalar s = c.type == VertexDataType::double_ ? Scalar::float64
                   : c.type == VertexDataType::float_ ? Scalar::float32
                   : c.type == VertexDataType::uint || c.type == VertexDataType::ubyte ||
                           c.type == VertexDataType::ushort
                       ? Scalar::uint32
                       : Scalar::int32;
        auto bits = parse_scalar(w[k], s);
        if (!bits.ok()) return std::move(bits).error().context(fmt::format("line {}", line_num));
        double v = 0;
        if (s == Scalar::float64) std::memcpy(&v, &*bits, 8);
        else if (s == Scalar::float32) { float f; uint32_t b = uint32_t(*bits); std::memcpy(&f, &b, 4); v = f; }
        else if (s == Scalar::uint32) v = double(uint32_t(*bits));
        else v = double(int32_t(uint32_t(*bits)));
        d.values.push_back(v);
      }
    }
    ++d.rows;
  }
  if (!header) return Error::parse("line {}: [vertex data] has no header line", first_line);
  return d;
}

}  // namespace agx::shadertest
