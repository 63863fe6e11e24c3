// GLSL -> OpenGL SPIR-V for the runtime (the GL driver's front end): glslang
// with OpenGL 4.5 client semantics, and with locations and bindings that
// GLSL leaves implicit assigned automatically (glslang --auto-map-locations
// --auto-map-bindings), as a GL implementation's linker does. OpenGL SPIR-V
// itself needs every location and binding explicit.
#include "runtime/glsl_frontend.h"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/MachineIndependent/iomapper.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <mutex>
#include <string_view>
#include <utility>

namespace agx::runtime {

namespace {

// glslang's process-wide setup, once; never finalized (other threads may
// still compile).
void initialize_glslang() {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
}

// GL's bindings: a uniform or buffer block without a binding qualifier is
// at binding 0 (GLSL 4.60 section 4.4.5); samplers and images get distinct
// bindings here, which the runtime maps to the units `uniform int NAME U`
// names; everything explicit stays.
class GlBindingResolver : public glslang::TDefaultIoResolverBase {
 public:
  using TDefaultIoResolverBase::TDefaultIoResolverBase;
  bool validateBinding(EShLanguage, glslang::TVarEntryInfo&) override { return true; }
  glslang::TResourceType getResourceType(const glslang::TType& type) override {
    if (type.getBasicType() == glslang::EbtBlock)
      return type.getQualifier().storage == glslang::EvqBuffer ? glslang::EResSsbo : glslang::EResUbo;
    if (type.isImage()) return glslang::EResImage;
    if (type.getBasicType() == glslang::EbtSampler) return glslang::EResSampler;
    return glslang::EResCount;
  }
  int resolveBinding(EShLanguage, glslang::TVarEntryInfo& ent) override {
    const glslang::TType& type = ent.symbol->getType();
    if (type.getQualifier().hasBinding()) return ent.newBinding = -1;
    if (type.getBasicType() == glslang::EbtBlock) return ent.newBinding = 0;
    if (type.isImage()) return ent.newBinding = next_image_++;
    if (type.getBasicType() == glslang::EbtSampler) return ent.newBinding = next_sampler_++;
    return ent.newBinding = -1;
  }

 private:
  int next_image_ = 0, next_sampler_ = 0;
};

// Extensions glslang knows under other names. glslang declares the int64
// overloads of the built-in functions (abs, sign, min, max, clamp, mix) and
// the 64-bit and float atomics only from GLSL 4.50 on, so a source that
// enables one of them at 4.00-4.40 is read as "#version 450" (4.50 only
// adds to them; the line stays where it was, so glslang's line numbers are
// the file's). GL_NV_shader_atomic_int64 gives the functions glslang names
// GL_EXT_shader_atomic_int64; GL_NV_shader_atomic_float's atomicAdd and
// atomicExchange on float are GL_EXT_shader_atomic_float's;
// GL_INTEL_shader_atomic_float_minmax's atomicMin/atomicMax are
// GL_EXT_shader_atomic_float2's and its atomicExchange
// GL_EXT_shader_atomic_float's, which the preamble enables (its
// atomicCompSwap on float has no glslang overload: glslang reports it).
struct Renamed {
  std::string source, preamble;
};

Renamed as_glslang_knows(const std::string& source) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"GL_NV_shader_atomic_int64", "GL_EXT_shader_atomic_int64"},
      {"GL_NV_shader_atomic_float", "GL_EXT_shader_atomic_float"},
      {"GL_INTEL_shader_atomic_float_minmax", "GL_EXT_shader_atomic_float2"},
  };
  Renamed out{source, {}};
  bool bump = source.find("GL_ARB_gpu_shader_int64") != std::string::npos;
  for (auto [from, to] : kNames) {
    for (size_t at = out.source.find(from); at != std::string::npos; at = out.source.find(from, at + to.size())) {
      out.source.replace(at, from.size(), to);
      bump = true;
      if (from == kNames[2].first) out.preamble = "#extension GL_EXT_shader_atomic_float : enable\n";
    }
  }
  if (!bump) return out;
  size_t v = out.source.find("#version");
  if (v != std::string::npos) {
    size_t num = out.source.find_first_of("0123456789", v);
    size_t end = num == std::string::npos ? num : out.source.find_first_not_of("0123456789", num);
    if (end != std::string::npos && end - num == 3 && out.source.compare(num, 3, "450") < 0 &&
        out.source.compare(num, 3, "400") >= 0)
      out.source.replace(num, 3, "450");
  }
  return out;
}

