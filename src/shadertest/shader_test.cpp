// The sections of a .shader_test file and its [require] lines.
#include "shadertest/shader_test.h"
#include "shadertest/command_words.h"

#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/limits.h"

namespace agx::shadertest {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

using words::starts_with;

// `uint ID VALUE` or `float ID VALUE`: the value's 32 bits for SpecId ID
// (piglit's shader_runner.c process_specialization: strtoul/strtof-style
// numbers, a uint's bits go as they are, a float's IEEE bits).
Status parse_specialization(std::string_view line, std::map<uint32_t, uint32_t>& out) {
  std::vector<std::string> f;
  for (std::string_view word : split_words(line)) f.emplace_back(word);  // strtoul/strtof need NUL ends
  if (f.size() != 3 || (f[0] != "uint" && f[0] != "float"))
    return Error::parse("specialization '{}': expected 'uint ID VALUE' or 'float ID VALUE'", line);
  char* end = nullptr;
  errno = 0;
  unsigned long id = std::strtoul(f[1].c_str(), &end, 0);
  if (errno || *end || f[1][0] == '-' || id > UINT32_MAX) return Error::parse("specialization '{}': bad SpecId", line);
  uint32_t bits = 0;
  errno = 0;
  if (f[0] == "uint") {
    long long v = std::strtoll(f[2].c_str(), &end, 0);
    if (errno || *end || v < INT32_MIN || v > static_cast<long long>(UINT32_MAX))
      return Error::parse("specialization '{}': bad uint value", line);
    bits = static_cast<uint32_t>(v);
  } else {
    float v = std::strtof(f[2].c_str(), &end);
    if (errno || *end) return Error::parse("specialization '{}': bad float value", line);
    bits = std::bit_cast<uint32_t>(v);
  }
  if (!out.emplace(static_cast<uint32_t>(id), bits).second)
    return Error::parse("specialization '{}': SpecId {} given twice", line, id);
  return {};
}

// "4.30" -> 430 for GLSL, "4.3" -> 43 for GL (piglit's numbering).
Result<unsigned> parse_version_number(std::string_view text, Api api) {
  auto dot = text.find('.');
  if (dot == std::string_view::npos) return Error::parse("version '{}' has no '.'", text);
  unsigned major = 0, minor = 0;
  auto a = std::from_chars(text.data(), text.data() + dot, major);
  auto b = std::from_chars(text.data() + dot + 1, text.data() + text.size(), minor);
  if (a.ec != std::errc() || a.ptr != text.data() + dot || b.ec != std::errc() ||
      b.ptr != text.data() + text.size() || dot == 0 || dot + 1 == text.size()) {
    return Error::parse("version '{}' is not MAJOR.MINOR", text);
  }
  return api == Api::glsl ? major * 100 + minor : major * 10 + minor;
}

// "OP N" after a limit's name.
Status parse_limit(const std::vector<std::string_view>& words, size_t i, LimitRequirement& l) {
  if (i + 2 != words.size()) return Error::parse("limit '{}' is not '{} OP N'", l.name, l.name);
  AGX_TRY(l.cmp, parse_compare(words[i]));
  AGX_TRY(uint64_t bits, parse_scalar(words[i + 1], Scalar::int64));
  l.value = int64_t(bits);
  return {};
}

// One [require] line, in the order shader_runner's process_requirement tries
// them (X11Libre/mirror.fdo.piglit tests/shaders/shader_runner.c), with SIZE
// and depthbuffer from its parse_required_config.
Status parse_requirement(std::string_view line, Requirements& req) {
  auto words = split_words(line);
  if (words.empty()) return {};
  if (words[0] == "INT") {
    if (words.size() < 2 || !starts_with(words[1], "GL_")) return Error::parse("'INT' takes 'GL_NAME OP N'");
    LimitRequirement l{true, std::string(words[1])};
    AGX_CHECK(parse_limit(words, 2, l));
    req.limits.push_back(std::move(l));
    return {};
  }
  if (runtime::shader_runner_limit(words[0])) {
    LimitRequirement l{false, std::string(words[0])};
    AGX_CHECK(parse_limit(words, 1, l));
    req.limits.push_back(std::move(l));
    return {};
  }
  // Any other line starting GL_ names an extension (its first word).
  if (starts_with(words[0], "GL_")) {
    req.extensions.emplace_back(words[0]);
    return {};
  }
  if (starts_with(words[0], "!GL_")) {
    req.absent_extensions.emplace_back(words[0].substr(1));
    return {};
  }
  if (words[0] == "GL" || words[0] == "GLSL") {
    VersionRequirement v;
    v.api = words[0] == "GL" ? Api::gl : Api::glsl;
    size_t i = 1;
    // piglit also accepts CORE / COMPAT before ES.
    while (i < words.size() && (words[i] == "CORE" || words[i] == "COMPAT")) ++i;
    if (i < words.size() && words[i] == "ES") {
      v.es = true;
      ++i;
    }
    if (i + 2 != words.size()) return Error::parse("version requirement '{}' is not '{} [ES] OP X.Y'", line, words[0]);
    AGX_TRY(v.cmp, parse_compare(words[i]));
    AGX_TRY(v.num, parse_version_number(words[i + 1], v.api));
    // shader_runner fails any other GLSL comparison: it may write the
    // #version from this line.
    if (v.api == Api::glsl && v.cmp != Compare::ge) return Error::parse("Unsupported GLSL version comparison");
    req.versions.push_back(v);
    return {};
  }
  if (words[0] == "SPIRV") {
    if (words.size() >= 2 && words[1] == "YES") req.spirv = Requirements::Spirv::yes;
    else if (words.size() >= 2 && words[1] == "ONLY") req.spirv = Requirements::Spirv::only;
    else if (words.size() >= 2 && words[1] == "NO") req.spirv_never = true;
    else return Error::parse("Unknown SPIRV line in [require]");
    return {};
  }
  if (words[0] == "SIZE") {
    if (words.size() != 3) return Error::parse("'SIZE' takes a width and a height");
    std::array<uint32_t, 2> px{};
    for (int i = 0; i < 2; ++i) {
      AGX_TRY(uint64_t v, parse_scalar(words[1 + i], Scalar::uint32));
      if (v == 0 || v > 16384) return Error::parse("SIZE {} is not 1..16384", v);
      px[i] = uint32_t(v);
    }
    req.window_px = px;
    return {};
  }
  if (words[0] == "depthbuffer") {
    req.depthbuffer = true;
    return {};
  }
  if (words.size() == 2 && words[0] == "SSO" && words[1] == "ENABLED") {
    if (req.separable_program) return Error::parse("SSO and SEPARABLE PROGRAM directives are incompatible.");
    req.sso = true;
    return {};
  }
  if (words.size() == 3 && words[0] == "SEPARABLE" && words[1] == "PROGRAM" && words[2] == "ENABLED") {
    if (req.sso) return Error::parse("SSO and SEPARABLE PROGRAM directives are incompatible.");
    req.separable_program = true;
    return {};
  }
  if (words[0] == "ignore_missing_uniforms") {
    req.ignore_missing_uniforms = true;
    return {};
  }
  // rlimit N (an address-space limit on the test process): kept for the
  // runner, which skips rather than run without it. shader_runner ignores
  // any other line; so does the parser.
  if (words[0] == "rlimit") req.other.emplace_back(line);
  return {};
}

}  // namespace

