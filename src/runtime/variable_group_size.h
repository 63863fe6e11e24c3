// GL_ARB_compute_variable_group_size on glslang, which does not know
// `layout(local_size_variable) in;` nor gl_LocalGroupSizeARB: the runner
// compiles the program once per local size a `compute group size` asks for,
// with the layout rewritten to that fixed size (through the pipeline cache,
// so a size is compiled once). In a shader of fixed size the extension's
// gl_LocalGroupSizeARB is the declared size, which is gl_WorkGroupSize.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agx::runtime {

enum class GroupSizeDeclaration { none, fixed, variable };

// What one compilation unit's `layout(...) in;` qualifiers declare.
GroupSizeDeclaration group_size_declaration(std::string_view glsl);

// The unit as glslang is given it: the extension's #extension line emptied
// (lines keep their numbers), gl_LocalGroupSizeARB read as gl_WorkGroupSize,
// and with `local`, local_size_variable replaced by that fixed size.
std::string with_group_size(std::string_view glsl, std::optional<std::array<uint32_t, 3>> local);

}  // namespace agx::runtime
