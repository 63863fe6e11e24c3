#include "shadertest/glsl_value.h"
#include "shadertest/command_words.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace agx::shadertest {

uint32_t size_B(Scalar s) {
  switch (s) {
    case Scalar::float64:
    case Scalar::int64:
    case Scalar::uint64: return 8;
    default: return 4;
  }
}

const char* to_string(Scalar s) {
  switch (s) {
    case Scalar::float32: return "float";
    case Scalar::float64: return "double";
    case Scalar::int32: return "int";
    case Scalar::uint32: return "uint";
    case Scalar::int64: return "int64_t";
    case Scalar::uint64: return "uint64_t";
    case Scalar::boolean: return "bool";
  }
  return "?";
}

std::string_view next_line(std::string_view text, size_t& pos) {
  size_t nl = text.find('\n', pos);
  std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
  pos = nl == std::string_view::npos ? text.size() : nl + 1;
  return line;
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\r') ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

namespace {

using words::starts_with;

// Vector prefixes: vec, dvec, ivec, uvec, bvec, i64vec, u64vec.
struct VectorPrefix {
  const char* prefix;
  Scalar scalar;
};
constexpr VectorPrefix kVectors[] = {
    {"i64vec", Scalar::int64}, {"u64vec", Scalar::uint64}, {"dvec", Scalar::float64},
    {"ivec", Scalar::int32},   {"uvec", Scalar::uint32},   {"bvec", Scalar::boolean},
    {"vec", Scalar::float32},
};

}  // namespace

Result<GlslType> parse_glsl_type(std::string_view name) {
  GlslType t;
  t.name = std::string(name);
  struct ScalarName {
    const char* name;
    Scalar scalar;
  };
  static constexpr ScalarName kScalars[] = {
      {"float", Scalar::float32}, {"double", Scalar::float64}, {"int", Scalar::int32},
      {"uint", Scalar::uint32},   {"int64_t", Scalar::int64},  {"uint64_t", Scalar::uint64},
      {"bool", Scalar::boolean},
  };
  for (const auto& s : kScalars) {
    if (name == s.name) {
      t.scalar = s.scalar;
      return t;
    }
  }
  for (const auto& v : kVectors) {
    if (starts_with(name, v.prefix) && name.size() == std::strlen(v.prefix) + 1) {
      char n = name.back();
      if (n < '2' || n > '4') break;
      t.scalar = v.scalar;
      t.rows = uint32_t(n - '0');
      return t;
    }
  }
  // matN, matNxM, dmatN, dmatNxM: N columns of M rows.
  std::string_view m = name;
  Scalar scalar = Scalar::float32;
  if (starts_with(m, "dmat")) {
    scalar = Scalar::float64;
    m.remove_prefix(4);
  } else if (starts_with(m, "mat")) {
    m.remove_prefix(3);
  } else {
    m = {};
  }
  if (!m.empty()) {
    auto digit = [](char c) { return c >= '2' && c <= '4'; };
    if (m.size() == 1 && digit(m[0])) {
      t.scalar = scalar;
      t.columns = t.rows = uint32_t(m[0] - '0');
      return t;
    }
    if (m.size() == 3 && digit(m[0]) && m[1] == 'x' && digit(m[2])) {
      t.scalar = scalar;
      t.columns = uint32_t(m[0] - '0');
      t.rows = uint32_t(m[2] - '0');
      return t;
    }
  }
  // Opaque types take the unit number (glUniform1i).
  static constexpr const char* kOpaque[] = {"sampler", "isampler", "usampler", "image",
                                            "iimage",  "uimage",   "atomic_uint"};
  for (const char* p : kOpaque) {
    if (starts_with(name, p)) {
      t.scalar = Scalar::int32;
      t.opaque = true;
      return t;
    }
  }
  return Error::parse("unknown uniform type '{}'", name);
}

Result<uint64_t> parse_scalar(std::string_view token, Scalar s) {
  std::string text(token);
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  uint64_t bits = 0;
  bool hex = starts_with(token, "0x") || starts_with(token, "0X");
  switch (s) {
    case Scalar::float32: {
      if (hex) {
        bits = std::strtoull(begin, &end, 16);
        if (bits > UINT32_MAX) errno = ERANGE;
      } else {
        float f = std::strtof(begin, &end);
        errno = 0;  // piglit takes strtof's denormal or saturated result as it is
        uint32_t u;
        std::memcpy(&u, &f, 4);
        bits = u;
      }
      break;
    }
    case Scalar::float64: {
      if (hex) {
        bits = std::strtoull(begin, &end, 16);
      } else {
        double d = std::strtod(begin, &end);
        errno = 0;
        std::memcpy(&bits, &d, 8);
      }
      break;
    }
    case Scalar::int32:
    case Scalar::boolean: {
      if (hex) {
        bits = std::strtoull(begin, &end, 16);
        if (bits > UINT32_MAX) errno = ERANGE;
      } else {
        long long v = std::strtoll(begin, &end, 0);
        if (v < INT32_MIN || v > INT32_MAX) errno = ERANGE;
        bits = uint32_t(int32_t(v));
      }
      break;
    }
    case Scalar::uint32: {
      // strtoul semantics: a leading '-' negates modulo 2^32
      long long v = 0;
      if (!token.empty() && token[0] == '-') {
        v = std::strtoll(begin, &end, 0);
        if (v < INT32_MIN) errno = ERANGE;
        bits = uint32_t(int32_t(v));
      } else {
        unsigned long long u = std::strtoull(begin, &end, 0);
        if (u > UINT32_MAX) errno = ERANGE;
        bits = uint32_t(u);
      }
      break;
    }
    case Scalar::int64: {
      if (hex) {
        bits = std::strtoull(begin, &end, 16);
      } else {
        bits = uint64_t(std::strtoll(begin, &end, 0));
      }
      break;
    }
    case Scalar::uint64: {
      if (!token.empty() && token[0] == '-') {
        bits = uint64_t(std::strtoll(begin, &end, 0));
      } else {
        bits = std::strtoull(begin, &end, 0);
      }
      break;
    }
  }
  if (end == begin || token.empty()) return Error::parse("'{}' is not a {}", token, to_string(s));
  // A GLSL unsigned literal's 'u' suffix ends an unsigned value: piglit's
  // generated built-in tests write "uniform uint expect0 4227922944u", which
  // shader_runner's strtoul reads up to the 'u'.
  const bool unsigned_suffix = (s == Scalar::uint32 || s == Scalar::uint64) && (*end == 'u' || *end == 'U') && end[1] == '\0';
  if (*end != '\0' && !unsigned_suffix)
    return Error::parse("'{}' is not a {} (stray '{}')", token, to_string(s), end);
  if (errno == ERANGE) return Error::parse("'{}' is out of range for {}", token, to_string(s));
  if (s == Scalar::boolean) bits = bits != 0;
  return bits;
}

Result<std::vector<uint8_t>> parse_values(const GlslType& type, std::string_view tokens) {
  auto words = split_words(tokens);
  if (words.size() != type.components()) {
    return Error::parse("{} takes {} value{}, got {}", type.name, type.components(),
                        type.components() == 1 ? "" : "s", words.size());
  }
  uint32_t elem_B = size_B(type.scalar);
  std::vector<uint8_t> out(type.size_B());
  for (size_t i = 0; i < words.size(); ++i) {
    auto bits = parse_scalar(words[i], type.scalar);
    if (!bits.ok()) return std::move(bits).error().context(fmt::format("value {}", i + 1));
    uint64_t b = *bits;
    std::memcpy(out.data() + i * elem_B, &b, elem_B);  // little-endian host
  }
  return out;
}

Result<Compare> parse_compare(std::string_view op) {
  if (op == "==") return Compare::eq;
  if (op == "!=") return Compare::ne;
  if (op == "<") return Compare::lt;
  if (op == "<=") return Compare::le;
  if (op == ">") return Compare::gt;
  if (op == ">=") return Compare::ge;
  return Error::parse("unknown comparison '{}' (== != < <= > >=)", op);
}

const char* to_string(Compare c) {
  switch (c) {
    case Compare::eq: return "==";
    case Compare::ne: return "!=";
    case Compare::lt: return "<";
    case Compare::le: return "<=";
    case Compare::gt: return ">";
    case Compare::ge: return ">=";
  }
  return "?";
}

}  // namespace agx::shadertest
