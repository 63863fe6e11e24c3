// A [vertex data] section: a header naming each attribute column, then one
// row of numbers per vertex (piglit's piglit-vbo, the format shader_runner
// gives setup_vbo_from_text, X11Libre/mirror.fdo.piglit tests/util/piglit-vbo.h).
//
// A header column is NAME/TYPE/COUNT or NAME/TYPE/GLSL_TYPE, with
// /MATRIX_COLUMN after a matrix's column: `piglit_vertex/float/2`,
// `color/float/vec4`, `m/float/4/1` (column 1 of a matrix whose columns are
// 4 floats), `d/double/dvec4`, `v[1]/int/ivec4` (element 1 of an array
// input), `m[0]/double/dmat3x2/2` (column 2 of element 0 of an array of
// matrices). TYPE is byte, ubyte, short, ushort, int, uint, float or
// double; a row holds every column's components in order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace agx::shadertest {

enum class VertexDataType { byte, ubyte, short_, ushort, int_, uint, float_, double_ };
const char* to_string(VertexDataType t);
uint32_t size_B(VertexDataType t);

struct VertexAttributeColumn {
  std::string name;            // without an array index
  VertexDataType type = VertexDataType::float_;
  uint32_t components = 1;     // 1..4
  int32_t matrix_column = -1;  // -1 unless NAME/TYPE/N/COLUMN
  uint32_t matrix_columns = 1; // a GLSL matrix type's columns (1: a vector or a count)
  uint32_t array_index = 0;    // NAME[I]: element I of an array input
};

struct VertexData {
  std::vector<VertexAttributeColumn> columns;
  // Each row's values as doubles (exact for every TYPE), row after row,
  // `stride()` per row.
  std::vector<double> values;
  uint32_t rows = 0;
  uint32_t stride() const;  // components of one row
  // The row's bytes, each column packed as its TYPE (what glBufferData gets).
  std::vector<uint8_t> packed() const;
};

// `first_line` is the file line of the section's first text line, for errors.
Result<VertexData> parse_vertex_data(std::string_view text, unsigned first_line);

}  // namespace agx::shadertest
