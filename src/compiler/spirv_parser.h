// The SPIR-V reader's state while it walks a module (spirv_module.cpp,
// spirv_module_types.cpp): one method per family of instructions, each
// returning whether it took the instruction. Internal to spirv::parse.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "compiler/spirv_module.h"

namespace agx::compiler::spirv {

class Parser {
 public:
  Parser(std::span<const uint32_t> words, const std::string& entry) : words_(words), entry_(entry) {}
  Result<Module> run();

 private:
  struct RawFunction {
    uint32_t id;
    std::vector<Block> blocks;
    std::vector<uint32_t> vars;
  };

  // Whether one of the families below took the instruction.
  Result<bool> module_level(const Inst& inst);
  // Debug names, extended instruction sets, entry points, execution modes.
  Result<bool> module_info(const Inst& inst);
  Result<bool> decoration(const Inst& inst);
  Result<bool> type(const Inst& inst);
  Result<bool> constant(const Inst& inst);
  // Variables, functions and block labels.
  Result<bool> structure(const Inst& inst);
  // An instruction inside a block: phi, merge, terminator or body.
  Status block_instruction(Inst inst);
  Status check_redefinition(const Inst& inst);
  void execution_mode(std::span<const uint32_t> w);
  // After the walk: the entry point's function, blocks, local size, modes.
  Status take_entry_function();
  Status resolve_local_size();
  Status resolve_derivative_group();

  bool id_ok(uint32_t id) const { return id < m_.bound; }
  // A type operand must name a type declared before (so types have no
  // cycles; forward pointers are not supported).
  bool type_ok(uint32_t id) const { return id < m_.bound && m_.types[id].kind != Type::Kind::none; }
  Error bad(const Inst& inst, std::string_view what) const;
  Type& define_type(uint32_t id, Type::Kind kind);
  Constant& define_constant(const Inst& inst);

  std::span<const uint32_t> words_;
  const std::string& entry_;
  Module m_;
  std::vector<std::pair<uint32_t, std::array<uint32_t, 3>>> entries_;  // function, local size
  std::vector<uint32_t> local_size_ids_;
  std::vector<std::pair<uint32_t, Module::DerivativeGroup>> derivative_modes_;
  std::vector<std::pair<uint32_t, spv::ExecutionMode>> modes_;
  std::vector<RawFunction> functions_;
  Block* block_ = nullptr;
  uint32_t line_ = 0;
  bool in_function_ = false;
};

}  // namespace agx::compiler::spirv
