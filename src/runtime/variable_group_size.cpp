#include "runtime/variable_group_size.h"

#include <regex>

#include <fmt/format.h>

namespace agx::runtime {

namespace {

const std::regex& input_layout() {
  static const std::regex re(R"(layout\s*\(([^)]*)\)\s*in\s*;)");
  return re;
}

}  // namespace

GroupSizeDeclaration group_size_declaration(std::string_view glsl) {
  static const std::regex variable(R"(\blocal_size_variable\b)");
  static const std::regex fixed(R"(\blocal_size_[xyz]\s*=)");
  std::string text(glsl);
  GroupSizeDeclaration d = GroupSizeDeclaration::none;
  for (std::sregex_iterator it(text.begin(), text.end(), input_layout()), end; it != end; ++it) {
    std::string qualifiers = (*it)[1].str();
    if (std::regex_search(qualifiers, variable)) return GroupSizeDeclaration::variable;
    if (std::regex_search(qualifiers, fixed)) d = GroupSizeDeclaration::fixed;
  }
  return d;
}

std::string with_group_size(std::string_view glsl, std::optional<std::array<uint32_t, 3>> local) {
  static const std::regex extension(R"(^[ \t]*#[ \t]*extension[ \t]+GL_ARB_compute_variable_group_size\b[^\n]*)",
                                    std::regex::multiline);
  static const std::regex builtin(R"(\bgl_LocalGroupSizeARB\b)");
  static const std::regex variable(R"(\blocal_size_variable\b)");
  std::string text = std::regex_replace(std::string(glsl), extension, "");
  text = std::regex_replace(text, builtin, "gl_WorkGroupSize");
  if (local)
    text = std::regex_replace(text, variable,
                              fmt::format("local_size_x = {}, local_size_y = {}, local_size_z = {}", (*local)[0],
                                          (*local)[1], (*local)[2]));
  return text;
}

}  // namespace agx::runtime
