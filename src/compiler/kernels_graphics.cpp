// The sample vertex and fragment shaders (kernels.h) and the fixed-function
// state their fragment epilogs are built for.
#include "compiler/kernels.h"

#include "tilebuffer/tilebuffer.h"

namespace agx::compiler {

namespace {
constexpr Kernel kGraphicsKernels[] = {
    {"transform_lighting", R"(#version 450
layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(set = 0, binding = 0) uniform Transforms {
  mat4 model_view_projection;
  mat4 model;
  mat3 normal_matrix;
  vec4 light_direction;  // world space
  vec4 light_color;      // rgb; a: ambient strength
} t;
layout(location = 0) out vec3 out_color;
layout(location = 1) out vec2 out_uv;
layout(location = 2) out vec3 out_world;
void main() {
  vec3 n = normalize(t.normal_matrix * in_normal);
  float diffuse = max(dot(n, -normalize(t.light_direction.xyz)), 0.0);
  out_color = t.light_color.rgb * (t.light_color.a + diffuse);
  out_uv = in_uv;
  out_world = (t.model * vec4(in_position, 1.0)).xyz;
  gl_Position = t.model_view_projection * vec4(in_position, 1.0);
})", TargetEnv::vulkan, Stage::vertex},
    {"textured_blended", R"(#version 450
layout(set = 0, binding = 1) uniform sampler2D albedo;
layout(location = 0) in vec3 in_color;
layout(location = 1) in vec2 in_uv;
layout(location = 0) out vec4 out_color;
layout(push_constant) uniform Material { vec4 tint; float alpha_cutoff; } m;
void main() {
  vec4 texel = texture(albedo, in_uv);
  if (texel.a < m.alpha_cutoff) discard;
  out_color = vec4(in_color, 1.0) * texel * m.tint;
})", TargetEnv::vulkan, Stage::fragment},
    {"deferred_gbuffer", R"(#version 450
layout(set = 0, binding = 1) uniform sampler2D albedo_map;
layout(set = 0, binding = 2) uniform sampler2D normal_map;
layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec2 in_uv;
layout(location = 2) in vec3 in_world;
layout(location = 3) in vec3 in_tangent;
layout(location = 0) out vec4 g_albedo;
layout(location = 1) out vec4 g_normal;
layout(location = 2) out vec4 g_position;
layout(location = 3) out vec4 g_material;
layout(push_constant) uniform Material { float roughness; float metallic; } m;
void main() {
  vec3 n = normalize(in_normal);
  vec3 tangent = normalize(in_tangent - n * dot(n, in_tangent));
  vec3 normal_sample = texture(normal_map, in_uv).xyz * 2.0 - 1.0;
  vec3 world_normal = normalize(mat3(tangent, cross(n, tangent), n) * normal_sample);
  g_albedo = texture(albedo_map, in_uv);
  g_normal = vec4(world_normal * 0.5 + 0.5, 1.0);
  g_position = vec4(in_world, gl_FragCoord.z);
  g_material = vec4(m.roughness, m.metallic, 0.0, 1.0);
})", TargetEnv::vulkan, Stage::fragment},
};
}  // namespace

std::span<const Kernel> sample_graphics_kernels() { return kGraphicsKernels; }

Result<FragmentEpilogKey> sample_epilog_key(std::string_view kernel) {
  FragmentEpilogKey key;
  if (kernel == "textured_blended") {
    // Straight alpha over an RGBA8 target.
    BlendState& b = key.targets[0].blend;
    b.enable = true;
    b.src_rgb = BlendFactor::src_alpha;
    b.dst_rgb = BlendFactor::one_minus_src_alpha;
    b.src_alpha = BlendFactor::one;
    b.dst_alpha = BlendFactor::one_minus_src_alpha;
  } else if (kernel == "deferred_gbuffer") {
    using format::Format;
    tilebuffer::RenderTargets targets{Format::R8G8B8A8_UNORM, Format::R10G10B10A2_UNORM,
                                      Format::R16G16B16A16_FLOAT, Format::R8G8B8A8_UNORM};
    AGX_TRY(key.layout, tilebuffer::build_layout(targets, 1));
  }
  return key;
}

Result<VertexPrologKey> sample_prolog_key(const Shader& main) {
  VertexPrologKey key;
  for (const VertexAttribute& a : main.abi.vertex.attributes) {
    using BaseType = VertexAttribute::BaseType;
    // Doubles: two or four (a dvec3 / dvec4's two locations), 32 bytes apart.
    const bool wide = a.type == BaseType::double_;
    const char* name = wide ? (a.components > 2 ? "R64G64B64A64_SFLOAT" : "R64G64_SFLOAT")
                       : a.type == BaseType::float_ ? "R32G32B32A32_SFLOAT"
                       : a.type == BaseType::int_   ? "R32G32B32A32_SINT"
                                                    : "R32G32B32A32_UINT";
    VertexPrologAttribute p;
    p.location = a.location;
    AGX_TRY(p.format, parse_vertex_format(name));
    p.stride = wide ? 32 : 16;
    p.type = a.type;
    key.attributes.push_back(p);
  }
  set_prolog_uniforms(key, main.abi.vertex);
  return key;
}

Result<Shader> compile_sample(const Kernel& kernel, const Options& options) {
  AGX_TRY(Shader main, compile_glsl(kernel.glsl, options));
  if (kernel.stage == Stage::vertex) {
    AGX_TRY(VertexPrologKey key, sample_prolog_key(main));
    AGX_TRY(VertexProlog prolog, compile_vertex_prolog(key));
    return link_vertex(prolog, main);
  }
  if (kernel.stage != Stage::fragment) return main;
  AGX_TRY(FragmentEpilogKey key, sample_epilog_key(kernel.name));
  AGX_TRY(Shader epilog, compile_fragment_epilog(key));
  return link_fragment(main, epilog);
}

}  // namespace agx::compiler
