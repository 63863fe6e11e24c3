#include "shadertest/runner.h"

#include <algorithm>

#include "compiler/compiler.h"
#include "runtime/glsl_frontend.h"
#include "runtime/limits.h"
#include "runtime/pipeline.h"
#include "runtime/runtime.h"
#include "runtime/uniform_blocks.h"
#include "runtime/variable_group_size.h"
#include "shadertest/graphics_program.h"
#include "shadertest/session.h"

namespace agx::shadertest {

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::pass: return "pass";
    case Outcome::fail: return "fail";
    case Outcome::skip: return "skip";
    case Outcome::crash: return "crash";
  }
  return "?";
}

const char* to_upper_string(Outcome o) {
  switch (o) {
    case Outcome::pass: return "PASS";
    case Outcome::fail: return "FAIL";
    case Outcome::skip: return "SKIP";
    case Outcome::crash: return "CRASH";
  }
  return "?";
}

const Capabilities& Capabilities::stack() {
  // GLSL 4.60 / ES 3.20 is what glslang parses; the extensions are the ones
  // whose compute features glslang and the compiler translate (docs/shadertest.md
  // lists the ones left out and why).
  static const Capabilities caps{460, 320, 46, 32,
                                 {"GL_ARB_compute_shader", "GL_ARB_shader_storage_buffer_object",
                                  "GL_ARB_shader_atomic_counters", "GL_ARB_shader_image_load_store",
                                   "GL_ARB_gl_spirv", "GL_ARB_gpu_shader_int64", "GL_NV_shader_atomic_int64",
                                   "GL_ARB_compute_variable_group_size", "GL_AMD_shader_trinary_minmax",
                                   "GL_ARB_shader_group_vote", "GL_NV_shader_atomic_float",
                                   "GL_INTEL_shader_atomic_float_minmax", "GL_NV_compute_shader_derivatives",
                                   "GL_ARB_gpu_shader_fp64", "GL_ARB_vertex_attrib_64bit",
                                   // Core in the GLSL 4.50 the vertex/fragment lowering compiles
                                   // (glsl_lowering_tables.h kCoreExtensions for the ones glslang
                                   // refuses in an #extension line).
                                   "GL_ARB_gpu_shader5", "GL_ARB_arrays_of_arrays", "GL_ARB_shader_precision",
                                   "GL_MESA_shader_integer_functions", "GL_ARB_shading_language_packing",
                                   "GL_ARB_shading_language_420pack", "GL_ARB_uniform_buffer_object",
                                   "GL_ARB_shader_atomic_counter_ops",
                                   "GL_ARB_explicit_attrib_location", "GL_ARB_explicit_uniform_location",
                                   "GL_ARB_shader_bit_encoding", "GL_EXT_shader_integer_mix",
                                   "GL_ARB_derivative_control",
                                   // `texture storage` (glTexStorage*) makes its textures.
                                   "GL_ARB_texture_storage",
                                   // textureQueryLevels (ImageBinding::levels_uniform).
                                   "GL_ARB_texture_query_levels",
                                   // Explicit varying locations; one program object per file.
                                   "GL_ARB_separate_shader_objects"}};
  return caps;
}

std::optional<std::string_view> refused_extension_reason(std::string_view name) {
  // What is missing for the extensions piglit's vertex/fragment files ask
  // most (measured with grep over Debian 12's piglit, docs/shadertest.md).
  static constexpr std::pair<std::string_view, std::string_view> kRefused[] = {
      {"GL_ARB_enhanced_layouts", "component qualifiers (several varyings in one location) are not supported"},
      {"GL_INTEL_shader_integer_functions2", "the compiler does not translate SPV_INTEL_shader_integer_functions2"},
      {"GL_ARB_cull_distance", "gl_CullDistance has no place in the vertex output layout"},
      {"GL_ARB_bindless_texture", "the runtime has no bindless handles"},
      {"GL_EXT_shader_framebuffer_fetch", "fragment shaders reading the framebuffer (inout outputs) are not supported"},
      {"GL_EXT_shader_framebuffer_fetch_non_coherent", "fragment shaders reading the framebuffer (inout outputs) are not supported"},
  };
  for (const auto& [n, why] : kRefused)
    if (n == name) return why;
  return std::nullopt;
}

bool Capabilities::has_extension(std::string_view name) const {
  return std::find(extensions.begin(), extensions.end(), name) != extensions.end();
}

namespace {

std::string version_text(const VersionRequirement& v) {
  if (v.api == Api::glsl) return fmt::format("GLSL{} {}.{:02}", v.es ? " ES" : "", v.num / 100, v.num % 100);
  return fmt::format("GL{} {}.{}", v.es ? " ES" : "", v.num / 10, v.num % 10);
}

}  // namespace

