// The state a vertex/fragment file's [test] commands act on, over a runtime
// Device: the two compiled stages' loose uniforms (the compiler's vertex
// and fragment ABIs), piglit's window (RGBA8, 250x250 unless SIZE, with a
// Z32 depth buffer when [require] asks `depthbuffer`), the GL state the
// runtime's graphics pipeline has, and draws: each draw command is a
// render pass that loads the window, draws with a pipeline made from the
// main shaders linked with their vertex prolog (the attributes' formats)
// and fragment epilog (the window's tilebuffer), and stores it again.
//
// GL's window origin is the lower left: clip y = -1 lands on framebuffer
// row 0 (the runtime's viewport is not flipped), so row r of the image is
// GL's row r, which is what glReadPixels and the probes count, and the
// winding and gl_FragCoord.y of GL's window coordinates hold unchanged.
// A PNG of the window flips it (PNG rows run top to bottom).
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/vertex_format.h"
#include "runtime/graphics_pipeline.h"
#include "runtime/image.h"
#include "runtime/render_pass.h"
#include "runtime/runtime.h"
#include "shadertest/framebuffer.h"
#include "shadertest/glsl_lowering.h"
#include "shadertest/session.h"
#include "shadertest/shader_test.h"
#include "util/png.h"

namespace agx::shadertest {

// The compiled program of a vertex/fragment file.
struct CompiledGraphics {
  compiler::Shader vertex, fragment;       // main shaders (no preamble)
  // Both stages' uniform blocks (each block at the binding point of its
  // index in the program, as shader_runner binds them).
  std::vector<runtime::UniformBlock> uniform_blocks;
  std::map<std::string, uint32_t> inputs;  // vertex input name -> location (glGetAttribLocation)
  // Initialized loose uniforms of each stage: name -> words (stage_interface).
  std::map<std::string, std::vector<uint32_t>> vertex_initializers, fragment_initializers;
};

// The GL state draws take (shader_runner's enable/disable, depthfunc,
// provoking vertex; GL's defaults).
struct GlDrawState {
  bool depth_test = false, cull_face = false, depth_clamp = false;
  runtime::CompareOp depth_func = runtime::CompareOp::less;
  bool provoking_last = true;  // GL_LAST_VERTEX_CONVENTION
  runtime::PolygonMode polygon_mode = runtime::PolygonMode::fill;
};

// One attribute's source for a draw: a buffer, the byte offset of its
// first element, the stride, its format and whether it steps per instance.
struct AttributeSource {
  const runtime::Buffer* buffer = nullptr;
  uint64_t offset_B = 0;
  uint32_t stride_B = 0, elements = 1;
  compiler::VertexFormat format;
};

// The four corners of piglit_draw_rect (X11Libre/mirror.fdo.piglit
// tests/util/piglit-util-gl.c piglit_draw_rect_z: (x, y), (x + w, y),
// (x, y + h), (x + w, y + h), z 0, w 1, drawn as a triangle strip), and
// piglit_draw_rect_tex's texture coordinates in the same order.
std::array<std::array<float, 4>, 4> rect_corners(const std::array<float, 4>& rect);
std::array<std::array<float, 2>, 4> rect_tex_corners(const std::array<float, 4>& tex_rect);

// GL's compatibility matrices the GLSL lowering turns into `piglit_*`
// uniforms (glsl_lowering.h): the 16 (or 9 for the normal matrix) floats,
// column after column, of `name` ("piglit_ModelViewProjectionMatrixInverse",
// ...) given the projection (the modelview and texture matrices are the
// identity: shader_runner loads it and never changes them). nullopt for a
// name that is not one of them.
using Mat4 = std::array<float, 16>;  // column-major
std::optional<std::vector<float>> compat_matrix(const std::string& name, const Mat4& projection);
// glOrtho(l, r, b, t, -1, 1) (piglit_gen_ortho_projection) and
// glFrustum(l, r, b, t, n, f) (piglit_frustum_projection), as GL 2.1
// sections 2.11.2 give them.
Mat4 ortho_matrix(double l, double r, double b, double t);
Mat4 frustum_matrix(double l, double r, double b, double t, double n, double f);

// The user clip plane `enable`/`disable` names: GL_CLIP_PLANEi (or GL 3.0's
// alias GL_CLIP_DISTANCEi), i < kClipPlanes; nullopt for another name.
std::optional<unsigned> clip_plane_enum(std::string_view gl);

class GraphicsSession {
 public:
  GraphicsSession(runtime::Device& device, const CompiledGraphics& program, const ShaderTest& test);