std::optional<unsigned> Requirements::glsl_num() const {
  for (const auto& v : versions)
    if (v.api == Api::glsl) return v.num;
  return std::nullopt;
}

bool Requirements::glsl_es() const {
  for (const auto& v : versions)
    if (v.api == Api::glsl) return v.es;
  return false;
}

bool is_compute(ShaderKind k) { return k == ShaderKind::compute_glsl || k == ShaderKind::compute_spirv; }

bool ShaderTest::has_non_compute_stage() const {
  for (const auto& s : shaders)
    if (!is_compute(s.kind)) return true;
  return false;
}

bool ShaderTest::has_stage(ShaderKind k) const {
  for (const auto& s : shaders)
    if (s.kind == k) return true;
  return false;
}

std::vector<std::string> section_headers(std::string_view text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    std::string_view line = trim(next_line(text, pos));
    if (line.size() >= 2 && line.front() == '[' && line.back() == ']') out.emplace_back(line.substr(1, line.size() - 2));
  }
  return out;
}

Result<ShaderTest> parse_shader_test(std::string_view text) {
  ShaderTest test;
  enum class Section { none, require, shader, specializations, vertex_data, test, ignored } section = Section::none;
  std::string vertex_data;
  unsigned vertex_data_line = 0;
  ShaderSection* shader = nullptr;
  bool saw_test = false;
  unsigned line_num = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    std::string_view raw = next_line(text, pos);
    ++line_num;
    std::string_view line = trim(raw);
    if (!line.empty() && line.front() == '[') {
      if (line.back() != ']') return Error::parse("line {}: section header '{}' has no ']'", line_num, line);
      std::string_view name = line.substr(1, line.size() - 2);
      shader = nullptr;
      if (name == "require") {
        section = Section::require;
      } else if (name == "test") {
        if (saw_test) return Error::parse("line {}: a second [test] section", line_num);
        saw_test = true;
        section = Section::test;
      } else if (name == "compute shader" || name == "compute shader spirv") {
        section = Section::shader;
        test.shaders.push_back({name == "compute shader" ? ShaderKind::compute_glsl
                                                        : ShaderKind::compute_spirv,
                                std::string(name), {}, line_num + 1});
        shader = &test.shaders.back();
      } else if (name == "compute shader specializations") {
        section = Section::specializations;
      } else if (name == "vertex shader" || name == "fragment shader" || name == "vertex shader passthrough") {
        section = name == "vertex shader passthrough" ? Section::ignored : Section::shader;
        test.shaders.push_back({name == "vertex shader"     ? ShaderKind::vertex_glsl
                                : name == "fragment shader" ? ShaderKind::fragment_glsl
                                                            : ShaderKind::vertex_passthrough,
                                std::string(name), {}, line_num + 1});
        shader = &test.shaders.back();
      } else if (name == "vertex data") {
        if (vertex_data_line) return Error::parse("line {}: a second [vertex data] section", line_num);
        section = Section::vertex_data;
        vertex_data_line = line_num + 1;
      } else if (name == "geometry shader" ||
                 name == "tessellation control shader" ||
                 name == "tessellation evaluation shader" || name == "vertex program" ||
                 name == "fragment program" ||
                 name.find(" spirv") != std::string_view::npos ||
                 name.find("specializations") != std::string_view::npos ||
                 name == "geometry layout" || name == "shader include" ||
                 name == "shader include paths" || name == "indices") {
        // Graphics stages: the file is not a compute-only test; kept so the
        // runner can say why it skips it.
        section = Section::ignored;
        test.shaders.push_back({ShaderKind::other, std::string(name), {}, line_num + 1});
      } else {
        return Error::parse("line {}: unknown section [{}]", line_num, name);
      }
      continue;
    }
    switch (section) {
      case Section::none:  // piglit ignores what comes before the first section
        break;
      case Section::require: {
        if (line.empty() || line.front() == '#') break;
        auto st = parse_requirement(line, test.require);
        if (!st.ok()) return std::move(st).error().context(fmt::format("line {}", line_num));
        break;
      }
      case Section::shader:
        shader->text.append(raw);
        shader->text.push_back('\n');
        break;
      case Section::ignored:
        break;
      case Section::vertex_data:
        vertex_data.append(raw);
        vertex_data.push_back('\n');
        break;
      case Section::specializations: {
        if (line.empty() || line.front() == '#') break;
        auto st = parse_specialization(line, test.compute_specializations);
        if (!st.ok()) return std::move(st).error().context(fmt::format("line {}", line_num));
        break;
      }
      case Section::test: {
        if (line.empty() || line.front() == '#') break;
        // A trailing "# comment" (piglit's sscanf forms ignore what follows).
        for (size_t i = 1; i < line.size(); ++i) {
          if (line[i] == '#' && (line[i - 1] == ' ' || line[i - 1] == '\t')) {
            line = trim(line.substr(0, i));
            break;
          }
        }
        auto body = parse_command(line, line_num);
        if (!body.ok()) return std::move(body).error();
        test.commands.push_back({line_num, std::string(line), std::move(body).value()});
        break;
      }
    }
  }
  if (test.shaders.empty()) return Error::parse("no shader section");
  if (vertex_data_line) {
    AGX_TRY(test.vertex_data, parse_vertex_data(vertex_data, vertex_data_line));
  }
  return test;
}

}  // namespace agx::shadertest
