// The sections of a .shader_test file and its [require] lines.
#include "runtime/shader_test.h"

#include <charconv>

namespace agx::runtime {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

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

Status parse_requirement(std::string_view line, Requirements& req) {
  auto words = split_words(line);
  if (words.empty()) return {};
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
    req.versions.push_back(v);
    return {};
  }
  if (words[0] == "SPIRV") {
    if (words.size() != 2) return Error::parse("'SPIRV' takes YES or ONLY");
    if (words[1] == "YES") req.spirv = Requirements::Spirv::yes;
    else if (words[1] == "ONLY") req.spirv = Requirements::Spirv::only;
    else return Error::parse("'SPIRV {}': expected YES or ONLY", words[1]);
    return {};
  }
  if (words.size() == 1 && starts_with(words[0], "GL_")) {
    req.extensions.emplace_back(words[0]);
    return {};
  }
  if (words.size() == 1 && starts_with(words[0], "!GL_")) {
    req.absent_extensions.emplace_back(words[0].substr(1));
    return {};
  }
  // Limits (GL_MAX_... >= N), SIZE, depthbuffer, ...: kept verbatim for the
  // runner, which skips what it cannot honour.
  req.other.emplace_back(line);
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

bool ShaderTest::has_non_compute_stage() const {
  for (const auto& s : shaders)
    if (s.kind == ShaderKind::other) return true;
  return false;
}

Result<ShaderTest> parse_shader_test(std::string_view text) {
  ShaderTest test;
  enum class Section { none, require, shader, test, ignored } section = Section::none;
  ShaderSection* shader = nullptr;
  bool saw_test = false;
  unsigned line_num = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view raw = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
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
        return Error::unsupported("line {}: [compute shader specializations] is not supported",
                                  line_num);
      } else if (name == "vertex shader" || name == "vertex shader passthrough" ||
                 name == "fragment shader" || name == "geometry shader" ||
                 name == "tessellation control shader" ||
                 name == "tessellation evaluation shader" || name == "vertex program" ||
                 name == "fragment program" || name == "vertex data" ||
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
  return test;
}

}  // namespace agx::runtime