  // Makes the window (cleared to black) and writes the uniforms' initial
  // values (GLSL initializers, the compatibility matrices); run() needs it
  // first.
  Status begin();
  // As Session::run: an Error ends the file, a failed probe is recorded.
  Status run(const Command& command);
  const std::vector<std::string>& failures() const { return failures_; }
  // The failed probes, as values (what `failures()` says in text).
  const std::vector<ProbeFailure>& probe_failures() const { return probe_failures_; }
  // The window as a PNG image (top row first).
  Result<PngImage> window_png() const;

 private:
  Status set_uniform(const CmdUniform& u);
  // Writes `data` to loose uniform `name` of every stage that has it;
  // whether one had it.
  Result<bool> write_uniform(std::string_view name, std::span<const uint8_t> data);
  Status enable_clip_plane(unsigned plane, bool on);
  Status write_clip_uniforms();
  Status write_compat_matrices();
  Status clear();
  Status graphics(const GraphicsCommand& g);
  Status gl_state(const CmdGlState& s);
  Status two_side(bool on);
  Status fixed_function(const CmdFixedFunction& f);
  Status probe_failed(ProbeFailure failure);  // records it; returns ok
  Status resource_command(const Command& command);
  Status bind_stage(const compiler::Shader& shader, runtime::ProgramCode& program, const char* stage);
  Result<Framebuffer> framebuffer() const;
  Status probe_depth(const CmdProbeDepth& p);
  // graphics_draw.cpp
  Status draw_rect(const CmdDrawRect& r);
  Status draw_arrays(const CmdDrawArrays& d);
  Status vertex_data_sources(std::map<uint32_t, AttributeSource>& sources);
  Result<std::unique_ptr<runtime::GraphicsPipeline>> pipeline(const std::map<uint32_t, AttributeSource>& sources,
                                                              runtime::Topology topology,
                                                              const runtime::RenderPass& pass);
  Result<runtime::ProgramCode> vertex_program(const std::map<uint32_t, AttributeSource>& sources);
  Result<runtime::ProgramCode> fragment_program(const tilebuffer::Layout& layout);
  Status draw(const std::map<uint32_t, AttributeSource>& sources, runtime::Topology topology, uint32_t vertices,
              uint32_t instances, uint32_t first = 0);
  Result<const runtime::Buffer*> buffer(const void* data, size_t size_B, const char* label);

  runtime::Device& device_;
  const CompiledGraphics& program_;
  const ShaderTest& test_;
  // The file's textures, samplers, buffers and atomic counters, kept and
  // probed by the compute session's commands (session.h), which has no
  // compute shader here (an empty one: no loose uniforms, no dispatch);
  // each draw binds them to both stages (runtime/resource_binding.h).
  compiler::Shader no_compute_;
  Session resources_;
  std::array<uint32_t, 2> window_px_{kDefaultWindowWidth, kDefaultWindowHeight};
  bool ignore_missing_uniforms_ = false;
  std::unique_ptr<runtime::Image> window_, depth_;
  std::vector<uint32_t> vertex_uniforms_, fragment_uniforms_;  // u0.. of each main shader
  Mat4 projection_{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  std::map<uint32_t, std::array<float, 4>> current_attributes_;  // glVertexAttrib / `color` values by location
  GlDrawState state_;
  std::array<std::array<float, 4>, kClipPlanes> clip_planes_{};  // `clip plane` (eye coordinates)
  uint32_t clip_enable_ = 0;                                     // GL_CLIP_PLANEi enabled
  std::array<float, 4> clear_color_{};
  float clear_depth_ = 1.0f;
  std::array<float, 4> tolerance_{0.01f, 0.01f, 0.01f, 0.01f};
  std::vector<std::unique_ptr<runtime::Buffer>> buffers_;  // vertex data of the draws
  unsigned draws_ = 0;
  const Command* current_ = nullptr;
  std::vector<std::string> failures_;
  std::vector<ProbeFailure> probe_failures_;
};

}  // namespace agx::shadertest
