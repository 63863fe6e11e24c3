// SPIR-V binary reader (spirv_module.h). Layout facts: the SPIR-V
// specification's physical layout (header of 5 words, then instructions
// whose first word is word count << 16 | opcode).
#include "compiler/spirv_module.h"

#include <fmt/format.h>

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

Result<Module> parse(std::span<const uint32_t> words, const std::string& entry) {
  if (words.size() < 5 || words[0] != spv::MagicNumber)
    return Error::decode("SPIR-V: bad magic number or truncated header");
  Module m;
  m.bound = words[3];
  if (m.bound > (1u << 22)) return Error::decode("SPIR-V: id bound {} too large", m.bound);
  m.types.resize(m.bound);
  m.constants.resize(m.bound);
  m.is_constant.resize(m.bound);
  m.variables.resize(m.bound);
  m.is_variable.resize(m.bound);
  m.decorations.resize(m.bound);
  m.names.resize(m.bound);
  m.ext_glsl.resize(m.bound);
  m.ext_amd_trinary.resize(m.bound);
  m.block_index.assign(m.bound, -1);

  std::vector<std::pair<uint32_t, std::array<uint32_t, 3>>> entries;  // function, local size
  std::vector<std::pair<uint32_t, std::string>> entry_names;
  std::vector<uint32_t> local_size_ids;
  std::vector<std::pair<uint32_t, Module::DerivativeGroup>> derivative_modes;
  std::vector<std::pair<uint32_t, spv::ExecutionMode>> modes;
  struct RawFunction { uint32_t id; std::vector<Block> blocks; std::vector<uint32_t> vars; };
  std::vector<RawFunction> functions;
  Block* block = nullptr;
  uint32_t line = 0;
  bool in_function = false;
  std::vector<std::pair<uint32_t, uint32_t>> local_size_fn;

  auto id_ok = [&](uint32_t id) { return id < m.bound; };
  // A type operand must name a type declared before (so types have no
  // cycles; forward pointers are not supported).
  auto type_ok = [&](uint32_t id) { return id < m.bound && m.types[id].kind != Type::Kind::none; };
  for (size_t pos = 5; pos < words.size();) {
    uint32_t count = words[pos] >> 16;
    auto op = static_cast<spv::Op>(words[pos] & 0xFFFF);
    if (count == 0 || pos + count > words.size())
      return Error::decode("SPIR-V: word {}: instruction length {} runs past the end", pos, count);
    std::span<const uint32_t> w = words.subspan(pos + 1, count - 1);
    Inst inst{op, std::vector<uint32_t>(w.begin(), w.end()), line, static_cast<uint32_t>(pos)};
    auto bad = [&](std::string_view what) {
      return Error::decode("SPIR-V: word {}: {}", pos, what);
    };
    // Every id operand we index by is checked against the bound.
    auto need = [&](size_t n) -> bool { return w.size() >= n; };
    pos += count;
    switch (op) {
      case spv::Op::OpLine: if (need(2)) line = w[1]; continue;
      case spv::Op::OpNoLine: line = 0; continue;
      case spv::Op::OpName:
        if (need(2) && id_ok(w[0])) { size_t i = 1; m.names[w[0]] = literal_string(w, i); }
        continue;
      case spv::Op::OpExtInstImport: {
        if (!need(2) || !id_ok(w[0])) return bad("bad OpExtInstImport");
        size_t i = 1;
        std::string set = literal_string(w, i);
        if (set == "GLSL.std.450") m.ext_glsl[w[0]] = 1;
        if (set == "SPV_AMD_shader_trinary_minmax") m.ext_amd_trinary[w[0]] = 1;
        continue;
      }
      case spv::Op::OpEntryPoint: {
        if (!need(3) || !id_ok(w[1])) return bad("bad OpEntryPoint");
        size_t i = 2;
        std::string name = literal_string(w, i);
        if (name != entry) continue;
        m.execution_model = static_cast<spv::ExecutionModel>(w[0]);
        if (m.execution_model != spv::ExecutionModel::GLCompute && m.execution_model != spv::ExecutionModel::Vertex &&
            m.execution_model != spv::ExecutionModel::Fragment)
          return bad(fmt::format("entry point '{}' has execution model {} (GLCompute, Vertex and Fragment are supported)",
                                 name, w[0]));
        m.entry_function = w[1];
        for (; i < w.size(); ++i) m.interface.push_back(w[i]);
        continue;
      }
      case spv::Op::OpExecutionMode:
      case spv::Op::OpExecutionModeId:
        if (need(2)) modes.push_back({w[0], static_cast<spv::ExecutionMode>(w[1])});
        if (need(5) && static_cast<spv::ExecutionMode>(w[1]) == spv::ExecutionMode::LocalSize) {
          local_size_fn.push_back({w[0], 0});
          entries.push_back({w[0], {w[2], w[3], w[4]}});
        } else if (need(5) && static_cast<spv::ExecutionMode>(w[1]) == spv::ExecutionMode::LocalSizeId) {
          entries.push_back({w[0], {UINT32_MAX, w[2], w[3]}});
          local_size_ids = {w[2], w[3], w[4]};
        } else if (need(2) && w[1] == static_cast<uint32_t>(spv::ExecutionMode::DerivativeGroupQuadsNV)) {
          derivative_modes.push_back({w[0], Module::DerivativeGroup::quads});
        } else if (need(2) && w[1] == static_cast<uint32_t>(spv::ExecutionMode::DerivativeGroupLinearNV)) {
          derivative_modes.push_back({w[0], Module::DerivativeGroup::linear});
        }
        continue;
      case spv::Op::OpDecorate: {
        if (!need(2) || !id_ok(w[0])) return bad("bad OpDecorate");
        Decorations& d = m.decorations[w[0]];
        auto dec = static_cast<spv::Decoration>(w[1]);
        uint32_t arg = w.size() > 2 ? w[2] : 0;
        switch (dec) {
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
          case spv::Decoration::ArrayStride: m.types[w[0]].array_stride = arg; break;
          case spv::Decoration::Block: m.types[w[0]].block = true; break;
          case spv::Decoration::BufferBlock: m.types[w[0]].buffer_block = true; break;
          default: break;
        }
        continue;
      }
      case spv::Op::OpMemberDecorate: {
        if (!need(3) || !id_ok(w[0])) return bad("bad OpMemberDecorate");
        auto dec = static_cast<spv::Decoration>(w[2]);
        if (w[1] > 4096) return bad("member index too large");
        Type& st = m.types[w[0]];
        if (dec == spv::Decoration::Offset && need(4)) {
          if (st.member_offsets.size() <= w[1]) st.member_offsets.resize(w[1] + 1, UINT32_MAX);
          st.member_offsets[w[1]] = w[3];
        } else if (dec == spv::Decoration::MatrixStride && need(4)) {
          if (st.member_matrix_stride.size() <= w[1]) st.member_matrix_stride.resize(w[1] + 1, 0);
          st.member_matrix_stride[w[1]] = w[3];
        } else if (dec == spv::Decoration::BuiltIn && need(4)) {
          if (st.member_builtins.size() <= w[1]) st.member_builtins.resize(w[1] + 1, -1);
          st.member_builtins[w[1]] = static_cast<int32_t>(w[3]);
        } else if (dec == spv::Decoration::RowMajor) {
          if (st.member_row_major.size() <= w[1]) st.member_row_major.resize(w[1] + 1, 0);
          st.member_row_major[w[1]] = 1;
        }
        continue;
      }
      default: break;
    }
    // Types. An id is defined once (no cycles through redefinitions).
    bool type_op = op == spv::Op::OpTypeVoid || op == spv::Op::OpTypeBool || op == spv::Op::OpTypeInt ||
                   op == spv::Op::OpTypeFloat || op == spv::Op::OpTypeVector || op == spv::Op::OpTypeArray ||
                   op == spv::Op::OpTypeRuntimeArray || op == spv::Op::OpTypeStruct || op == spv::Op::OpTypePointer ||
                   op == spv::Op::OpTypeFunction || op == spv::Op::OpTypeImage || op == spv::Op::OpTypeSampler ||
                   op == spv::Op::OpTypeSampledImage || op == spv::Op::OpTypeMatrix || op == spv::Op::OpTypeOpaque ||
                   op == spv::Op::OpTypeEvent || op == spv::Op::OpTypeDeviceEvent || op == spv::Op::OpTypeReserveId ||
                   op == spv::Op::OpTypeQueue || op == spv::Op::OpTypePipe ||
                   op == spv::Op::OpTypeAccelerationStructureKHR || op == spv::Op::OpTypeRayQueryKHR;
    if (type_op && !w.empty() && id_ok(w[0]) && (m.types[w[0]].kind != Type::Kind::none || m.is_constant[w[0]]))
      return bad("id defined twice");
    bool const_op = op == spv::Op::OpConstantTrue || op == spv::Op::OpConstantFalse || op == spv::Op::OpConstant ||
                    op == spv::Op::OpConstantComposite || op == spv::Op::OpConstantNull || op == spv::Op::OpSpecConstant ||
                    op == spv::Op::OpSpecConstantTrue || op == spv::Op::OpSpecConstantFalse ||
                    op == spv::Op::OpSpecConstantComposite;
    if (const_op && w.size() > 1 && id_ok(w[1]) && (m.is_constant[w[1]] || m.types[w[1]].kind != Type::Kind::none))
      return bad("id defined twice");
    auto result_type = [&](Type::Kind k) -> Type& {
      Type& t = m.types[w[0]];
      t.kind = k;
      return t;
    };
    switch (op) {
      case spv::Op::OpTypeVoid: if (!need(1) || !id_ok(w[0])) return bad("bad type"); result_type(Type::Kind::void_); continue;
      case spv::Op::OpTypeBool: if (!need(1) || !id_ok(w[0])) return bad("bad type"); result_type(Type::Kind::bool_); continue;
      case spv::Op::OpTypeInt: {
        if (!need(3) || !id_ok(w[0])) return bad("bad OpTypeInt");
        Type& t = result_type(Type::Kind::int_); t.width = w[1]; t.is_signed = w[2]; continue;
      }
      case spv::Op::OpTypeFloat: {
        if (!need(2) || !id_ok(w[0])) return bad("bad OpTypeFloat");
        Type& t = result_type(Type::Kind::float_); t.width = w[1]; continue;
      }
      case spv::Op::OpTypeVector: {
        if (!need(3) || !id_ok(w[0]) || !type_ok(w[1]) || w[2] < 2 || w[2] > 4) return bad("bad OpTypeVector");
        Type& t = result_type(Type::Kind::vector); t.elem = w[1]; t.count = w[2]; continue;
      }
      case spv::Op::OpTypeMatrix: {
        // Columns of a float vector type, 2-4 of them.
        if (!need(3) || !id_ok(w[0]) || !type_ok(w[1]) || m.types[w[1]].kind != Type::Kind::vector || w[2] < 2 || w[2] > 4)
          return bad("bad OpTypeMatrix");
        Type& t = result_type(Type::Kind::matrix); t.elem = w[1]; t.count = w[2]; continue;
      }
      case spv::Op::OpTypeArray: {
        if (!need(3) || !id_ok(w[0]) || !type_ok(w[1]) || !id_ok(w[2])) return bad("bad OpTypeArray");
        Type& t = result_type(Type::Kind::array); t.elem = w[1];
        if (!m.is_constant[w[2]]) return bad("array length is not a constant");
        t.count = static_cast<uint32_t>(m.constants[w[2]].bits);
        continue;
      }
      case spv::Op::OpTypeRuntimeArray: {
        if (!need(2) || !id_ok(w[0]) || !type_ok(w[1])) return bad("bad OpTypeRuntimeArray");
        Type& t = result_type(Type::Kind::runtime_array); t.elem = w[1]; continue;
      }
      case spv::Op::OpTypeStruct: {
        if (!need(1) || !id_ok(w[0])) return bad("bad OpTypeStruct");
        Type& t = result_type(Type::Kind::struct_);
        t.members.assign(w.begin() + 1, w.end());
        for (uint32_t mem : t.members) if (!type_ok(mem) || mem == w[0]) return bad("bad struct member");
        t.member_offsets.resize(t.members.size(), UINT32_MAX);
        continue;
      }
      case spv::Op::OpTypePointer: {
        if (!need(3) || !id_ok(w[0]) || !type_ok(w[2])) return bad("bad OpTypePointer");
        Type& t = result_type(Type::Kind::pointer); t.storage = static_cast<spv::StorageClass>(w[1]); t.elem = w[2]; continue;
      }
      case spv::Op::OpTypeFunction: if (!need(1) || !id_ok(w[0])) return bad("bad type"); result_type(Type::Kind::function); continue;
      case spv::Op::OpTypeImage: {
        if (!need(8) || !id_ok(w[0]) || !type_ok(w[1])) return bad("bad OpTypeImage");
        Type& t = result_type(Type::Kind::image);
        t.elem = w[1];
        t.image_dim = static_cast<spv::Dim>(w[2]);
        t.arrayed = w[4] != 0;
        t.multisampled = w[5] != 0;
        t.sampled = w[6];
        t.image_format = static_cast<spv::ImageFormat>(w[7]);
        continue;
      }
      case spv::Op::OpTypeSampledImage: {
        if (!need(2) || !id_ok(w[0]) || !type_ok(w[1]) || m.types[w[1]].kind != Type::Kind::image)
          return bad("bad OpTypeSampledImage");
        result_type(Type::Kind::sampled_image).elem = w[1];
        continue;
      }
      case spv::Op::OpTypeSampler:
        if (!need(1) || !id_ok(w[0])) return bad("bad type");
        result_type(Type::Kind::sampler);
        continue;
      case spv::Op::OpTypeOpaque: case spv::Op::OpTypeEvent:
      case spv::Op::OpTypeDeviceEvent: case spv::Op::OpTypeReserveId: case spv::Op::OpTypeQueue:
      case spv::Op::OpTypePipe: case spv::Op::OpTypeAccelerationStructureKHR: case spv::Op::OpTypeRayQueryKHR:
        if (!need(1) || !id_ok(w[0])) return bad("bad type");
        result_type(Type::Kind::other);
        continue;
      default: break;
    }
    // Constants (specialization constants take their default values).
    switch (op) {
      case spv::Op::OpConstantTrue: case spv::Op::OpConstantFalse:
      case spv::Op::OpSpecConstantTrue: case spv::Op::OpSpecConstantFalse: {
        if (!need(2) || !id_ok(w[1]) || !type_ok(w[0])) return bad("bad constant");
        Constant& c = m.constants[w[1]]; c.type = w[0];
        c.bits = op == spv::Op::OpConstantTrue || op == spv::Op::OpSpecConstantTrue;
        m.is_constant[w[1]] = 1;
        continue;
      }
      case spv::Op::OpConstant: case spv::Op::OpSpecConstant: {
        if (!need(3) || !id_ok(w[1]) || !type_ok(w[0])) return bad("bad constant");
        Constant& c = m.constants[w[1]]; c.type = w[0];
        c.bits = w[2] | (w.size() > 3 ? uint64_t{w[3]} << 32 : 0);
        m.is_constant[w[1]] = 1;
        continue;
      }
      case spv::Op::OpConstantComposite: case spv::Op::OpSpecConstantComposite: {
        if (!need(2) || !id_ok(w[1]) || !type_ok(w[0])) return bad("bad constant");
        Constant& c = m.constants[w[1]]; c.type = w[0]; c.composite = true;
        c.parts.assign(w.begin() + 2, w.end());
        for (uint32_t p : c.parts) if (!id_ok(p) || !m.is_constant[p] || p == w[1]) return bad("composite part is not a constant");
        m.is_constant[w[1]] = 1;
        continue;
      }
      case spv::Op::OpUndef:  // at module scope (merge-return's phis use one): any value, so zero
        if (in_function) break;
        [[fallthrough]];
      case spv::Op::OpConstantNull: {
        if (!need(2) || !id_ok(w[1]) || !type_ok(w[0])) return bad("bad constant");
        Constant& c = m.constants[w[1]]; c.type = w[0]; c.null = true;
        m.is_constant[w[1]] = 1;
        continue;
      }
      case spv::Op::OpSpecConstantOp:
        if (need(4) && id_ok(w[1]) && type_ok(w[0])) {
          if (auto v = fold_spec_constant_op(m, w)) {
            Constant& c = m.constants[w[1]]; c.type = w[0];
            c.bits = *v;
            m.is_constant[w[1]] = 1;
            continue;
          }
        }
        // What SPIRV-Tools' fold-spec-constant-op pass could not fold.
        return Error::unsupported("SPIR-V: word {}: OpSpecConstantOp with opcode {} (a specialization constant expression "
                                  "SPIRV-Tools does not fold) is not supported",
                                  inst.word_offset, w.size() > 2 ? w[2] : 0);
      default: break;
    }
    switch (op) {
      case spv::Op::OpVariable: {
        if (!need(3) || !id_ok(w[1]) || !type_ok(w[0]) || m.types[w[0]].kind != Type::Kind::pointer) return bad("bad OpVariable");
        Variable& v = m.variables[w[1]];
        v.type = w[0];
        v.storage = static_cast<spv::StorageClass>(w[2]);
        v.initializer = w.size() > 3 ? w[3] : 0;
        m.is_variable[w[1]] = 1;
        if (in_function) functions.back().vars.push_back(w[1]);
        else m.globals.push_back(w[1]);
        if (in_function && block) block->body.push_back(inst);
        continue;
      }
      case spv::Op::OpFunction:
        if (!need(2) || !id_ok(w[1])) return bad("bad OpFunction");
        functions.push_back(RawFunction{w[1], {}, {}});
        in_function = true;
        block = nullptr;
        continue;
      case spv::Op::OpFunctionParameter:
        return bad("function parameters (a function left after inlining) are not supported");
      case spv::Op::OpFunctionEnd:
        in_function = false;
        block = nullptr;
        continue;
      case spv::Op::OpLabel: {
        if (!in_function || !need(1) || !id_ok(w[0])) return bad("OpLabel outside a function");
        functions.back().blocks.push_back(Block{w[0], {}, {}, Inst{spv::Op::OpNop, {}, 0, 0}, Inst{spv::Op::OpNop, {}, 0, 0}});
        block = &functions.back().blocks.back();
        continue;
      }
      default: break;
    }
    if (!in_function) continue;  // other module-level instructions: capabilities, strings ...
    if (!block) return bad("instruction outside a block");
    switch (op) {
      case spv::Op::OpPhi: block->phis.push_back(std::move(inst)); break;
      case spv::Op::OpSelectionMerge: case spv::Op::OpLoopMerge: block->merge = std::move(inst); break;
      case spv::Op::OpBranch: case spv::Op::OpBranchConditional: case spv::Op::OpSwitch:
      case spv::Op::OpReturn: case spv::Op::OpReturnValue: case spv::Op::OpKill:
      case spv::Op::OpUnreachable: case spv::Op::OpTerminateInvocation:
        block->terminator = std::move(inst);
        block = nullptr;
        break;
      default: block->body.push_back(std::move(inst)); break;
    }
  }
  if (!m.entry_function) return Error::not_found("SPIR-V: no entry point named '{}'", entry);
  for (auto& [fn, size] : entries) {
    if (fn != m.entry_function) continue;
    if (size[0] == UINT32_MAX) {
      for (int i = 0; i < 3; ++i) {
        uint32_t id = local_size_ids[i];
        if (!id_ok(id) || !m.is_constant[id]) return Error::decode("SPIR-V: LocalSizeId operand is not a constant");
        m.local_size[i] = static_cast<uint32_t>(m.constants[id].bits);
      }
    } else {
      m.local_size = size;
    }
  }
  // The WorkgroupSize built-in constant overrides the execution mode.
  for (uint32_t id = 0; id < m.bound; ++id) {
    if (m.is_constant[id] && m.decorations[id].builtin == static_cast<int32_t>(spv::BuiltIn::WorkgroupSize) &&
        m.constants[id].parts.size() == 3)
      for (int i = 0; i < 3; ++i) m.local_size[i] = static_cast<uint32_t>(m.constants[m.constants[id].parts[i]].bits);
  }
  size_t found = 0;
  for (auto& f : functions) {
    if (f.id != m.entry_function) {
      return Error::unsupported("SPIR-V: function %{} ({}) is left after inlining; calls are not supported", f.id,
                                m.names[f.id].empty() ? "unnamed" : m.names[f.id]);
    }
    ++found;
    m.blocks = std::move(f.blocks);
    m.function_variables = std::move(f.vars);
  }
  if (!found || m.blocks.empty()) return Error::decode("SPIR-V: entry point function has no body");
  for (size_t i = 0; i < m.blocks.size(); ++i) {
    if (m.blocks[i].terminator.op == spv::Op::OpNop) return Error::decode("SPIR-V: block %{} has no terminator", m.blocks[i].id);
    m.block_index[m.blocks[i].id] = static_cast<int32_t>(i);
  }
  for (size_t i = 0; i < m.local_size.size(); ++i)
    if (m.local_size[i] == 0 || m.local_size[i] > 1024) return Error::unsupported("SPIR-V: workgroup size {} out of range 1..1024", m.local_size[i]);
  for (auto& [fn, mode] : modes)
    if (fn == m.entry_function) m.execution_modes.push_back(mode);
  for (auto& [fn, group] : derivative_modes) {
    if (fn != m.entry_function) continue;
    if (m.derivative_group != Module::DerivativeGroup::none && m.derivative_group != group)
      return Error::decode("SPIR-V: both DerivativeGroupQuadsNV and DerivativeGroupLinearNV are declared");
    m.derivative_group = group;
  }
  // GL_NV_compute_shader_derivatives: quads need an even local size in x
  // and y, linear a total size that is a multiple of 4.
  const auto& ls = m.local_size;
  if (m.derivative_group == Module::DerivativeGroup::quads && (ls[0] % 2 || ls[1] % 2))
    return Error::decode("SPIR-V: DerivativeGroupQuadsNV needs an even local size in x and y, got {}x{}", ls[0], ls[1]);
  if (m.derivative_group == Module::DerivativeGroup::linear && (ls[0] * ls[1] * ls[2]) % 4)
    return Error::decode("SPIR-V: DerivativeGroupLinearNV needs a local size that is a multiple of 4, got {}",
                         ls[0] * ls[1] * ls[2]);
  return m;
}

}  // namespace agx::compiler::spirv