std::optional<std::string> skip_reason(const ShaderTest& test, const Capabilities& caps) {
  bool compute = false;
  for (const auto& s : test.shaders) compute = compute || is_compute(s.kind);
  for (const auto& s : test.shaders) {
    // With a compute shader too, it is a link error the runner reports.
    if (compute) break;
    if (s.header.starts_with("geometry") || s.header.starts_with("tessellation"))
      return "geometry/tessellation shaders are not supported";
  }
  for (const auto& s : test.shaders) {
    if (s.kind == ShaderKind::other && !compute)
      return fmt::format("has a [{}] section: only GLSL vertex and fragment shaders are supported", s.header);
  }
  for (const auto& v : test.require.versions) {
    unsigned offered = v.api == Api::glsl ? (v.es ? caps.glsl_es_num : caps.glsl_num)
                                          : (v.es ? caps.gl_es_num : caps.gl_num);
    if (!compare(v.num, offered, v.cmp)) {
      VersionRequirement have = v;
      have.num = offered;
      return fmt::format("requires {} {}, the stack offers {}", to_string(v.cmp), version_text(v),
                         version_text(have));
    }
  }
  for (const auto& e : test.require.extensions) {
    if (caps.has_extension(e)) continue;
    if (auto why = refused_extension_reason(e)) return fmt::format("{} is not supported: {}", e, *why);
    return fmt::format("{} is not supported", e);
  }
  for (const auto& e : test.require.absent_extensions) {
    if (caps.has_extension(e)) return fmt::format("requires {} to be absent", e);
  }
  for (const auto& l : test.require.limits) {
    // shader_runner: "Test requires NAME OP N.  The driver supports V."
    std::optional<int64_t> offered;
    std::string what = l.name;
    if (l.int_query) {
      offered = runtime::gl_integer_limit(l.name);
      if (!offered) return fmt::format("{}: the stack reports no such integer", l.name);
    } else {
      auto r = runtime::shader_runner_limit(l.name);
      offered = r->value;
      what = std::string(r->description);
    }
    if (!compare(l.value, *offered, l.cmp))
      return fmt::format("Test requires {} {} {}.  The driver supports {}.", what, to_string(l.cmp), l.value, *offered);
  }
  if (test.require.spirv == Requirements::Spirv::only && test.require.spirv_never)
    return "This shader is not compatible with SPIR-V";
  for (const auto& o : test.require.other) {
    return fmt::format("requirement '{}' is not honoured by the runner", o);
  }
  return std::nullopt;
}

std::string adapt_glsl(const ShaderTest& test, const ShaderSection& section,
                       std::vector<std::string>* notes) {
  // Where is #version? (piglit adds one from [require] when it is missing)
  VersionLine v = find_version(section.text);
  unsigned version = v.found ? v.number : test.require.glsl_num().value_or(110);
  bool es = v.found ? v.es : test.require.glsl_es();
  // A #line keeps glslang's line numbers those of the file.
  std::string body = fmt::format("#line {}\n{}", section.first_line, v.body);
  unsigned used = version;
  if (!es && version < 420) {
    used = 430;
    if (notes) notes->push_back(fmt::format("GLSL {} compute shader compiled as GLSL 430", version));
  } else if (!v.found && notes) {
    notes->push_back(fmt::format("#version {}{} added from [require]", version, es ? " es" : ""));
  }
  return fmt::format("#version {}{}\n{}", used, es ? " es" : "", body);
}

namespace {

Verdict fail(std::string detail) { return {Outcome::fail, std::move(detail)}; }

bool expects_link_error(const ShaderTest& test) {
  for (const auto& c : test.commands)
    if (std::holds_alternative<CmdLinkError>(c.body)) return true;
  return false;
}

}  // namespace

