// GLSL value types as piglit's shader_runner writes them (`uniform vec3 v 1 2 3`,
// `ssbo 0 subdata int 0 -4`), and the number syntax it accepts: a "0x" prefix
// gives a value's exact bits (floats and doubles included), other integers
// follow C's strtol with base 0 (so "010" is octal), floats C's strtod
// (X11Libre/mirror.fdo.piglit tests/util/piglit-util.h strtof_hex/strtol_hex).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace agx::shadertest {

enum class Scalar { float32, float64, int32, uint32, int64, uint64, boolean };
uint32_t size_B(Scalar s);
const char* to_string(Scalar s);

// A scalar, vector (columns = 1) or matrix (matNxM: N columns of M rows).
// Opaque types (samplers, images, atomic_uint) are set as an int: the unit.
struct GlslType {
  Scalar scalar = Scalar::float32;
  uint32_t columns = 1;
  uint32_t rows = 1;
  bool opaque = false;
  std::string name;  // as written
  uint32_t components() const { return columns * rows; }
  uint32_t size_B() const { return components() * shadertest::size_B(scalar); }
};

Result<GlslType> parse_glsl_type(std::string_view name);

// One number of type `s` in piglit's syntax, as its bits (low size_B(s) bytes).
Result<uint64_t> parse_scalar(std::string_view token, Scalar s);

// Values of `type` from whitespace-separated tokens: exactly components()
// of them; packed little-endian, column after column.
Result<std::vector<uint8_t>> parse_values(const GlslType& type, std::string_view tokens);

// piglit's comparison operators: == != < <= > >=.
enum class Compare { eq, ne, lt, le, gt, ge };
Result<Compare> parse_compare(std::string_view op);
const char* to_string(Compare c);
template <typename T>
bool compare(T reference, T observed, Compare c) {
  // piglit compares "observed OP reference" for probes
  switch (c) {
    case Compare::eq: return observed == reference;
    case Compare::ne: return observed != reference;
    case Compare::lt: return observed < reference;
    case Compare::le: return observed <= reference;
    case Compare::gt: return observed > reference;
    case Compare::ge: return observed >= reference;
  }
  return false;
}

// Splits on spaces and tabs; empty tokens dropped.
std::vector<std::string_view> split_words(std::string_view text);

// The line of `text` that starts at `pos` (without its '\n'); moves `pos`
// past it. Call while pos < text.size().
std::string_view next_line(std::string_view text, size_t& pos);

}  // namespace agx::shadertest