std::string trim_log(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

Result<std::vector<uint32_t>> glsl_to_opengl_spirv(std::span<const std::string> sources, std::string_view name) {
  initialize_glslang();
  if (sources.empty()) return Error::invalid_argument("no GLSL source");
  // glslang's defaults allow one atomic counter binding; GL 4.3 asks for at
  // least 1 per stage, piglit's tests use up to 8 (shader_runner's limit).
  TBuiltInResource resources = *GetDefaultResources();
  resources.maxAtomicCounterBindings = 8;
  resources.maxComputeAtomicCounterBuffers = 8;
  resources.maxCombinedAtomicCounterBuffers = 8;
  resources.maxComputeAtomicCounters = 64;
  resources.maxCombinedAtomicCounters = 64;
  auto messages = static_cast<EShMessages>(EShMsgSpvRules);
  std::string file(name);
  // Several compilation units of one stage link into one program, as GL's
  // glLinkProgram does with several compute shader objects.
  std::vector<std::unique_ptr<glslang::TShader>> shaders;
  glslang::TProgram program;
  for (size_t i = 0; i < sources.size(); ++i) {
    auto shader = std::make_unique<glslang::TShader>(EShLangCompute);
    const Renamed renamed = as_glslang_knows(sources[i]);
    const std::string& source = renamed.source;
    const char* strings[] = {source.c_str()};
    const int lengths[] = {int(source.size())};
    const char* names[] = {file.c_str()};
    shader->setStringsWithLengthsAndNames(strings, lengths, names, 1);
    if (!renamed.preamble.empty()) shader->setPreamble(renamed.preamble.c_str());
    shader->setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientOpenGL, 100);
    shader->setEnvClient(glslang::EShClientOpenGL, glslang::EShTargetOpenGL_450);
    shader->setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_0);
    shader->setAutoMapLocations(true);
    shader->setAutoMapBindings(true);
    if (!shader->parse(&resources, 100, false, messages)) {
      return Error::parse("GLSL: {}", trim_log(shader->getInfoLog()));
    }
    program.addShader(shader.get());
    shaders.push_back(std::move(shader));
  }
  if (!program.link(messages)) return Error::parse("GLSL link: {}", trim_log(program.getInfoLog()));
  glslang::TIntermediate* ir = program.getIntermediate(EShLangCompute);
  GlBindingResolver resolver(*ir);
  if (!program.mapIO(&resolver)) return Error::parse("GLSL link: {}", trim_log(program.getInfoLog()));
  // GLSL 4.30 section 4.4.1.1: a compute program must declare its local size.
  if (!ir->isLocalSizeSet()) return Error::parse("GLSL link: the compute shader declares no local size");
  std::vector<uint32_t> words;
  spv::SpvBuildLogger logger;
  glslang::SpvOptions options;
  options.generateDebugInfo = false;
  glslang::GlslangToSpv(*ir, words, &logger, &options);
  if (words.empty()) return Error::parse("GLSL to SPIR-V: {}", logger.getAllMessages());
  return words;
}

}  // namespace agx::runtime

#include <spirv-tools/libspirv.hpp>

namespace agx::runtime {

Result<std::vector<uint32_t>> assemble_spirv(std::string_view text) {
  std::string stripped;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos + 1);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (!line.empty() && line.front() == '#') continue;
    stripped.append(line);
  }
  spvtools::SpirvTools tools(SPV_ENV_OPENGL_4_5);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& p, const char* m) {
    messages += fmt::format("{}line {}: {}", messages.empty() ? "" : "; ", p.line + 1, m);
  });
  std::vector<uint32_t> words;
  if (!tools.Assemble(stripped, &words, SPV_TEXT_TO_BINARY_OPTION_PRESERVE_NUMERIC_IDS)) {
    return Error::parse("SPIR-V assembly: {}", messages.empty() ? "failed" : messages);
  }
  return words;
}

}  // namespace agx::runtime