Verdict run_shader_test(std::string_view text, const RunOptions& run_options) {
  auto parsed = parse_shader_test(text);
  if (!parsed.ok()) return fail(parsed.error().message());
  const ShaderTest& test = *parsed;
  if (auto reason = skip_reason(test, Capabilities::stack())) return {Outcome::skip, *reason};
  if (!test.has_stage(ShaderKind::compute_glsl) && !test.has_stage(ShaderKind::compute_spirv))
    return run_graphics_test(test, run_options);

  // SPIRV ONLY takes the [compute shader spirv] section; otherwise GLSL, as
  // piglit's shader_runner does without -spirv.
  ShaderKind want = test.require.spirv == Requirements::Spirv::only ? ShaderKind::compute_spirv
                                                                     : ShaderKind::compute_glsl;
  std::vector<const ShaderSection*> sections;
  for (const auto& s : test.shaders)
    if (s.kind == want) sections.push_back(&s);
  if (sections.empty()) return fail("no [compute shader] section to run");
  if (want == ShaderKind::compute_spirv && sections.size() > 1)
    return fail(fmt::format("{} [compute shader spirv] sections: one SPIR-V module is supported", sections.size()));

  std::vector<std::string> notes;
  Result<std::vector<uint32_t>> spirv = Error::parse("unset");
  std::vector<std::string> sources;
  bool variable_size = false;  // GL_ARB_compute_variable_group_size
  auto sized = [](std::vector<std::string> units, std::optional<std::array<uint32_t, 3>> local) {
    for (auto& u : units) u = runtime::with_group_size(u, local);
    return units;
  };
  if (want == ShaderKind::compute_glsl) {
    bool fixed_size = false;
    for (const auto* s : sections) {
      sources.push_back(adapt_glsl(test, *s, &notes));
      auto d = runtime::group_size_declaration(sources.back());
      variable_size = variable_size || d == runtime::GroupSizeDeclaration::variable;
      fixed_size = fixed_size || d == runtime::GroupSizeDeclaration::fixed;
    }
    if (variable_size && fixed_size) {
      spirv = Error::parse("link: one program declares a fixed and a variable local size (ARB_compute_variable_group_size)");
    } else {
      // A variable size is checked with a stand-in 1x1x1; each `compute
      // group size` compiles the program for its own size.
      spirv = runtime::glsl_to_opengl_spirv(sized(sources, variable_size ? std::optional(std::array<uint32_t, 3>{1, 1, 1})
                                                                  : std::nullopt),
                                   "shader");
    }
  } else {
    spirv = runtime::assemble_spirv(sections[0]->text);
  }
  bool link_error = expects_link_error(test);
  // GL 4.3 section 7.3: a program with a compute shader and any other stage
  // fails to link.
  if (test.has_non_compute_stage()) {
    if (link_error) return {Outcome::pass, ""};
    return fail("a compute shader cannot be linked with other stages");
  }
  if (!spirv.ok()) {
    // glslang rejected the program: what a "link error" test wants.
    if (link_error) return {Outcome::pass, ""};
    return fail(spirv.error().message());
  }
  if (link_error) return fail("link error expected, but the shader compiled and linked");
  if (want == ShaderKind::compute_glsl) {
    // Uniform block i at binding i, as shader_runner binds them.
    spirv = runtime::bind_uniform_blocks_by_index(*spirv);
    if (!spirv.ok()) return fail(spirv.error().message());
  }

  compiler::Options options;
  options.env = compiler::TargetEnv::opengl;
  options.file_name = "shader";
  // glSpecializeShader applies to SPIR-V shaders only.
  if (want == ShaderKind::compute_spirv)
    options.specialization_bits.insert(test.compute_specializations.begin(), test.compute_specializations.end());
  // One cache per process: files run in their own children, but a caller
  // that runs several files in one process compiles each program once.
  static runtime::PipelineCache cache;
  auto pipeline = cache.get(*spirv, options);
  if (!pipeline.ok()) return fail(fmt::format("compile: {}", pipeline.error().message()));
  const compiler::Shader* shader = pipeline->get();

  // The [test] commands, on a fresh in-process device. As piglit's
  // shader_runner: a probe that fails is reported and the commands go on (the
  // file fails at the end, every failed probe listed); an error ends the file.
  auto device = runtime::Device::open_in_process();
  if (!device.ok()) return fail(fmt::format("device: {}", device.error().message()));
  Session session(**device, *shader);
  if (test.require.window_px) session.set_window_size((*test.require.window_px)[0], (*test.require.window_px)[1]);
  session.set_ignore_missing_uniforms(test.require.ignore_missing_uniforms);
  if (auto r = runtime::program_resources(*spirv); r.ok()) session.set_program_resources(*r);
  else session.set_program_resources_error(r.error().message());
  if (auto b = runtime::uniform_blocks(*spirv); b.ok()) session.set_uniform_blocks(std::move(*b));
  else session.set_uniform_blocks_error(b.error().message());
  if (variable_size) {
    session.set_variable_group_size(
        [&](std::array<uint32_t, 3> local) -> Result<std::shared_ptr<const compiler::Shader>> {
          AGX_TRY(auto glsl_words, runtime::glsl_to_opengl_spirv(sized(sources, local), "shader"));
          AGX_TRY(auto words, runtime::bind_uniform_blocks_by_index(glsl_words));
          auto compiled = cache.get(words, options);
          if (!compiled.ok()) return std::move(compiled).error().context("compile");
          return *compiled;
        });
  }
  auto failures = [&](std::string last) {
    std::string all;
    for (const auto& f : session.failures()) all += f + "\n";
    return fail(all + last);
  };
  for (const auto& c : test.commands) {
    auto st = session.run(c);
    if (!st.ok()) return failures(fmt::format("line {}: '{}': {}", c.line, c.text, st.error().message()));
  }
  if (!session.failures().empty()) {
    std::string all = session.failures().front();
    for (size_t i = 1; i < session.failures().size(); ++i) all += "\n" + session.failures()[i];
    return fail(all);
  }
  return {Outcome::pass, ""};
}

}  // namespace agx::shadertest
