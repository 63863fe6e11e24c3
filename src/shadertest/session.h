// The state a .shader_test's [test] commands act on, over a runtime Device:
// SSBOs and atomic counter buffers by binding, loose uniform values laid
// out by the compiler's compute ABI, RGBA8 textures (GPU-tiled images) and
// the framebuffer the probes read, and dispatches of one compiled compute
// shader.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "runtime/image.h"
#include "runtime/image_binding.h"
#include "runtime/program_query.h"
#include "runtime/resource_binding.h"
#include "runtime/runtime.h"
#include "runtime/uniform_blocks.h"
#include "shadertest/framebuffer.h"
#include "shadertest/shader_test.h"

namespace agx::shadertest {

// piglit's rgbw pattern: red, green, blue and white quadrants (x < w/2 and
// y < h/2 red, y < h/2 green, x < w/2 blue, else white), alpha 1
// (X11Libre/mirror.fdo.piglit tests/util/piglit-util-gl.c piglit_rgbw_image_ubyte).
std::vector<uint8_t> rgbw_rgba8(uint32_t width_px, uint32_t height_px);


// `texture integer UNIT (W, H) (B, A) FORMAT`: the image format and the
// texels piglit's shader_runner makes, as measured with llvmpipe through
// the installed shader_runner (piglit 0~git20220119): four channels
// (x, y, B, A); one channel A + B * y + x.
struct IntegerFormat {
  format::Format format;
  unsigned channels;
};
Result<IntegerFormat> integer_texture_format(const std::string& gl_name);
std::vector<int32_t> integer_texels(uint32_t width_px, uint32_t height_px, int32_t b, int32_t a, unsigned channels);

// The image format of a GL internal format name (`texture storage`,
// `image texture`): GL_RGBA/GL_RGBA8, GL_RGBA8I/UI, GL_RGBA8_SNORM, GL_R8,
// GL_RGBA16F, GL_R32F, GL_RG32F, GL_RGBA32F, GL_R32I/UI, GL_RG32I/UI,
// GL_RGBA32I/UI; others are an unsupported error naming them.
Result<format::Format> gl_image_format(const std::string& gl_name);

// The texels (RGBA8) of `texture rgbw 1D` (red, green, blue, white) and
// `texture rgbw 3D` (2x2x2: red, green, blue, white, then yellow, magenta,
// cyan, black), X11Libre/mirror.fdo.piglit tests/util/piglit-util-gl.c
// piglit_rgbw_texture_1d / _3d; and of layer L of `texture rgbw 1DArray /
// 2DArray` (piglit_array_texture: each layer one colour of red, green,
// blue, white in turn).
std::vector<uint8_t> rgbw_1d_rgba8();
std::vector<uint8_t> rgbw_3d_rgba8();
std::vector<uint8_t> array_layer_rgba8(uint32_t width_px, uint32_t height_px, uint32_t layer);

// The RGBA8 texels of a whole image level 0 (detiled), as floats per channel.
Result<std::vector<uint8_t>> read_rgba8(const runtime::Image& image);

// A probe of a 32- or 64-bit value as piglit compares it ("observed OP
// reference"; floats and doubles compare equal within DBL_EPSILON).
bool probe_value(ProbeType type, uint64_t observed_bits, uint64_t reference_bits, Compare cmp);

class Session {
 public:
  // `shader` is the compiled compute shader the dispatches run.
  Session(runtime::Device& device, const compiler::Shader& shader) : device_(device), shader_(shader) {}

  // Runs one command. An Error ends the file (what piglit's shader_runner
  // aborts on: a missing resource, an unsupported feature, a GPU fault); a
  // probe that does not match is recorded in failures() and the file goes on,
  // as shader_runner goes on to its next command.
  Status run(const Command& command);

  // A program with a variable local size (GL_ARB_compute_variable_group_size):
  // `compute group size` dispatches the shader this gives for the size, and
  // `compute X Y Z` is GL's INVALID_OPERATION, as is `compute group size`
  // without it.
  using ShaderForGroupSize =
      std::function<Result<std::shared_ptr<const compiler::Shader>>(std::array<uint32_t, 3> local)>;
  void set_variable_group_size(ShaderForGroupSize shader_for) { variable_group_size_ = std::move(shader_for); }

  // What `verify program_query` compares against (the program's SPIR-V);
  // without it the command is an unsupported error.
  void set_program_resources(const runtime::ProgramResources& r) { program_resources_ = r; }
  // Why they are unknown (the SPIR-V scan's error), for the command's error.
  void set_program_resources_error(std::string why) { program_resources_error_ = std::move(why); }
  // The program's uniform blocks (runtime/uniform_blocks.h): `uniform` of a
  // member writes its block's buffer, bound at the block's binding.
  void set_uniform_blocks(std::vector<runtime::UniformBlock> blocks) { uniform_blocks_ = std::move(blocks); }
  void set_uniform_blocks_error(std::string why) { uniform_blocks_error_ = std::move(why); }

