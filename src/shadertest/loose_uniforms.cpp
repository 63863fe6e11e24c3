#include "shadertest/loose_uniforms.h"

#include "shadertest/command_words.h"

namespace agx::shadertest {

Result<std::optional<LooseTarget>> find_loose_uniform(const std::vector<compiler::LooseUniform>& uniforms,
                                                      std::string_view name, size_t data_B) {
  const size_t open = name.find('[');
  const std::string_view base = name.substr(0, open);
  const compiler::LooseUniform* lu = nullptr;
  for (const auto& u : uniforms)
    if (u.name == base) lu = &u;
  if (!lu) return std::optional<LooseTarget>{};
  uint32_t at_B = 0;
  size_t level = 0;
  for (std::string_view rest = open == std::string_view::npos ? "" : name.substr(open); !rest.empty(); ++level) {
    const size_t close = rest.find(']');
    if (rest[0] != '[' || close == std::string_view::npos)
      return Error::invalid_argument("uniform {}: '{}' is not NAME[INDEX]...", name, name);
    AGX_TRY(uint32_t i, words::parse_int<uint32_t>(rest.substr(1, close - 1), "array index"));
    if (level >= lu->array_strides_B.size())
      return Error::invalid_argument("uniform {}: {} has {} array levels", name, base, lu->array_strides_B.size());
    at_B += i * lu->array_strides_B[level];
    rest.remove_prefix(close + 1);
  }
  if (at_B + data_B > lu->size_B)
    return Error::invalid_argument("uniform {}: {} bytes at byte {} of a {}-byte uniform", name, data_B, at_B,
                                   lu->size_B);
  return std::optional<LooseTarget>{LooseTarget{lu, at_B}};
}

std::optional<LooseTarget> find_loose_location(const std::vector<compiler::LooseUniform>& uniforms,
                                               uint32_t location, size_t data_B) {
  const compiler::LooseUniform* best = nullptr;
  for (const auto& lu : uniforms)
    if (lu.location <= location && (!best || lu.location > best->location)) best = &lu;
  if (!best) return std::nullopt;
  const uint32_t element = location - best->location;
  if (element && best->array_strides_B.empty()) return std::nullopt;
  // Arrays of arrays count their innermost elements (one location each).
  uint32_t stride = best->array_strides_B.empty() ? 0 : best->array_strides_B.back();
  const uint32_t at_B = element * stride;
  if (at_B + data_B > best->size_B) return std::nullopt;
  return LooseTarget{best, at_B};
}

}  // namespace agx::shadertest
