// Fuzzes the SPIR-V side of the compiler: the module reader on raw words,
// then the whole pipeline (SPIRV-Tools validation first) on the same
// words, as Vulkan and as OpenGL SPIR-V. Nothing may crash; bad input is an Error.
#include <cstdint>
#include <cstring>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/spirv_module.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  std::vector<uint32_t> words(size / 4);
  if (!words.empty()) std::memcpy(words.data(), data, words.size() * 4);
  (void)agx::compiler::spirv::parse(words, "main");
  agx::compiler::Options o;
  o.file_name = "fuzz.spv";
  (void)agx::compiler::compile_spirv(words, o);
  // OpenGL: bool uniforms widened first (bool_uniforms.cpp), then the rest.
  (void)agx::compiler::spirv::widen_bool_uniforms(words);
  o.env = agx::compiler::TargetEnv::opengl;
  (void)agx::compiler::compile_spirv(words, o);
  return 0;
}
