// The pipeline: front end, translation, optimization and lowering passes,
// register allocation, waits, packing (compiler.h).
#include <optional>

#include <fmt/format.h>

#include "compiler/compiler.h"
#include "compiler/passes.h"
#include "compiler/spirv_module.h"
#include "compiler/translate.h"
#include "isa/isa.h"

namespace agx::compiler {

namespace {

Status checked(Function& f, const Options& o, const char* pass, bool allocated = false) {
  if (!o.validate_ir) return {};
  if (auto st = validate(f, allocated); !st) return std::move(st).error().context(fmt::format("after {}", pass));
  return {};
}

// The preamble's own back end: no control flow, one thread. nullopt when
// its registers do not fit without spilling (it has no scratch): the
// caller keeps the shader whole.
Result<std::optional<std::vector<uint8_t>>> compile_preamble(Function& pre, const Options& o, Stats& stats,
                                                             std::string& ir_text) {
  AGX_CHECK(checked(pre, o, "opt_preamble (preamble)"));
  AGX_CHECK(lower_immediates(pre));
  opt_cse(pre);
  if (!register_allocate(pre, stats) || stats.spills) return std::optional<std::vector<uint8_t>>{};
  AGX_CHECK(checked(pre, o, "register_allocate (preamble)", true));
  AGX_CHECK(insert_waits(pre));
  AGX_CHECK(checked(pre, o, "insert_waits (preamble)", true));
  ir_text = print(pre);
  AGX_TRY(auto code, pack(pre, stats));
  return std::optional<std::vector<uint8_t>>(std::move(code));
}

// The entry point's execution model must be the stage asked for.
Status check_stage(const spirv::Module& m, const Options& o) {
  Stage model = m.execution_model == spv::ExecutionModel::Vertex     ? Stage::vertex
                : m.execution_model == spv::ExecutionModel::Fragment ? Stage::fragment
                                                                     : Stage::compute;
  if (model != o.stage)
    return Error::invalid_argument("{}: entry point '{}' is a {} shader, a {} shader was asked for", o.file_name, o.entry,
                                   stage_name(model), stage_name(o.stage));
  return {};
}

}  // namespace

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::compute: return "compute";
    case Stage::vertex: return "vertex";
    case Stage::fragment: return "fragment";
  }
  return "?";
}

Result<Shader> compile_spirv(std::span<const uint32_t> words, const Options& options) {
  AGX_TRY(auto optimized, optimize_spirv(words, options));
  AGX_TRY(auto module, spirv::parse(optimized, options.entry));
  AGX_CHECK(check_stage(module, options));
  Shader shader;
  Function f;
  detail::Translator translator(module, f, shader.abi, options);
  if (auto st = translator.run(); !st) return std::move(st).error();
  AGX_CHECK(compile_function(f, options, shader));
  return shader;
}

Status compile_function(Function& f, const Options& options, Shader& shader) {
  AGX_CHECK(checked(f, options, "translation"));
  if (options.stage == Stage::fragment) {
    lower_helper_writes(f);
    AGX_CHECK(checked(f, options, "lower_helper_writes"));
  }
  opt_demote_variables(f);
  AGX_CHECK(checked(f, options, "opt_demote_variables"));
  for (int round = 0; round < 4; ++round) {
    bool progress = opt_copy_prop(f);
    AGX_CHECK(checked(f, options, "opt_copy_prop"));
    progress |= opt_float_modifiers(f);
    AGX_CHECK(checked(f, options, "opt_float_modifiers"));
    progress |= opt_cse(f);
    AGX_CHECK(checked(f, options, "opt_cse"));
    progress |= dce(f);
    AGX_CHECK(checked(f, options, "dce"));
    if (!progress) break;
  }
  AGX_CHECK(lower_idiv(f));
  AGX_CHECK(checked(f, options, "lower_idiv"));
  dce(f);
  AGX_CHECK(lower_immediates(f));
  AGX_CHECK(checked(f, options, "lower_immediates"));
  // Constants moved into registers once per region, not per use.
  opt_cse(f);
  dce(f);
  AGX_CHECK(checked(f, options, "opt_cse (constants)"));
  if (options.preamble) {
    Function whole = f;
    AGX_TRY(Preamble pre, opt_preamble(f, shader.abi));
    Stats ps;
    if (!pre.function.instrs.empty()) {
      AGX_TRY(auto code, compile_preamble(pre.function, options, ps, shader.preamble_ir_text));
      if (code) {
        shader.preamble = std::move(*code);
        shader.abi.preamble_uniform = pre.first_uniform;
        shader.abi.preamble_uniform_count = pre.uniform_count;
        shader.abi.uniform_count = pre.first_uniform + pre.uniform_count;
        shader.stats.preamble_instructions = ps.instructions;
        shader.stats.preamble_bytes = ps.bytes;
        shader.stats.preamble_gprs = ps.gprs;
        opt_cse(f);
        dce(f);
      } else {
        f = std::move(whole);
        shader.preamble_ir_text.clear();
      }
    }
    AGX_CHECK(checked(f, options, "opt_preamble"));
  }
  opt_coalesce_phis(f);
  AGX_CHECK(checked(f, options, "opt_coalesce_phis"));
  opt_empty_else(f);
  AGX_CHECK(checked(f, options, "opt_empty_else"));
  opt_break_if(f);
  AGX_CHECK(checked(f, options, "opt_break_if"));
  if (options.pressure_schedule) pressure_schedule(f);
  AGX_CHECK(checked(f, options, "pressure_schedule"));
  AGX_CHECK(register_allocate(f, shader.stats));
  AGX_CHECK(checked(f, options, "register_allocate", true));
  AGX_CHECK(lower_control_flow(f));
  AGX_CHECK(insert_waits(f));
  AGX_CHECK(checked(f, options, "insert_waits", true));
  shader.ir_text = print(f);
  AGX_TRY(auto code, pack(f, shader.stats));
  shader.code = std::move(code);
  shader.stats.instructions += shader.stats.preamble_instructions;
  shader.stats.uniforms = shader.abi.uniform_count * 2;
  for (const Instr& in : f.instrs) shader.stats.loops += in.op == Op::loop;
  return {};
}

Result<Shader> compile_glsl(std::string_view source, const Options& options) {
  AGX_TRY(auto words, glsl_to_spirv(source, options));
  return compile_spirv(words, options);
}

std::string disassemble(std::span<const uint8_t> code) {
  std::string out;
  size_t pc = 0;
  while (pc < code.size()) {
    auto in = isa::decode(code.subspan(pc), pc);
    if (!in) {
      out += fmt::format("{:4x}: error: {}\n", pc, in.error().message());
      break;
    }
    std::string hex;
    for (size_t i = 0; i < in->length_B; ++i) hex += fmt::format("{:02x}", code[pc + i]);
    out += fmt::format("{:4x}: {:<24} {}\n", pc, hex, isa::disassemble(*in, pc));
    pc += in->length_B;
  }
  return out;
}

}  // namespace agx::compiler
