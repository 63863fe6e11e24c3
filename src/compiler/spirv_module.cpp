// SPIR-V binary reader (spirv_module.h). Layout facts: the SPIR-V
// specification's physical layout (header of 5 words, then instructions
// whose first word is word count << 16 | opcode). Types and constants are
// read in spirv_module_types.cpp.
#include "compiler/spirv_module.h"

#include <fmt/format.h>

#include "compiler/spirv_parser.h"

namespace agx::compiler::spirv {

namespace {

std::string literal_string(std::span<const uint32_t> w, size_t& i) {
  std::string s;
  for (; i < w.size(); ++i) {
    for (int b = 0; b < 4; ++b) {
      char c = static_cast<char>((w[i] >> (8 * b)) & 0xFF);
      if (!c) { ++i; return s; }
      s += c;
    }
  }
  return s;
}

}  // namespace

Error Parser::bad(const Inst& inst, std::string_view what) const {
  return Error::decode("SPIR-V: word {}: {}", inst.word_offset, what);
}

Result<Module> parse(std::span<const uint32_t> words, const std::string& entry) {
  return Parser(words, entry).run();
}

Result<Module> Parser::run() {
  if (words_.size() < 5 || words_[0] != spv::MagicNumber)
    return Error::decode("SPIR-V: bad magic number or truncated header");
  m_.bound = words_[3];
  if (m_.bound > (1u << 22)) return Error::decode("SPIR-V: id bound {} too large", m_.bound);
  m_.types.resize(m_.bound);
  m_.constants.resize(m_.bound);
  m_.is_constant.resize(m_.bound);
  m_.variables.resize(m_.bound);
  m_.is_variable.resize(m_.bound);
  m_.decorations.resize(m_.bound);
  m_.names.resize(m_.bound);
  m_.ext_glsl.resize(m_.bound);
  m_.ext_amd_trinary.resize(m_.bound);
  m_.block_index.assign(m_.bound, -1);

  for (size_t pos = 5; pos < words_.size();) {
    uint32_t count = words_[pos] >> 16;
    auto op = static_cast<spv::Op>(words_[pos] & 0xFFFF);
    if (count == 0 || pos + count > words_.size())
      return Error::decode("SPIR-V: word {}: instruction length {} runs past the end", pos, count);
    std::span<const uint32_t> w = words_.subspan(pos + 1, count - 1);
    Inst inst{op, std::vector<uint32_t>(w.begin(), w.end()), line_, static_cast<uint32_t>(pos)};
    pos += count;
    AGX_TRY(bool taken, module_level(inst));
    if (taken || !in_function_) continue;  // other module-level instructions: capabilities, strings ...
    AGX_CHECK(block_instruction(std::move(inst)));
  }
  if (!m_.entry_function) return Error::not_found("SPIR-V: no entry point named '{}'", entry_);
  AGX_CHECK(take_entry_function());
  AGX_CHECK(resolve_local_size());
  for (auto& [fn, mode] : modes_)
    if (fn == m_.entry_function) m_.execution_modes.push_back(mode);
  AGX_CHECK(resolve_derivative_group());
  return std::move(m_);
}

// Each family takes its instructions; every id operand indexed by is
// checked against the bound.
Result<bool> Parser::module_level(const Inst& inst) {
  for (auto family : {&Parser::module_info, &Parser::decoration, &Parser::type, &Parser::constant, &Parser::structure}) {
    AGX_TRY(bool taken, (this->*family)(inst));
    if (taken) return true;
  }
  return false;
}

Result<bool> Parser::module_info(const Inst& inst) {
  std::span<const uint32_t> w = inst.w;
  switch (inst.op) {
    case spv::Op::OpLine: if (w.size() >= 2) line_ = w[1]; return true;
    case spv::Op::OpNoLine: line_ = 0; return true;
    case spv::Op::OpName:
      if (w.size() >= 2 && id_ok(w[0])) { size_t i = 1; m_.names[w[0]] = literal_string(w, i); }
      return true;
    case spv::Op::OpExtInstImport: {
      if (w.size() < 2 || !id_ok(w[0])) return bad(inst, "bad OpExtInstImport");
      size_t i = 1;
      std::string set = literal_string(w, i);
      if (set == "GLSL.std.450") m_.ext_glsl[w[0]] = 1;
      if (set == "SPV_AMD_shader_trinary_minmax") m_.ext_amd_trinary[w[0]] = 1;
      return true;
    }
    case spv::Op::OpEntryPoint: {
      if (w.size() < 3 || !id_ok(w[1])) return bad(inst, "bad OpEntryPoint");
      size_t i = 2;
      std::string name = literal_string(w, i);
      if (name != entry_) return true;
      m_.execution_model = static_cast<spv::ExecutionModel>(w[0]);
      if (m_.execution_model != spv::ExecutionModel::GLCompute && m_.execution_model != spv::ExecutionModel::Vertex &&
          m_.execution_model != spv::ExecutionModel::Fragment)
        return bad(inst, fmt::format("entry point '{}' has execution model {} (GLCompute, Vertex and Fragment are "
                                     "supported)", name, w[0]));
      m_.entry_function = w[1];
      for (; i < w.size(); ++i) m_.interface.push_back(w[i]);
      return true;
    }
    case spv::Op::OpExecutionMode:
    case spv::Op::OpExecutionModeId:
      execution_mode(w);
      return true;
    default: return false;
  }
}

void Parser::execution_mode(std::span<const uint32_t> w) {
  if (w.size() < 2) return;
  const auto mode = static_cast<spv::ExecutionMode>(w[1]);
  modes_.push_back({w[0], mode});
  if (w.size() >= 5 && mode == spv::ExecutionMode::LocalSize) {
    entries_.push_back({w[0], {w[2], w[3], w[4]}});
  } else if (w.size() >= 5 && mode == spv::ExecutionMode::LocalSizeId) {
    entries_.push_back({w[0], {UINT32_MAX, w[2], w[3]}});
    local_size_ids_ = {w[2], w[3], w[4]};
  } else if (mode == spv::ExecutionMode::DerivativeGroupQuadsNV) {
    derivative_modes_.push_back({w[0], Module::DerivativeGroup::quads});
  } else if (mode == spv::ExecutionMode::DerivativeGroupLinearNV) {
    derivative_modes_.push_back({w[0], Module::DerivativeGroup::linear});
  }
}

Result<bool> Parser::decoration(const Inst& inst) {
  std::span<const uint32_t> w = inst.w;
  if (inst.op == spv::Op::OpDecorate) {
    if (w.size() < 2 || !id_ok(w[0])) return bad(inst, "bad OpDecorate");
    Decorations& d = m_.decorations[w[0]];
    uint32_t arg = w.size() > 2 ? w[2] : 0;
    switch (static_cast<spv::Decoration>(w[1])) {
      case spv::Decoration::DescriptorSet: d.set = arg; break;
      case spv::Decoration::Binding: d.binding = arg; break;
      case spv::Decoration::Location: d.location = arg; break;
      case spv::Decoration::Offset: d.offset = arg; break;
      case spv::Decoration::BuiltIn: d.builtin = static_cast<int32_t>(arg); break;
      case spv::Decoration::Flat: d.flat = true; break;
      case spv::Decoration::NoPerspective: d.noperspective = true; break;
      case spv::Decoration::Centroid: d.centroid = true; break;
      case spv::Decoration::Sample: d.sample = true; break;
      case spv::Decoration::Component: d.component = arg; break;
      case spv::Decoration::Index: d.index = arg; break;
      case spv::Decoration::ArrayStride: m_.types[w[0]].array_stride = arg; break;
      case spv::Decoration::Block: m_.types[w[0]].block = true; break;
      case spv::Decoration::BufferBlock: m_.types[w[0]].buffer_block = true; break;
      default: break;
    }
    return true;
  }
  if (inst.op != spv::Op::OpMemberDecorate) return false;
  if (w.size() < 3 || !id_ok(w[0])) return bad(inst, "bad OpMemberDecorate");
  auto dec = static_cast<spv::Decoration>(w[2]);
  if (w[1] > 4096) return bad(inst, "member index too large");
  Type& st = m_.types[w[0]];
  // A member's decoration, in a per-member vector grown to reach it.
  auto member = [&](auto& values, auto fill) -> auto& {
    if (values.size() <= w[1]) values.resize(w[1] + 1, fill);
    return values[w[1]];
  };
  const bool has_arg = w.size() >= 4;
  if (dec == spv::Decoration::Offset && has_arg) member(st.member_offsets, UINT32_MAX) = w[3];
  else if (dec == spv::Decoration::MatrixStride && has_arg) member(st.member_matrix_stride, 0u) = w[3];
  else if (dec == spv::Decoration::BuiltIn && has_arg) member(st.member_builtins, -1) = static_cast<int32_t>(w[3]);
  else if (dec == spv::Decoration::RowMajor) member(st.member_row_major, 0) = 1;
  return true;
}

Result<bool> Parser::structure(const Inst& inst) {
  std::span<const uint32_t> w = inst.w;
  switch (inst.op) {
    case spv::Op::OpVariable: {
      if (w.size() < 3 || !id_ok(w[1]) || !type_ok(w[0]) || m_.types[w[0]].kind != Type::Kind::pointer)
        return bad(inst, "bad OpVariable");
      Variable& v = m_.variables[w[1]];
      v.type = w[0];
      v.storage = static_cast<spv::StorageClass>(w[2]);
      v.initializer = w.size() > 3 ? w[3] : 0;
      m_.is_variable[w[1]] = 1;
      if (in_function_) functions_.back().vars.push_back(w[1]);
      else m_.globals.push_back(w[1]);
      if (in_function_ && block_) block_->body.push_back(inst);
      return true;
    }
    case spv::Op::OpFunction:
      if (w.size() < 2 || !id_ok(w[1])) return bad(inst, "bad OpFunction");
      functions_.push_back(RawFunction{w[1], {}, {}});
      in_function_ = true;
      block_ = nullptr;
      return true;
    case spv::Op::OpFunctionParameter:
      return bad(inst, "function parameters (a function left after inlining) are not supported");
    case spv::Op::OpFunctionEnd:
      in_function_ = false;
      block_ = nullptr;
      return true;
    case spv::Op::OpLabel:
      if (!in_function_ || w.empty() || !id_ok(w[0])) return bad(inst, "OpLabel outside a function");
      functions_.back().blocks.push_back(
          Block{w[0], {}, {}, Inst{spv::Op::OpNop, {}, 0, 0}, Inst{spv::Op::OpNop, {}, 0, 0}});
      block_ = &functions_.back().blocks.back();
      return true;
    default: return false;
  }
}

Status Parser::block_instruction(Inst inst) {
  if (!block_) return bad(inst, "instruction outside a block");
  switch (inst.op) {
    case spv::Op::OpPhi: block_->phis.push_back(std::move(inst)); break;
    case spv::Op::OpSelectionMerge: case spv::Op::OpLoopMerge: block_->merge = std::move(inst); break;
    case spv::Op::OpBranch: case spv::Op::OpBranchConditional: case spv::Op::OpSwitch:
    case spv::Op::OpReturn: case spv::Op::OpReturnValue: case spv::Op::OpKill:
    case spv::Op::OpUnreachable: case spv::Op::OpTerminateInvocation:
      block_->terminator = std::move(inst);
      block_ = nullptr;
      break;
    default: block_->body.push_back(std::move(inst)); break;
  }
  return {};
}

Status Parser::take_entry_function() {
  size_t found = 0;
  for (auto& f : functions_) {
    if (f.id != m_.entry_function) {
      return Error::unsupported("SPIR-V: function %{} ({}) is left after inlining; calls are not supported", f.id,
                                m_.names[f.id].empty() ? "unnamed" : m_.names[f.id]);
    }
    ++found;
    m_.blocks = std::move(f.blocks);
    m_.function_variables = std::move(f.vars);
  }
  if (!found || m_.blocks.empty()) return Error::decode("SPIR-V: entry point function has no body");
  for (size_t i = 0; i < m_.blocks.size(); ++i) {
    if (m_.blocks[i].terminator.op == spv::Op::OpNop)
      return Error::decode("SPIR-V: block %{} has no terminator", m_.blocks[i].id);
    m_.block_index[m_.blocks[i].id] = static_cast<int32_t>(i);
  }
  return {};
}

Status Parser::resolve_local_size() {
  for (auto& [fn, size] : entries_) {
    if (fn != m_.entry_function) continue;
    if (size[0] != UINT32_MAX) {
      m_.local_size = size;
      continue;
    }
    for (int i = 0; i < 3; ++i) {
      uint32_t id = local_size_ids_[i];
      if (!id_ok(id) || !m_.is_constant[id]) return Error::decode("SPIR-V: LocalSizeId operand is not a constant");
      m_.local_size[i] = static_cast<uint32_t>(m_.constants[id].bits);
    }
  }
  // The WorkgroupSize built-in constant overrides the execution mode.
  for (uint32_t id = 0; id < m_.bound; ++id) {
    if (m_.is_constant[id] && m_.decorations[id].builtin == static_cast<int32_t>(spv::BuiltIn::WorkgroupSize) &&
        m_.constants[id].parts.size() == 3)
      for (int i = 0; i < 3; ++i) m_.local_size[i] = static_cast<uint32_t>(m_.constants[m_.constants[id].parts[i]].bits);
  }
  for (uint32_t size : m_.local_size)
    if (size == 0 || size > 1024) return Error::unsupported("SPIR-V: workgroup size {} out of range 1..1024", size);
  return {};
}

Status Parser::resolve_derivative_group() {
  for (auto& [fn, group] : derivative_modes_) {
    if (fn != m_.entry_function) continue;
    if (m_.derivative_group != Module::DerivativeGroup::none && m_.derivative_group != group)
      return Error::decode("SPIR-V: both DerivativeGroupQuadsNV and DerivativeGroupLinearNV are declared");
    m_.derivative_group = group;
  }
  // GL_NV_compute_shader_derivatives: quads need an even local size in x
  // and y, linear a total size that is a multiple of 4.
  const auto& ls = m_.local_size;
  if (m_.derivative_group == Module::DerivativeGroup::quads && (ls[0] % 2 || ls[1] % 2))
    return Error::decode("SPIR-V: DerivativeGroupQuadsNV needs an even local size in x and y, got {}x{}", ls[0], ls[1]);
  if (m_.derivative_group == Module::DerivativeGroup::linear && (ls[0] * ls[1] * ls[2]) % 4)
    return Error::decode("SPIR-V: DerivativeGroupLinearNV needs a local size that is a multiple of 4, got {}",
                         ls[0] * ls[1] * ls[2]);
  return {};
}

}  // namespace agx::compiler::spirv