  // [require]'s SIZE W H (piglit's window is 250x250 otherwise) and
  // ignore_missing_uniforms (`uniform` of a name that is not active is then
  // skipped, not an error).
  void set_window_size(uint32_t width_px, uint32_t height_px) { window_px_ = {width_px, height_px}; }
  void set_ignore_missing_uniforms(bool ignore) { ignore_missing_uniforms_ = ignore; }

  // shader_runner's block_data: what the block commands set (-1: unset).
  struct BlockData {
    int array_index = 0, binding = -1, offset = -1, matrix_stride = -1, row_major = -1;
  };
  const BlockData& block_data() const { return block_data_; }

  // The buffers, images and samplers bound for a stage's resources
  // (runtime/resource_binding.h): what the dispatches bind, and what a
  // vertex/fragment file's draws bind (GraphicsSession keeps its textures
  // and buffers in a Session).
  runtime::ResourceLookup resource_lookup();
  // Whether `command` is one a Session runs for a vertex/fragment file:
  // textures, texture parameters, buffers, atomic counters and their
  // probes, block state.
  static bool is_resource_command(const Command& command);

  // The failed probes so far, each as shader_runner prints it (its message
  // lines, then "Test failure on line N").
  const std::vector<std::string>& failures() const { return failures_; }

 private:
  Status set_uniform(const CmdUniform& u);
  Result<runtime::Buffer*> ssbo(int index);
  Status dispatch(std::array<uint32_t, 3> groups, std::optional<std::array<uint32_t, 3>> local,
                  const Command& at);  // GL's checks, then launch
  Status launch(const compiler::Shader& shader, std::array<uint32_t, 3> groups, const Command& at);
  Status probe_failed(std::string message);  // records a failed probe; returns ok
  Status probe_pixel(const CmdProbeRgba& p);
  Status probe_ssbo(const CmdProbeSsbo& p);
  Status texture_miptree(const CmdTextureMiptree& t);
  Status texture_shaped(const CmdTextureShaped& t);
  Status texture_pattern(const CmdTexturePattern& t);
  Status probe_atomic_counter(const CmdProbeAtomicCounter& p);
  Status probe_all(const CmdProbeAll& p);
  Result<Framebuffer> framebuffer_model();  // the read framebuffer, downloaded
  Status verify_program_query(const CmdVerifyProgramQuery& q);
  Result<runtime::Image*> read_framebuffer();
  Status bind_framebuffer(const CmdFbTex2d& f);
  Status clear_draw_framebuffer();
  Result<runtime::BoundImage> bound_image(const compiler::ImageBinding& b) const;
  Result<std::unique_ptr<runtime::Image>> make_image(const std::string& label, uint32_t w, uint32_t h,
                                            format::Format fmt = format::Format::R8G8B8A8_UNORM);

  runtime::Device& device_;
  const compiler::Shader& shader_;
  Status set_block_member(const CmdUniform& u, const runtime::MemberAt& at);
  Result<runtime::Buffer*> uniform_buffer(const runtime::UniformBlock& block);
  std::optional<runtime::ProgramResources> program_resources_;
  std::vector<runtime::UniformBlock> uniform_blocks_;
  std::string uniform_blocks_error_;
  std::map<uint32_t, std::unique_ptr<runtime::Buffer>> ubos_;  // uniform block binding -> its buffer
  std::string program_resources_error_;
  std::map<int, std::unique_ptr<runtime::Buffer>> ssbos_;
  std::map<uint32_t, std::unique_ptr<runtime::Buffer>> atomic_buffers_;
  std::unique_ptr<runtime::Buffer> atomic_lock_;  // the 64-bit buffer atomics' lock word (compiler Abi)
  std::map<std::string, int> opaque_units_;     // `uniform int tex 0` for samplers/images
  std::vector<uint32_t> uniform_words_;         // the loose uniform block, from u(P)
  std::map<int, std::unique_ptr<runtime::Image>> textures_;
  std::map<int, std::string> image_units_;      // image unit -> format
  std::map<int, runtime::SamplerParams> sampler_params_; // texture unit -> `texparameter` state
  int active_unit_ = 0;                         // the unit the last texture command bound (glActiveTexture)
  std::unique_ptr<runtime::Image> winsys_;               // piglit's window: RGBA8, window_px_
  std::array<uint32_t, 2> window_px_{250, 250}; // shader_runner DEFAULT_WINDOW_WIDTH/HEIGHT
  bool ignore_missing_uniforms_ = false;
  ShaderForGroupSize variable_group_size_;
  BlockData block_data_;
  std::vector<std::shared_ptr<const compiler::Shader>> sized_shaders_;  // kept while the session runs
  std::optional<int> fb_texture_;               // the read framebuffer's attachment 0; none: the window
  std::optional<std::vector<int>> draw_units_;  // the draw framebuffer's attachments; none: the window
  std::array<float, 4> clear_color_{};
  std::array<float, 4> tolerance_{0.01f, 0.01f, 0.01f, 0.01f};  // piglit_tolerance's default
  unsigned dispatches_ = 0;
  const Command* current_ = nullptr;            // the command being run
  std::vector<std::string> failures_;
};

}  // namespace agx::shadertest
