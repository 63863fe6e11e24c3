// [compute shader specializations] (piglit's `uint ID VALUE` / `float ID
// VALUE` lines) on a [compute shader spirv] section: the workgroup size
// (local_size_x_id), a uint, a float and a bool (nonzero bits) specialized,
// an OpSpecConstantOp on each, against the defaults when none are given.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "shadertest/runner.h"
#include "shadertest/shader_test.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

// glslangValidator -G of:
//   layout(local_size_x_id = 0) in;
//   layout(constant_id = 1) const uint A = 2u;
//   layout(constant_id = 2) const float F = 0.5;
//   layout(constant_id = 3) const bool B = false;
//   layout(std430, binding = 0) buffer O { uint o[]; };
//   void main() {
//     uint i = gl_GlobalInvocationID.x;
//     o[i] = A * 100u + uint(F * 8.0) + (B ? 7u : 0u) + gl_WorkGroupSize.x * 1000u;
//   }
constexpr const char* kSpirv = R"(; SPIR-V
; Version: 1.0
; Generator: Khronos Glslang Reference Front End; 11
; Bound: 46
; Schema: 0
               OpCapability Shader
          %1 = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gl_GlobalInvocationID
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %gl_GlobalInvocationID BuiltIn GlobalInvocationId
               OpDecorate %_runtimearr_uint ArrayStride 4
               OpMemberDecorate %O 0 Offset 0
               OpDecorate %O BufferBlock
               OpDecorate %_ DescriptorSet 0
               OpDecorate %_ Binding 0
               OpDecorate %A SpecId 1
               OpDecorate %F SpecId 2
               OpDecorate %B SpecId 3
               OpDecorate %37 SpecId 0
               OpDecorate %gl_WorkGroupSize BuiltIn WorkgroupSize
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
       %uint = OpTypeInt 32 0
%_ptr_Function_uint = OpTypePointer Function %uint
     %v3uint = OpTypeVector %uint 3
%_ptr_Input_v3uint = OpTypePointer Input %v3uint
%gl_GlobalInvocationID = OpVariable %_ptr_Input_v3uint Input
     %uint_0 = OpConstant %uint 0
%_ptr_Input_uint = OpTypePointer Input %uint
%_runtimearr_uint = OpTypeRuntimeArray %uint
          %O = OpTypeStruct %_runtimearr_uint
%_ptr_Uniform_O = OpTypePointer Uniform %O
          %_ = OpVariable %_ptr_Uniform_O Uniform
        %int = OpTypeInt 32 1
      %int_0 = OpConstant %int 0
          %A = OpSpecConstant %uint 2
   %uint_100 = OpConstant %uint 100
         %25 = OpSpecConstantOp %uint IMul %A %uint_100
      %float = OpTypeFloat 32
          %F = OpSpecConstant %float 0.5
    %float_8 = OpConstant %float 8
       %bool = OpTypeBool
          %B = OpSpecConstantFalse %bool
     %uint_7 = OpConstant %uint 7
         %35 = OpSpecConstantOp %uint Select %B %uint_7 %uint_0
         %37 = OpSpecConstant %uint 1
     %uint_1 = OpConstant %uint 1
%gl_WorkGroupSize = OpSpecConstantComposite %v3uint %37 %uint_1 %uint_1
         %40 = OpSpecConstantOp %uint CompositeExtract %gl_WorkGroupSize 0
  %uint_1000 = OpConstant %uint 1000
         %42 = OpSpecConstantOp %uint IMul %40 %uint_1000
%_ptr_Uniform_uint = OpTypePointer Uniform %uint
       %main = OpFunction %void None %3
          %5 = OpLabel
          %i = OpVariable %_ptr_Function_uint Function
         %14 = OpAccessChain %_ptr_Input_uint %gl_GlobalInvocationID %uint_0
         %15 = OpLoad %uint %14
               OpStore %i %15
         %22 = OpLoad %uint %i
         %29 = OpFMul %float %F %float_8
         %30 = OpConvertFToU %uint %29
         %31 = OpIAdd %uint %25 %30
         %36 = OpIAdd %uint %31 %35
         %43 = OpIAdd %uint %36 %42
         %45 = OpAccessChain %_ptr_Uniform_uint %_ %int_0 %22
               OpStore %45 %43
               OpReturn
               OpFunctionEnd)";

std::string file(const std::string& specializations, const std::string& commands) {
  return fmt::format("[require]\nSPIRV ONLY\nGL >= 3.3\nGLSL >= 4.50\n\n[compute shader spirv]\n{}\n{}[test]\n{}",
                     kSpirv, specializations, commands);
}

TEST(Specializations, GivenAndDefault) {
  // 4 x 1000 + 3 x 100 + uint(1.5 x 8) + 7
  auto v = run_shader_test(file("[compute shader specializations]\n# comment\nuint 0 4\nuint 1 3\nfloat 2 1.5\nuint 3 1\n\n",
                                "ssbo 0 64\ncompute 2 1 1\nprobe ssbo uint 0 0 == 4319\nprobe ssbo uint 0 28 == 4319\n"
                                "probe ssbo uint 0 32 == 0\n"));
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // Defaults: 1 x 1000 + 200 + 4.
  v = run_shader_test(file("", "ssbo 0 64\ncompute 2 1 1\nprobe ssbo uint 0 0 == 1204\nprobe ssbo uint 0 4 == 1204\n"
                               "probe ssbo uint 0 8 == 0\n"));
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // A wrong expectation fails.
  v = run_shader_test(file("[compute shader specializations]\nuint 1 3\n", "ssbo 0 64\ncompute 1 1 1\nprobe ssbo uint 0 0 == 1204\n"));
  EXPECT_EQ(v.outcome, Outcome::fail) << v.detail;
}

TEST(Specializations, BadLines) {
  for (const char* bad : {"int 1 3", "uint 1", "uint x 3", "float 2 one", "uint 1 3 4", "uint 1 3\nuint 1 4"}) {
    auto t = parse_shader_test(file(fmt::format("[compute shader specializations]\n{}\n", bad), "compute 1 1 1\n"));
    EXPECT_FALSE(t.ok()) << bad;
  }
  auto t = parse_shader_test(file("[compute shader specializations]\nuint 0 0x10\nfloat 2 -0.25\n", "compute 1 1 1\n"));
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->compute_specializations.at(0), 16u);
  EXPECT_EQ(t->compute_specializations.at(2), 0xBE800000u);
  // A SpecId the module does not have is the compiler's error.
  auto v = run_shader_test(file("[compute shader specializations]\nuint 9 1\n", "compute 1 1 1\n"));
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("SpecId 9"), std::string::npos) << v.detail;
}

}  // namespace
}  // namespace agx::shadertest
