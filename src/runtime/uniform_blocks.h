// The members of a program's uniform blocks as GL enumerates them (names,
// std140 offsets, array and matrix strides, row-major), read from the
// SPIR-V module glslang made: the layout decorations (Offset, ArrayStride,
// MatrixStride, RowMajor) the compiler also lays its buffer accesses out
// by. `uniform TYPE NAME VALUES` of a block member writes the block's
// buffer there (X11Libre/mirror.fdo.piglit tests/shaders/shader_runner.c
// set_ubo_uniform).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "util/result.h"

namespace agx::runtime {

struct BlockMember {
  std::string name;          // GL's name: "m", "Block.m", "s.x", "a" (arrays without [i])
  uint32_t offset_B = 0;     // of element 0
  uint32_t array_stride_B = 0;   // 0: not an array
  uint32_t array_length = 1;
  uint32_t matrix_stride_B = 0;  // 0: not a matrix
  bool row_major = false;
  uint32_t size_B = 0;       // one element: 4 per scalar component (a matrix: its columns or rows at the stride)
};

struct UniformBlock {
  std::string name;          // the block name (GL's uniform block name)
  uint32_t binding = 0;
  uint32_t size_B = 0;       // GL_UNIFORM_BLOCK_DATA_SIZE: the end of the last member
  std::vector<BlockMember> members;
};

// Errors name the word offset of a malformed module; blocks of types the
// runtime cannot write (64-bit members included) still list their members.
Result<std::vector<UniformBlock>> uniform_blocks(std::span<const uint32_t> spirv);

// shader_runner binds uniform block i at binding point i
// (glUniformBlockBinding(prog, i, i) in setup_ubos), so every block has a
// buffer of its own: the module with each uniform Block variable's Binding
// set to its index in declaration order (decorations added where the GLSL
// gave none). Other words are copied as they are.
Result<std::vector<uint32_t>> bind_uniform_blocks_by_index(std::span<const uint32_t> spirv);

// Where `name` (GL's member name, optionally with a trailing [i]) is, as
// shader_runner finds it: the block and member, and element i's offset.
struct MemberAt {
  const UniformBlock* block = nullptr;
  const BlockMember* member = nullptr;
  uint32_t offset_B = 0;
};
Result<MemberAt> find_block_member(const std::vector<UniformBlock>& blocks, const std::string& name);

}  // namespace agx::runtime
