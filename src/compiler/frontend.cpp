// GLSL -> SPIR-V with glslang's C++ API, and SPIR-V validation, legalization
// and optimization with SPIRV-Tools' C++ API.
#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <regex>
#include <unordered_map>

#include "compiler/compiler.h"
#include "compiler/passes.h"
#include "compiler/spirv_module.h"
#include "compiler/spirv_walk.h"

namespace agx::compiler {

namespace {

// glslang keeps process-wide tables: initialize once; parsing is then
// thread-safe per TShader.
void init_glslang() {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
}

// glslang's log lines look like "ERROR: 0:12: 'foo' : undeclared identifier";
// name the file instead of the string number.
std::string glslang_log(std::string_view log, const std::string& file) {
  std::string out;
  static const std::regex line_re(R"(^(ERROR|WARNING): [^:]*:(\d+): (.*)$)");
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    std::string line(log.substr(start, end - start));
    start = end + 1;
    std::smatch m;
    if (std::regex_match(line, m, line_re)) {
      if (m[1] != "ERROR" || m[3].str().find("compilation terminated") != std::string::npos) continue;
      out += fmt::format("{}{}:{}: {}", out.empty() ? "" : "\n", file, m[2].str(), m[3].str());
    } else if (line.rfind("ERROR:", 0) == 0 && line.find("compilation terminated") == std::string::npos &&
               line.find("compilation errors") == std::string::npos) {
      out += fmt::format("{}{}: {}", out.empty() ? "" : "\n", file, line.substr(7));
    }
  }
  return out.empty() ? std::string(file) + ": " + std::string(log) : out;
}

spv_target_env spirv_env(const Options& o) {
  return o.env == TargetEnv::vulkan ? SPV_ENV_VULKAN_1_1 : SPV_ENV_OPENGL_4_5;
}

// What a spec constant's type is, for reading a value given as text.
struct SpecType {
  char kind = 'i';  // b(ool), i(nt), f(loat)
  uint32_t width = 32;
  bool is_signed = false;
};

// A value given as text, read as its constant's type into the words
// SPIRV-Tools' set-default pass takes (low word first): `true`/`false`
// (or an integer, nonzero true) for a bool, a whole number (decimal, 0x,
// 0 octal; `-` only for signed types) in range for an integer, a number
// for a 32- or 64-bit float. Nothing when it does not read.
std::optional<std::vector<uint32_t>> spec_text_words(const std::string& t, const SpecType& ty) {
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  auto split = [&](uint64_t v) {
    std::vector<uint32_t> w{static_cast<uint32_t>(v)};
    if (ty.width == 64) w.push_back(static_cast<uint32_t>(v >> 32));
    return w;
  };
  if (ty.kind == 'b') {
    if (t == "true" || t == "false") return std::vector<uint32_t>{t == "true" ? 1u : 0u};
    uint64_t v = std::strtoull(t.c_str(), &end, 0);
    if (errno || *end || t[0] == '-') return std::nullopt;
    return std::vector<uint32_t>{v != 0 ? 1u : 0u};
  }
  if (ty.kind == 'f') {
    if (ty.width == 32) {
      float f = std::strtof(t.c_str(), &end);
      if (errno || *end) return std::nullopt;
      return std::vector<uint32_t>{std::bit_cast<uint32_t>(f)};
    }
    if (ty.width != 64) return std::nullopt;
    double d = std::strtod(t.c_str(), &end);
    if (errno || *end) return std::nullopt;
    return split(std::bit_cast<uint64_t>(d));
  }
  if (ty.width != 32 && ty.width != 64) return std::nullopt;
  if (t[0] == '-') {
    if (!ty.is_signed) return std::nullopt;
    int64_t v = std::strtoll(t.c_str(), &end, 0);
    if (errno || *end || (ty.width == 32 && v < INT32_MIN)) return std::nullopt;
    return split(static_cast<uint64_t>(v));
  }
  uint64_t v = std::strtoull(t.c_str(), &end, 0);
  if (errno || *end) return std::nullopt;
  if (ty.width == 32 && v > (ty.is_signed ? uint64_t{INT32_MAX} : uint64_t{UINT32_MAX})) return std::nullopt;
  if (ty.width == 64 && ty.is_signed && v > uint64_t{INT64_MAX}) return std::nullopt;
  return split(v);
}

// The specializations (text and raw bits) as SPIRV-Tools' SpecId -> words,
// after checking that each SpecId is decorated in the module and each
// value fits its constant's type.
Result<std::unordered_map<uint32_t, std::vector<uint32_t>>> spec_words(std::span<const uint32_t> words,
                                                                       const Options& options) {
  std::unordered_map<uint32_t, std::vector<uint32_t>> out;
  if (options.specializations.empty() && options.specialization_bits.empty()) return out;
  std::unordered_map<uint32_t, uint32_t> id_of_spec;  // SpecId -> result id
  std::unordered_map<uint32_t, SpecType> types;       // type id -> what it is
  std::unordered_map<uint32_t, uint32_t> type_of;     // spec constant -> type id
  // The module passed validation: the walk cannot fail.
  (void)spirv::for_each_instruction(words, [&](const spirv::SpirvInstruction& in) -> Status {
    const auto& w = in.w;
    using spv::Op;
    if (in.op == Op::OpDecorate && w.size() >= 3 && w[1] == static_cast<uint32_t>(spv::Decoration::SpecId))
      id_of_spec[w[2]] = w[0];
    else if (in.op == Op::OpTypeBool && w.size() >= 1) types[w[0]] = {'b', 1, false};
    else if (in.op == Op::OpTypeInt && w.size() >= 3) types[w[0]] = {'i', w[1], w[2] != 0};
    else if (in.op == Op::OpTypeFloat && w.size() >= 2) types[w[0]] = {'f', w[1], true};
    else if ((in.op == Op::OpSpecConstant || in.op == Op::OpSpecConstantTrue || in.op == Op::OpSpecConstantFalse) &&
             w.size() >= 2)
      type_of[w[1]] = w[0];
    return {};
  });
  auto lookup = [&](uint32_t spec_id, const std::string& shown) -> Result<SpecType> {
    auto it = id_of_spec.find(spec_id);
    auto ct = it == id_of_spec.end() ? type_of.end() : type_of.find(it->second);
    if (ct == type_of.end())
      return Error::not_found("{}: no specialization constant has SpecId {} (given the value {})", options.file_name, spec_id, shown);
    auto ty = types.find(ct->second);
    if (ty == types.end()) return Error::unsupported("{}: specialization constant {} of an unknown type", options.file_name, spec_id);
    return ty->second;
  };
  auto type_name = [](const SpecType& t) {
    return t.kind == 'b' ? std::string("bool") : fmt::format("{}{}", t.kind == 'f' ? "float" : t.is_signed ? "int" : "uint", t.width);
  };
  for (const auto& [spec_id, value] : options.specializations) {
    AGX_TRY(SpecType ty, lookup(spec_id, "'" + value + "'"));
    auto w = spec_text_words(value, ty);
    if (!w) return Error::invalid_argument("{}: specialization constant {}: '{}' is not a {} value", options.file_name, spec_id, value, type_name(ty));
    out[spec_id] = *w;
  }
  for (const auto& [spec_id, bits] : options.specialization_bits) {
    AGX_TRY(SpecType ty, lookup(spec_id, fmt::format("0x{:x}", bits)));
    if (ty.kind == 'b') out[spec_id] = {bits != 0 ? 1u : 0u};
    else if (ty.width == 64) out[spec_id] = {static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32)};
    else if (ty.width == 32) out[spec_id] = {static_cast<uint32_t>(bits)};
    else return Error::unsupported("{}: specialization constant {}: {}-bit types are not supported", options.file_name, spec_id, ty.width);
  }
  return out;
}

}  // namespace

