// The pipeline cache: hits by SPIR-V, misses on other words, target or entry.
#include <gtest/gtest.h>

#include "runtime/glsl_frontend.h"
#include "runtime/pipeline.h"

namespace agx::runtime {
namespace AGX_UNITY_ID {

std::vector<uint32_t> spirv(const char* body) {
  std::vector<std::string> src = {std::string("#version 430\nlayout(local_size_x = 4) in;\n"
                                              "layout(std430, binding = 0) buffer B { uint v[]; };\n") + body};
  auto w = glsl_to_opengl_spirv(src, "t");
  EXPECT_TRUE(w.ok()) << (w.ok() ? "" : w.error().message());
  return w.ok() ? *w : std::vector<uint32_t>{};
}

TEST(PipelineCache, HitsBySpirv) {
  PipelineCache cache;
  compiler::Options o;
  o.env = compiler::TargetEnv::opengl;
  auto a = spirv("void main() { v[gl_LocalInvocationIndex] = 1u; }");
  auto b = spirv("void main() { v[gl_LocalInvocationIndex] = 2u; }");
  auto s1 = cache.get(a, o);
  ASSERT_TRUE(s1.ok()) << s1.error().message();
  auto s2 = cache.get(a, o);
  ASSERT_TRUE(s2.ok());
  EXPECT_EQ(s1->get(), s2->get());
  EXPECT_EQ(cache.hits(), 1u);
  auto s3 = cache.get(b, o);
  ASSERT_TRUE(s3.ok());
  EXPECT_NE(s3->get(), s1->get());
  EXPECT_EQ(cache.misses(), 2u);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ((*s1)->abi.workgroup_size[0], 4u);
  EXPECT_NE(PipelineCache::key(a, o), PipelineCache::key(b, o));
}

TEST(PipelineCache, ErrorsAreNotCached) {
  PipelineCache cache;
  compiler::Options o;
  std::vector<uint32_t> junk = {0x07230203, 1, 2, 3};
  EXPECT_FALSE(cache.get(junk, o).ok());
  EXPECT_FALSE(cache.get(junk, o).ok());
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.misses(), 2u);
}

}  // namespace
}  // namespace agx::runtime
