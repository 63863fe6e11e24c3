// OpCopyMemorySized: glslang never emits it (its SPIR-V builder has no call
// for it), but OpenGL SPIR-V that declares the Addresses capability may
// carry it. Hand-written modules, assembled with SPIRV-Tools, copy word
// ranges between buffers, shared memory and a local variable (at run-time
// element indices too); a Size that is not a constant, not whole words or
// past the end of a pointer's type is a clear error.
#include <spirv-tools/libspirv.hpp>

#include <string>

#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

constexpr uint32_t kSentinel = 0xdeadbeefu;

// In { uint a[12]; uvec4 v[3]; uint n; } (a 0, v 48, n 96) and
// Out { uint o[12]; uvec4 w[4]; } (o 0, w 48), OpenGL storage blocks;
// shared uint sh[12]; a Function uvec4 t[3]. `body` goes between the
// label and OpReturn.
std::string module(const std::string& body) {
  return R"(
               OpCapability Shader
               OpCapability Addresses
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %arr12 ArrayStride 4
               OpDecorate %arr3v ArrayStride 16
               OpDecorate %arr4v ArrayStride 16
               OpMemberDecorate %In 0 Offset 0
               OpMemberDecorate %In 1 Offset 48
               OpMemberDecorate %In 2 Offset 96
               OpDecorate %In BufferBlock
               OpMemberDecorate %Out 0 Offset 0
               OpMemberDecorate %Out 1 Offset 48
               OpDecorate %Out BufferBlock
               OpDecorate %in DescriptorSet 0
               OpDecorate %in Binding 0
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
      %uvec4 = OpTypeVector %uint 4
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %u2 = OpConstant %uint 2
         %u3 = OpConstant %uint 3
         %u4 = OpConstant %uint 4
         %u6 = OpConstant %uint 6
         %u8 = OpConstant %uint 8
        %u12 = OpConstant %uint 12
        %u16 = OpConstant %uint 16
        %u24 = OpConstant %uint 24
        %u44 = OpConstant %uint 44
        %u48 = OpConstant %uint 48
        %u52 = OpConstant %uint 52
      %arr12 = OpTypeArray %uint %u12
      %arr3v = OpTypeArray %uvec4 %u3
      %arr4v = OpTypeArray %uvec4 %u4
     %arr12s = OpTypeArray %uint %u12
     %arr3vf = OpTypeArray %uvec4 %u3
         %In = OpTypeStruct %arr12 %arr3v %uint
        %Out = OpTypeStruct %arr12 %arr4v
     %p_In = OpTypePointer Uniform %In
    %p_Out = OpTypePointer Uniform %Out
   %p_arr12 = OpTypePointer Uniform %arr12
   %p_arr3v = OpTypePointer Uniform %arr3v
    %p_uvec4 = OpTypePointer Uniform %uvec4
     %p_uint = OpTypePointer Uniform %uint
   %p_shared = OpTypePointer Workgroup %arr12s
    %p_local = OpTypePointer Function %arr3vf
  %p_local_v = OpTypePointer Function %uvec4
         %in = OpVariable %p_In Uniform
        %out = OpVariable %p_Out Uniform
         %sh = OpVariable %p_shared Workgroup
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %t = OpVariable %p_local Function
          %a = OpAccessChain %p_arr12 %in %u0
          %v = OpAccessChain %p_arr3v %in %u1
        %n_p = OpAccessChain %p_uint %in %u2
          %n = OpLoad %uint %n_p
          %o = OpAccessChain %p_arr12 %out %u0
)" + body + R"(
               OpReturn
               OpFunctionEnd
)";
}

Result<Shader> compile_asm(const std::string& text) {
  spvtools::SpirvTools tools(SPV_ENV_OPENGL_4_5);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& p, const char* m) {
    messages += "line " + std::to_string(p.line + 1) + ": " + m + "\n";
  });
  std::vector<uint32_t> words;
  if (!tools.Assemble(text, &words)) return Error::parse("SPIR-V assembly: {}", messages);
  Options o;
  o.env = TargetEnv::opengl;
  o.file_name = "sized.spvasm";
  return compile_spirv(words, o);
}