Result<std::vector<uint32_t>> glsl_to_spirv(std::string_view source, const Options& options) {
  init_glslang();
  const EShLanguage stage = options.stage == Stage::vertex     ? EShLangVertex
                            : options.stage == Stage::fragment ? EShLangFragment
                                                               : EShLangCompute;
  glslang::TShader shader(stage);
  std::string text(source);
  const char* strings[] = {text.c_str()};
  const char* names[] = {options.file_name.c_str()};
  shader.setStringsWithLengthsAndNames(strings, nullptr, names, 1);
  shader.setEntryPoint(options.entry.c_str());
  shader.setSourceEntryPoint(options.entry.c_str());
  auto messages = static_cast<EShMessages>(EShMsgSpvRules);
  if (options.env == TargetEnv::vulkan) {
    // glslang -V: Vulkan 1.1 client, SPIR-V 1.3.
    shader.setEnvInput(glslang::EShSourceGlsl, stage, glslang::EShClientVulkan, 100);
    shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_1);
    shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_3);
    messages = static_cast<EShMessages>(messages | EShMsgVulkanRules);
  } else {
    // glslang -G: OpenGL 4.5 client, SPIR-V 1.0.
    shader.setEnvInput(glslang::EShSourceGlsl, stage, glslang::EShClientOpenGL, 100);
    shader.setEnvClient(glslang::EShClientOpenGL, glslang::EShTargetOpenGL_450);
    shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_0);
    // Loose uniforms and blocks without layout(location/binding) get them
    // assigned in declaration order (glslang --auto-map-locations/-bindings),
    // as an OpenGL driver assigns them at link time.
    shader.setAutoMapLocations(true);
    shader.setAutoMapBindings(true);
  }
  // glslang's defaults allow one atomic counter binding and buffer per
  // stage; the runtime binds the 8 binding points of piglit's
  // shader_runner to every stage (runtime/limits.cpp, glsl_frontend.cpp
  // for compute programs).
  TBuiltInResource resources = *GetDefaultResources();
  resources.maxAtomicCounterBindings = 8;
  resources.maxVertexAtomicCounterBuffers = resources.maxFragmentAtomicCounterBuffers = 8;
  resources.maxComputeAtomicCounterBuffers = resources.maxCombinedAtomicCounterBuffers = 8;
  resources.maxVertexAtomicCounters = resources.maxFragmentAtomicCounters = 64;
  resources.maxComputeAtomicCounters = resources.maxCombinedAtomicCounters = 64;
  if (!shader.parse(&resources, 450, false, messages))
    return Error::parse("{}", glslang_log(shader.getInfoLog(), options.file_name));
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages))
    return Error::parse("{}", glslang_log(program.getInfoLog(), options.file_name));
  glslang::TIntermediate* ir = program.getIntermediate(stage);
  if (!ir) return Error::unsupported("{}: no compute shader stage in the source", options.file_name);
  std::vector<uint32_t> words;
  glslang::SpvOptions spv_options;
  spv_options.generateDebugInfo = true;  // OpLine: errors name the source line
  spv_options.disableOptimizer = true;
  spv::SpvBuildLogger logger;
  glslang::GlslangToSpv(*ir, words, &logger, &spv_options);
  std::string log = logger.getAllMessages();
  if (words.empty()) return Error::parse("{}: SPIR-V generation failed: {}", options.file_name, log);
  return words;
}

