#include "shadertest/graphics_program.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "compiler/compiler.h"
#include "runtime/runtime.h"
#include "runtime/uniform_blocks.h"
#include "shadertest/graphics_session.h"
#include "util/png.h"

namespace agx::shadertest {

std::variant<GraphicsProgram, ProgramError> build_graphics_program(const ShaderTest& test) {
  GraphicsProgram program;
  LoweringState state;
  // `shade model flat` decides the colours' interpolation at link time here
  // (the lowering declares them).
  // A file that enables a user clip plane clips gl_Position against it when
  // the vertex shader writes no clip output (glsl_lowering_clip.cpp).
  for (const auto& c : test.commands)
    if (const auto* gc = std::get_if<CmdGraphics>(&c.body))
      if (const auto* g = std::get_if<CmdGlState>(&gc->command)) {
        const std::string arg = g->args.empty() ? "" : g->args[0];
        state.flat_colours = state.flat_colours || (g->kind == CmdGlState::Kind::shade_model && arg == "flat");
        state.user_clip_planes =
            state.user_clip_planes || (g->kind == CmdGlState::Kind::enable && clip_plane_enum(arg).has_value());
      }
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
  if (auto broken = check_linking(program)) return ProgramError{ProgramError::Kind::link, *broken};
  return program;
}

std::optional<std::string> check_linking(const GraphicsProgram& program) {
  static constexpr std::array<std::array<std::string_view, 3>, 2> kColours = {{
      {"gl_FrontColor", "gl_BackColor", "gl_Color"},
      {"gl_FrontSecondaryColor", "gl_BackSecondaryColor", "gl_SecondaryColor"},
  }};
  auto shown = [](const std::string& q) { return q.empty() ? std::string("without a qualifier") : q; };
  for (const auto& group : kColours) {
    const std::pair<const std::string, std::string>* first = nullptr;
    for (const StageProgram& s : program.stages)
      for (const auto& used : s.lowered.colour_qualifiers) {
        if (std::find(group.begin(), group.end(), used.first) == group.end()) continue;
        if (!first) first = &used;
        else if (first->second != used.second)
          return fmt::format("{} is {} but {} is {} (GLSL 1.30 section 4.3.7: the colour built-ins a program uses "
                             "take the same interpolation qualifier)",
                             first->first, shown(first->second), used.first, shown(used.second));
      }
  }
  return std::nullopt;
}

StageInterface stage_interface(std::span<const uint32_t> spirv) {
  // SPIR-V's physical layout: a 5-word header, then instructions whose
  // first word is (word count << 16) | opcode: OpName 5, OpDecorate 71
  // (Location 30), OpVariable 59 (storage classes UniformConstant 0,
  // Input 1; an optional initializer), OpConstantTrue 41, OpConstantFalse
  // 42, OpConstant 43, OpConstantComposite 44, OpConstantNull 46.
  std::map<uint32_t, std::string> names;
  std::map<uint32_t, uint32_t> locations;
  std::map<uint32_t, std::vector<uint32_t>> constants;  // id -> its words, flattened
  std::vector<uint32_t> inputs;
  std::vector<std::pair<uint32_t, uint32_t>> initialized;  // variable, initializer
  for (size_t at = 5; at < spirv.size();) {
    const uint32_t count = spirv[at] >> 16, op = spirv[at] & 0xFFFF;
    if (count == 0 || at + count > spirv.size()) break;
    const uint32_t* w = &spirv[at];
    if (op == 5 && count >= 3) {
      const char* text = reinterpret_cast<const char*>(w + 2);
      names[w[1]] = std::string(text, strnlen(text, (count - 2) * 4));
    } else if (op == 71 && count >= 4 && w[2] == 30) {
      locations[w[1]] = w[3];
    } else if ((op == 41 || op == 42) && count == 3) {
      constants[w[2]] = {op == 41 ? 1u : 0u};
    } else if (op == 43 && count >= 4) {
      constants[w[2]] = std::vector<uint32_t>(w + 3, w + count);
    } else if (op == 44 && count >= 3) {
      std::vector<uint32_t> words;
      bool known = true;
      for (uint32_t i = 3; i < count; ++i) {
        auto c = constants.find(w[i]);
        if (c == constants.end()) known = false;
        else words.insert(words.end(), c->second.begin(), c->second.end());
      }
      if (known) constants[w[2]] = std::move(words);
    } else if (op == 59 && count >= 4 && w[3] == 1) {
      inputs.push_back(w[2]);
    } else if (op == 59 && count >= 5 && w[3] == 0) {
      initialized.push_back({w[2], w[4]});
    }
    at += count;
  }
  StageInterface out;
  for (uint32_t id : inputs)
    if (names.count(id) && locations.count(id)) out.inputs[names[id]] = locations[id];
  for (const auto& [var, init] : initialized)
    if (names.count(var) && constants.count(init)) out.uniform_initializers[names[var]] = constants[init];
  return out;
}

namespace {

// A stage's uniform blocks (its SPIR-V's, each bound at its index) joined
// to the program's: a block both stages declare is one block of GL's
// program, at one binding point; each stage numbering its own blocks from
// 0 cannot give blocks that only one stage has a binding of their own.
Status add_uniform_blocks(std::span<const uint32_t> spirv, std::vector<runtime::UniformBlock>& blocks) {
  AGX_TRY(auto stage_blocks, runtime::uniform_blocks(spirv));
  for (auto& b : stage_blocks) {
    auto same = std::find_if(blocks.begin(), blocks.end(), [&](const auto& o) { return o.binding == b.binding; });
    if (same == blocks.end()) blocks.push_back(std::move(b));
    else if (same->name != b.name)
      return Error::unsupported("uniform blocks '{}' and '{}' of different stages at binding {}: the runner numbers "
                                "each stage's blocks from 0, GL numbers them across the program",
                                same->name, b.name, b.binding);
  }
  return {};
}

// The verdict when glslang rejected the program.
Verdict program_error_verdict(const ProgramError& e, bool link_error) {
  if (e.kind == ProgramError::Kind::several_units) return {Outcome::skip, e.message};
  if (e.kind == ProgramError::Kind::lowering) return {Outcome::skip, "GLSL lowering: " + e.message};
  if (link_error) return {Outcome::pass, ""};
  if (e.kind == ProgramError::Kind::link) return {Outcome::fail, "link error: " + e.message};
  std::string kind = glslang_error_kind(e.message);
  if (kind.starts_with("'gl_") && kind.find("undeclared identifier") != std::string::npos)
    return {Outcome::skip, "a compatibility built-in the GLSL lowering does not replace: " + kind};
  return {Outcome::fail, e.message};
}

// The [test] commands on a fresh device; the window to `options.png_path`.
Verdict run_draws(const ShaderTest& test, const CompiledGraphics& program, const RunOptions& options) {
  auto device = runtime::Device::open_in_process();
  if (!device.ok()) return {Outcome::fail, fmt::format("device: {}", device.error().message())};
  GraphicsSession session(**device, program, test);
  if (Status st = session.begin(); !st.ok()) return {Outcome::fail, fmt::format("window: {}", st.error().message())};
  std::string error;
  bool missing = false;  // the runner cannot do what the command asks yet
  for (const auto& c : test.commands) {
    if (Status st = session.run(c); !st.ok()) {
      error = fmt::format("line {}: '{}': {}", c.line, c.text, st.error().message());
      missing = st.error().kind() == ErrorKind::unsupported;
      break;
    }
  }
  if (!options.png_path.empty()) {
    auto png = session.window_png();
    Status st = png.ok() ? write_png(options.png_path, *png) : Status(png.error());
    if (!st.ok() && error.empty()) error = fmt::format("--png: {}", st.error().message());
  }
  std::string all;
  for (const auto& f : session.failures()) all += (all.empty() ? "" : "\n") + f;
  if (!error.empty()) all += (all.empty() ? "" : "\n") + error;
  if (all.empty()) return {Outcome::pass, ""};
  // What the runner cannot do yet is a SKIP only when nothing failed before it.
  return {missing && session.failures().empty() ? Outcome::skip : Outcome::fail, all, session.probe_failures()};
}

}  // namespace

Verdict run_graphics_test(const ShaderTest& test, const RunOptions& options) {
  bool link_error = false, only_link_success = true;
  for (const auto& c : test.commands) {
    link_error = link_error || std::holds_alternative<CmdLinkError>(c.body);
    only_link_success = only_link_success && std::holds_alternative<CmdLinkSuccess>(c.body);
  }
  auto built = build_graphics_program(test);
  if (const auto* e = std::get_if<ProgramError>(&built)) return program_error_verdict(*e, link_error);
  const auto& program = std::get<GraphicsProgram>(built);
  if (link_error)
    return {Outcome::skip, "link error expected: each stage compiles and the checks between stages the runner makes "
                           "(check_linking) find nothing; the others are not made yet"};
  CompiledGraphics compiled;
  bool has_vertex = false, has_fragment = false;
  for (const auto& stage : program.stages) {
    compiler::Options o;
    o.env = compiler::TargetEnv::opengl;
    o.stage = stage.stage;
    o.file_name = compiler::stage_name(stage.stage);
    o.preamble = false;  // the runtime's graphics pipelines run no preamble
    // shader_runner binds uniform block i at binding point i.
    auto spirv = runtime::bind_uniform_blocks_by_index(stage.spirv);
    if (!spirv.ok()) return {Outcome::skip, "uniform blocks: " + spirv.error().message()};
    if (auto st = add_uniform_blocks(*spirv, compiled.uniform_blocks); !st.ok())
      return {Outcome::skip, st.error().message()};
    auto shader = compiler::compile_spirv(*spirv, o);
    if (!shader.ok()) return {Outcome::skip, shader.error().message()};
    if (stage.stage == compiler::Stage::vertex) {
      compiled.vertex = std::move(*shader);
      StageInterface iface = stage_interface(stage.spirv);
      compiled.inputs = std::move(iface.inputs);
      compiled.vertex_initializers = std::move(iface.uniform_initializers);
      has_vertex = true;
    } else {
      compiled.fragment = std::move(*shader);
      compiled.fragment_initializers = stage_interface(stage.spirv).uniform_initializers;
      has_fragment = true;
    }
  }
  if (only_link_success) return {Outcome::pass, ""};
  if (!has_vertex || !has_fragment)
    return {Outcome::skip, fmt::format("a program without a {} shader (fixed-function processing) is not supported",
                                       has_vertex ? "fragment" : "vertex")};
  return run_draws(test, compiled, options);
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
