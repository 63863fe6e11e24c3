// A SPIR-V module read into tables by id: types with their explicit layout
// (Offset, ArrayStride), constants, global variables with their
// decorations, and the blocks of the entry point's function (after
// SPIRV-Tools' exhaustive inlining there is one).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <spirv/unified1/spirv.hpp11>

#include "util/result.h"

namespace agx::compiler::spirv {

struct Inst {
  spv::Op op{};
  std::vector<uint32_t> w;  // operands (after the opcode word)
  uint32_t line = 0;        // OpLine line, 0 when unknown
  uint32_t word_offset = 0; // where in the module
};

struct Type {
  enum class Kind : uint8_t { none, void_, bool_, int_, float_, vector, matrix, array, runtime_array, struct_, pointer, function, image, sampled_image, sampler, other } kind = Kind::none;
  uint32_t width = 0;           // int/float bits
  bool is_signed = false;
  uint32_t elem = 0;            // vector/array/pointer element type, matrix column type
  uint32_t count = 0;           // vector components, array length, matrix columns
  std::vector<uint32_t> members;
  std::vector<uint32_t> member_offsets;  // Offset decorations (UINT32_MAX: none)
  // MatrixStride (0: none) and RowMajor of matrix members (or arrays of
  // matrices), by member index.
  std::vector<uint32_t> member_matrix_stride;
  std::vector<uint8_t> member_row_major;
  // BuiltIn decorations of a block's members (gl_PerVertex), -1: none.
  std::vector<int32_t> member_builtins;
  uint32_t array_stride = 0;    // ArrayStride decoration
  spv::StorageClass storage{};  // pointer
  bool block = false, buffer_block = false;
  // OpTypeImage (elem = sampled type); OpTypeSampledImage (elem = image type).
  spv::Dim image_dim{};
  bool arrayed = false, multisampled = false;
  uint32_t sampled = 0;         // 1: used with a sampler, 2: storage image
  spv::ImageFormat image_format{};
};

struct Constant {
  uint32_t type = 0;
  uint64_t bits = 0;                 // scalar value
  std::vector<uint32_t> parts;       // composite
  bool composite = false, null = false;
};

struct Variable {
  uint32_t type = 0;  // pointer type
  spv::StorageClass storage{};
  uint32_t initializer = 0;
};

struct Decorations {
  uint32_t set = UINT32_MAX, binding = UINT32_MAX, location = UINT32_MAX, offset = UINT32_MAX;
  int32_t builtin = -1;
  // Interface variables (vertex outputs, fragment inputs and outputs): the
  // interpolation qualifiers, Component, Index (dual-source blending).
  bool flat = false, noperspective = false, centroid = false, sample = false;
  uint32_t component = 0, index = 0;
};

struct Block {
  uint32_t id = 0;
  std::vector<Inst> phis;
  std::vector<Inst> body;
  Inst merge;        // OpSelectionMerge / OpLoopMerge, op = OpNop when absent
  Inst terminator;
};

struct Module {
  uint32_t bound = 0;
  std::vector<Type> types;           // by id
  std::vector<Constant> constants;   // by id (type 0: not a constant)
  std::vector<uint8_t> is_constant;
  std::vector<Variable> variables;   // by id (type 0: not a variable)
  std::vector<uint8_t> is_variable;
  std::vector<Decorations> decorations;
  std::vector<std::string> names;
  std::vector<uint32_t> ext_glsl;    // ids of imported GLSL.std.450 sets (bool per id)
  std::vector<uint32_t> ext_amd_trinary;  // ids of SPV_AMD_shader_trinary_minmax imports
  std::vector<uint32_t> interface;   // entry point interface variables
  uint32_t entry_function = 0;
  spv::ExecutionModel execution_model = spv::ExecutionModel::GLCompute;
  std::array<uint32_t, 3> local_size{1, 1, 1};
  // GL_NV_compute_shader_derivatives' arrangement of derivative quads.
  enum class DerivativeGroup : uint8_t { none, quads, linear } derivative_group = DerivativeGroup::none;
  // Fragment execution modes of the entry point (SPIR-V ExecutionMode
  // values: OriginUpperLeft 7, OriginLowerLeft 8, PixelCenterInteger 6,
  // EarlyFragmentTests 9, DepthReplacing 12, ...).
  std::vector<spv::ExecutionMode> execution_modes;
  bool has_mode(spv::ExecutionMode mode) const {
    for (spv::ExecutionMode m : execution_modes)
      if (m == mode) return true;
    return false;
  }
  std::vector<Block> blocks;         // the entry function's blocks, first = entry
  std::vector<int32_t> block_index;  // id -> index in blocks, -1
  std::vector<uint32_t> globals;     // module-scope variables in order
  std::vector<uint32_t> function_variables;
};

// OpenGL loose uniforms of type bool/bvecN (which SPIR-V may not store in a
// UniformConstant variable) become uint/uvecN variables, each load followed
// by `!= 0` (bool_uniforms.cpp). Other modules come back unchanged.
Result<std::vector<uint32_t>> widen_bool_uniforms(std::span<const uint32_t> words);

// Reads `words`; errors name the word offset and what is unsupported
// (several functions left after inlining, an entry point that is not a
// GLCompute, Vertex or Fragment shader ...).
Result<Module> parse(std::span<const uint32_t> words, const std::string& entry);

// The value of a scalar integer/bool OpSpecConstantOp (words: result type,
// result id, opcode, operands) whose operands are all constants by now;
// nullopt for other ops, types, or an undefined result (spirv_spec_fold.cpp).
std::optional<uint64_t> fold_spec_constant_op(const Module& m, std::span<const uint32_t> w);

}  // namespace agx::compiler::spirv
