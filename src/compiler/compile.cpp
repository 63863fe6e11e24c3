// The pipeline: front end, translation, optimization and lowering passes,
// register allocation, waits, packing (compiler.h).
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

}  // namespace

Result<Shader> compile_spirv(std::span<const uint32_t> words, const Options& options) {
  AGX_TRY(auto optimized, optimize_spirv(words, options));
  AGX_TRY(auto module, spirv::parse(optimized, options.entry));
  Shader shader;
  Function f;
  detail::Translator translator(module, f, shader.abi, options);
  if (auto st = translator.run(); !st) return std::move(st).error();
  AGX_CHECK(checked(f, options, "translation"));
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
  opt_coalesce_phis(f);
  AGX_CHECK(checked(f, options, "opt_coalesce_phis"));
  AGX_CHECK(register_allocate(f, shader.stats));
  AGX_CHECK(checked(f, options, "register_allocate", true));
  AGX_CHECK(lower_control_flow(f));
  AGX_CHECK(insert_waits(f));
  AGX_CHECK(checked(f, options, "insert_waits", true));
  shader.ir_text = print(f);
  AGX_TRY(auto code, pack(f, shader.stats));
  shader.code = std::move(code);
  shader.stats.uniforms = shader.abi.uniform_count * 2;
  for (const Instr& in : f.instrs) shader.stats.loops += in.op == Op::loop;
  return shader;
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
