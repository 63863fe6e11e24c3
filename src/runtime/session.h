// The state a .shader_test's [test] commands act on, over a runtime Device:
// SSBOs and atomic counter buffers by binding, loose uniform values laid
// out by the compiler's compute ABI, RGBA8 textures (GPU-tiled images) and
// the framebuffer the probes read, and dispatches of one compiled compute
// shader.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "runtime/image.h"
#include "runtime/runtime.h"
#include "runtime/shader_test.h"

namespace agx::runtime {

// piglit's rgbw pattern: red, green, blue and white quadrants (x < w/2 and
// y < h/2 red, y < h/2 green, x < w/2 blue, else white), alpha 1
// (X11Libre/mirror.fdo.piglit tests/util/piglit-util-gl.c piglit_rgbw_image_ubyte).
std::vector<uint8_t> rgbw_rgba8(uint32_t width_px, uint32_t height_px);

// piglit's probe: every channel within the tolerance (|observed - expected|
// <= tolerance); `channels` is 3 for rgb, 4 for rgba.
bool probe_matches(const std::array<float, 4>& observed, const std::array<float, 4>& expected,
                   const std::array<float, 4>& tolerance, int channels);

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

// The RGBA8 texels of a whole image level 0 (detiled), as floats per channel.
Result<std::vector<uint8_t>> read_rgba8(const Image& image);

// A probe of a 32- or 64-bit value as piglit compares it ("observed OP
// reference"; floats and doubles compare equal within DBL_EPSILON).
bool probe_value(ProbeType type, uint64_t observed_bits, uint64_t reference_bits, Compare cmp);

class Session {
 public:
  // `shader` is the compiled compute shader the dispatches run.
  Session(Device& device, const compiler::Shader& shader) : device_(device), shader_(shader) {}

  // Runs one command; an Error is the FAIL reason (the caller adds the line).
  Status run(const Command& command);

 private:
  Status set_uniform(const CmdUniform& u);
  Result<Buffer*> ssbo(int index);
  Status dispatch(std::array<uint32_t, 3> groups, std::optional<std::array<uint32_t, 3>> local,
                  const Command& at);
  Status probe_pixel(const CmdProbeRgba& p);
  Status probe_all(const CmdProbeAll& p);
  Result<Image*> read_framebuffer();
  Result<const Image*> bound_image(const compiler::ImageBinding& b) const;
  Result<std::unique_ptr<Image>> make_image(const std::string& label, uint32_t w, uint32_t h,
                                            format::Format fmt = format::Format::R8G8B8A8_UNORM);

  Device& device_;
  const compiler::Shader& shader_;
  std::map<int, std::unique_ptr<Buffer>> ssbos_;
  std::map<uint32_t, std::unique_ptr<Buffer>> atomic_buffers_;
  std::map<std::string, int> opaque_units_;     // `uniform int tex 0` for samplers/images
  std::vector<uint32_t> uniform_words_;         // the loose uniform block, from u(P)
  std::map<int, std::unique_ptr<Image>> textures_;
  std::map<int, std::string> image_units_;      // image unit -> format
  std::unique_ptr<Image> winsys_;               // piglit's window: 250x250 RGBA8
  std::optional<int> fb_texture_;               // `fb tex 2d N`; none: the window
  std::array<float, 4> clear_color_{};
  std::array<float, 4> tolerance_{0.01f, 0.01f, 0.01f, 0.01f};  // piglit_tolerance's default
  unsigned dispatches_ = 0;
};

}  // namespace agx::runtime