TEST(CopyMemorySized, WordRangesBetweenBuffersSharedMemoryAndALocalVariable) {
  auto s = compile_asm(module(R"(
               OpCopyMemorySized %o %a %u24
               OpCopyMemorySized %sh %a %u48
               OpCopyMemorySized %t %v %u44
        %v_n = OpAccessChain %p_uvec4 %in %u1 %n
         %w0 = OpAccessChain %p_uvec4 %out %u1 %u0
               OpCopyMemorySized %w0 %v_n %u12
        %t_n = OpAccessChain %p_local_v %t %n
         %w1 = OpAccessChain %p_uvec4 %out %u1 %u1
               OpCopyMemorySized %w1 %t_n %u16
         %w2 = OpAccessChain %p_uvec4 %out %u1 %u2
               OpCopyMemorySized %w2 %sh %u16
               OpCopyMemorySized %t_n %a %u8
         %w3 = OpAccessChain %p_uvec4 %out %u1 %u3
               OpCopyMemorySized %w3 %t_n %u16
)"));
  ASSERT_TRUE(s.ok()) << s.error().message();
  EXPECT_GT(s->stats.scratch_B, 0u);  // t (48 bytes) is on the stack
  std::vector<uint32_t> in(25);
  for (uint32_t k = 0; k < 24; ++k) in[k] = 0x100u + k * 3u;  // a[0..11], v[0..2]
  in[24] = 1;                                                  // n
  Job r;
  r.buffers = {in, std::vector<uint32_t>(12 + 16, kSentinel)};
  ASSERT_OK(execute(*s, r));
  const auto& out = r.buffers[1];
  for (uint32_t k = 0; k < 12; ++k) EXPECT_EQ(out[k], k < 6 ? in[k] : kSentinel) << "o[" << k << "]";
  const uint32_t v = 12, n = 1, w = 12;
  for (uint32_t k = 0; k < 4; ++k) {
    EXPECT_EQ(out[w + k], k < 3 ? in[v + 4 * n + k] : kSentinel) << "w[0]." << k;  // 12 bytes of v[n]
    EXPECT_EQ(out[w + 4 + k], in[v + 4 * n + k]) << "w[1]." << k;                  // t[n] = v[n]
    EXPECT_EQ(out[w + 8 + k], in[k]) << "w[2]." << k;                               // sh[0..3] = a[0..3]
    EXPECT_EQ(out[w + 12 + k], k < 2 ? in[k] : in[v + 4 * n + k]) << "w[3]." << k;  // t[n].xy = a[0], a[1]
  }
}

TEST(CopyMemorySized, SizesThatCannotBeCopiedAreNamed) {
  struct Case {
    const char* body;
    const char* error;
  } cases[] = {
      {"               OpCopyMemorySized %o %a %n\n", "OpCopyMemorySized with a Size that is not a constant"},
      {"               OpCopyMemorySized %o %a %u6\n", "OpCopyMemorySized of 6 bytes (whole 32-bit words only)"},
      {"               OpCopyMemorySized %o %a %u52\n", "OpCopyMemorySized of 52 bytes past the end of its 48-byte target type"},
      {"               OpCopyMemorySized %w0 %a %u24\n", "OpCopyMemorySized of 24 bytes past the end of its 16-byte target type"},
      {"               OpCopyMemorySized %o %v_n %u24\n", "OpCopyMemorySized of 24 bytes past the end of its 16-byte source type"},
      {"               OpCopyMemorySized %t %a %u52\n", "OpCopyMemorySized of 52 bytes past the end of its 48-byte target type"},
  };
  for (const Case& c : cases) {
    auto s = compile_asm(module(std::string(R"(
        %v_n = OpAccessChain %p_uvec4 %in %u1 %n
         %w0 = OpAccessChain %p_uvec4 %out %u1 %u0
)") + c.body));
    ASSERT_FALSE(s.ok()) << c.body;
    EXPECT_NE(s.error().message().find(c.error), std::string::npos) << s.error().message();
  }
}

}  // namespace
}  // namespace agx::compiler::test