Result<std::vector<uint32_t>> optimize_spirv(std::span<const uint32_t> words, const Options& options) {
  if (words.size() < 5 || words[0] != 0x07230203u)
    return Error::decode("{}: not a SPIR-V module (bad magic number or shorter than the header)", options.file_name);
  std::string messages;
  auto consumer = [&](spv_message_level_t level, const char*, const spv_position_t& pos, const char* msg) {
    if (level > SPV_MSG_WARNING) return;
    messages += fmt::format("{}{}: word {}: {}", messages.empty() ? "" : "\n", options.file_name, pos.index, msg);
  };
  // OpenGL bool uniforms are 32-bit values (bool_uniforms.cpp).
  std::vector<uint32_t> widened;
  if (options.env == TargetEnv::opengl) {
    AGX_TRY(auto wv, spirv::widen_bool_uniforms(words));
    widened = std::move(wv);
    words = widened;
  }
  // Fragment shaders have quads of their own (dfdx / dfdy): only other
  // stages follow GL_NV_compute_shader_derivatives' zero rule.
  std::vector<uint32_t> zeroed;
  if (options.stage != Stage::fragment) {
    zeroed = zero_ungrouped_derivatives(words);
    words = zeroed;
  }
  std::vector<uint32_t> rect = rect_lod_to_grad(words);
  words = rect;
  spvtools::SpirvTools tools(spirv_env(options));
  tools.SetMessageConsumer(consumer);
  if (!tools.Validate(words.data(), words.size()))
    return Error::decode("invalid SPIR-V: {}", messages.empty() ? options.file_name : messages);
  AGX_TRY(auto spec_values, spec_words(words, options));
  spvtools::Optimizer opt(spirv_env(options));
  opt.SetMessageConsumer(consumer);
  // Specialization: the given values become the spec constants' defaults,
  // then every spec constant is frozen to a constant and the
  // OpSpecConstantOp / OpSpecConstantComposite built on them folded.
  if (!spec_values.empty()) opt.RegisterPass(spvtools::CreateSetSpecConstantDefaultValuePass(spec_values));
  opt.RegisterPass(spvtools::CreateFreezeSpecConstantValuePass());
  opt.RegisterPass(spvtools::CreateFoldSpecConstantOpAndCompositePass());
  // Legalization: exhaustive inlining, SSA rewrite, scalar replacement,
  // constant folding, DCE; it also makes loads/stores of whole structs into
  // per-member accesses.
  opt.RegisterLegalizationPasses();
  // Early returns become one return at the end (a single-iteration loop
  // that the returns break out of), which the exec-mask form needs; then
  // the flag it introduces goes back into SSA.
  opt.RegisterPass(spvtools::CreateMergeReturnPass());
  opt.RegisterPass(spvtools::CreateSSARewritePass());
  if (options.optimize) {
    opt.RegisterPerformancePasses();
    // Loops with a small constant trip count are unrolled fully (each
    // iteration then folds against constants; no exec-mask loop).
    opt.RegisterPass(spvtools::CreateLoopUnrollPass(true));
    opt.RegisterPass(spvtools::CreateSimplificationPass());
    opt.RegisterPass(spvtools::CreateAggressiveDCEPass());
  }
  spvtools::OptimizerOptions oo;
  oo.set_run_validator(false);
  std::vector<uint32_t> rewritten = rewrite_output_pointers(drop_float_atomic_extensions(words));
  std::vector<uint32_t> out;
  if (!opt.Run(rewritten.data(), rewritten.size(), &out, oo))
    return Error::unsupported("SPIR-V optimization failed: {}", messages.empty() ? options.file_name : messages);
  return out;
}

}  // namespace agx::compiler
