#include "shadertest/graphics_program.h"

#include "compiler/compiler.h"

namespace agx::shadertest {

std::variant<GraphicsProgram, ProgramError> build_graphics_program(const ShaderTest& test) {
  GraphicsProgram program;
  LoweringState state;
  unsigned version = test.require.glsl_num().value_or(110);
  bool es = test.require.glsl_es();
  for (ShaderKind kind : {ShaderKind::vertex_glsl, ShaderKind::vertex_passthrough, ShaderKind::fragment_glsl}) {
    std::vector<const ShaderSection*> units;
    for (const auto& s : test.shaders)
      if (s.kind == kind) units.push_back(&s);
    if (units.empty()) continue;
    if (units.size() > 1)
      return ProgramError{ProgramError::Kind::several_units,
                          fmt::format("{} [{}] sections: GL links several shader objects of a stage, glslang's "
                                      "SPIR-V path takes one", units.size(), units[0]->header)};
    StageProgram sp;
    sp.stage = kind == ShaderKind::fragment_glsl ? compiler::Stage::fragment : compiler::Stage::vertex;
    if (kind == ShaderKind::vertex_passthrough) {
      sp.lowered.source = kPassthroughVertexShader;
    } else {
      auto lowered = lower_glsl(units[0]->text, sp.stage, version, es, units[0]->first_line, state);
      if (!lowered.ok()) return ProgramError{ProgramError::Kind::lowering, lowered.error().message()};
      sp.lowered = std::move(*lowered);
    }
    compiler::Options options;
    options.env = compiler::TargetEnv::opengl;
    options.stage = sp.stage;
    options.file_name = units[0]->header;
    auto words = compiler::glsl_to_spirv(sp.lowered.source, options);
    if (!words.ok()) return ProgramError{ProgramError::Kind::glslang, words.error().message()};
    sp.spirv = std::move(*words);
    program.stages.push_back(std::move(sp));
  }
  return program;
}

Verdict run_graphics_test(const ShaderTest& test) {
  bool link_error = false, only_link_success = true;
  for (const auto& c : test.commands) {
    link_error = link_error || std::holds_alternative<CmdLinkError>(c.body);
    only_link_success = only_link_success && std::holds_alternative<CmdLinkSuccess>(c.body);
  }
  auto built = build_graphics_program(test);
  if (const auto* e = std::get_if<ProgramError>(&built)) {
    if (e->kind == ProgramError::Kind::several_units) return {Outcome::skip, e->message};
    if (e->kind == ProgramError::Kind::lowering) return {Outcome::skip, "GLSL lowering: " + e->message};
    if (link_error) return {Outcome::pass, ""};
    std::string kind = glslang_error_kind(e->message);
    if (kind.starts_with("'gl_") && kind.find("undeclared identifier") != std::string::npos)
      return {Outcome::skip, "a compatibility built-in the GLSL lowering does not replace: " + kind};
    return {Outcome::fail, e->message};
  }
  const auto& program = std::get<GraphicsProgram>(built);
  if (link_error)
    return {Outcome::skip, "link error expected: each stage compiles; the checks between stages are not made yet"};
  for (const auto& stage : program.stages) {
    compiler::Options options;
    options.env = compiler::TargetEnv::opengl;
    options.stage = stage.stage;
    options.file_name = compiler::stage_name(stage.stage);
    auto shader = compiler::compile_spirv(stage.spirv, options);
    if (!shader.ok()) return {Outcome::skip, shader.error().message()};
    if (!stage.lowered.unsupported.empty()) return {Outcome::skip, stage.lowered.unsupported.front() + " is not supported"};
  }
  if (only_link_success) return {Outcome::pass, ""};
  return {Outcome::skip, "draws are not supported yet: the runtime has no graphics pipeline"};
}

std::string glslang_error_kind(const std::string& message) {
  // The first error line ("ERROR: " in glslang's own log), without the file
  // and line before its first quoted token: "shader:12: 'x' : msg".
  size_t at = message.find("ERROR:");
  at = at == std::string::npos ? 0 : at + 6;
  std::string line = message.substr(at, message.find('\n', at) - at);
  size_t quote = line.find('\'');
  if (quote != std::string::npos) line = line.substr(quote);
  while (!line.empty() && line.front() == ' ') line.erase(line.begin());
  return line;
}

}  // namespace agx::shadertest
