// Render passes, in Vulkan's shape (vkCmdBeginRendering / EndRendering):
// colour attachments with load / clear / store operations over runtime
// images. end() builds what the hardware needs for the pass -- the
// tilebuffer layout (the tilebuffer unit), the background and end-of-tile
// programs (compiler/bg_eot.h) with their USC word lists (the one packer,
// runtime/encoder.h), the VDM stream and `drm_asahi_cmd_render` -- then
// submits it (Device::submit_render), waits and reports a fault naming the
// pass. Between begin and end, draws with a graphics pipeline
// (graphics_pipeline.h) append to the pass's VDM stream: PPP State, VDM
// State, Index List each (render_draw.cpp; docs/runtime.md "Graphics").
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/bg_eot.h"
#include "runtime/encoder.h"
#include "runtime/graphics_pipeline.h"
#include "runtime/image.h"
#include "tilebuffer/tilebuffer.h"

namespace agx::runtime {

enum class LoadOp : uint8_t { load, clear, dont_care };
enum class StoreOp : uint8_t { store, dont_care };

struct ColorAttachment {
  Image* image = nullptr;  // none: an unused render target slot
  LoadOp load = LoadOp::clear;
  StoreOp store = StoreOp::store;
  // The clear colour as the four 32-bit words of the render target's
  // components: float bits for float and normalized formats, integers for
  // integer ones (VkClearColorValue).
  std::array<uint32_t, 4> clear{};
  // A single-sampled image the samples are resolved into (average; sample
  // 0 for integer formats) instead of storing the multisampled image,
  // whatever `store` says.
  Image* resolve = nullptr;
};

// Depth (Z32_FLOAT or Z16_UNORM) and stencil (S8_UINT) attachments: GPU-
// tiled or twiddled images the ZLS loads and stores; a clear value when
// not loaded.
struct DepthAttachment {
  Image* image = nullptr;
  LoadOp load = LoadOp::clear;
  StoreOp store = StoreOp::store;
  float clear = 1.0f;
};
struct StencilAttachment {
  Image* image = nullptr;
  LoadOp load = LoadOp::clear;
  StoreOp store = StoreOp::store;
  uint8_t clear = 0;
};

struct RenderPassDesc {
  std::vector<ColorAttachment> colors;  // render target i is colors[i]
  DepthAttachment depth;
  StencilAttachment stencil;
  std::string label;                    // names the pass in errors
};

// A pass's fixed facts, checked when it begins.
struct RenderArea {
  uint32_t width_px = 0, height_px = 0, layers = 1, samples = 1;
};

enum class IndexType : uint8_t { u8, u16, u32 };

class RenderPass {
 public:
  // Checks the attachments (up to 8 render targets, 2D or 2D multisampled
  // (arrays) images of one size, layer count and sample count, formats the
  // PBE writes; a resolve image single-sampled and of the same size and
  // format; depth and stencil images of their formats, not linear; at
  // least one attachment) and lays out the tilebuffer. Errors name the
  // attachment.
  static Result<std::unique_ptr<RenderPass>> begin(Device& device, RenderPassDesc desc);
  ~RenderPass();

  const tilebuffer::Layout& tilebuffer() const { return tib_; }
  const RenderArea& area() const { return area_; }
  // Draws (vkCmdDraw*): the pipeline bound last, the index buffer bound
  // last for indexed draws. Errors name the pass and the draw (its number
  // in the pass, from 0). Buffers and the pipeline must live until end().
  Status bind_pipeline(const GraphicsPipeline& pipeline);
  Status bind_index_buffer(const Buffer& buffer, uint64_t offset_B, IndexType type);
  Status draw(uint32_t vertex_count, uint32_t instance_count = 1, uint32_t first_vertex = 0,
              uint32_t first_instance = 0);
  Status draw_indexed(uint32_t index_count, uint32_t instance_count = 1, uint32_t first_index = 0,
                      int32_t vertex_offset = 0, uint32_t first_instance = 0);
  // The counts read by the GPU when the draw runs: VkDrawIndirectCommand
  // (4 words) or VkDrawIndexedIndirectCommand (5 words) at `offset_B`.
  Status draw_indirect(const Buffer& buffer, uint64_t offset_B);
  Status draw_indexed_indirect(const Buffer& buffer, uint64_t offset_B);
  uint32_t draw_count() const { return draws_; }

  // Builds and submits the render command; waits for it.
  Status end();
  // The command end() submitted.
  const drm_asahi_cmd_render& command() const { return cmd_; }

 private:
  RenderPass(Device& device, RenderPassDesc desc) : device_(device), desc_(std::move(desc)) {}
  Result<uint64_t> upload(std::span<const uint8_t> bytes, const char* what, bool usc);
  Result<drm_asahi_bg_eot> place(const compiler::TileProgram& program, UscWordList words, const char* what);
  Result<drm_asahi_bg_eot> background();
  Result<drm_asahi_bg_eot> end_of_tile();
  Status depth_stencil();
  struct DrawCounts;
  Status record(const DrawCounts& counts);
  Status draw_state();
  Result<uint64_t> stream_prefix(uint32_t draws);
  Error faulting_draw(Error pass_fault);
  Result<uint32_t> fragment_words(const GraphicsPipeline& p);
  Status scratch_helpers(const GraphicsPipeline& p);

  Device& device_;
  RenderPassDesc desc_;
  RenderArea area_;
  tilebuffer::Layout tib_;
  std::vector<std::unique_ptr<Buffer>> buffers_;  // what the command reads, kept until the pass goes
  drm_asahi_cmd_render cmd_{};

  // Draw recording.
  const GraphicsPipeline* pipeline_ = nullptr;
  std::optional<HelperProgram> vertex_helper_, fragment_helper_;  // once a draw's stage has scratch
  const Buffer* index_buffer_ = nullptr;
  uint64_t index_offset_B_ = 0;
  IndexType index_type_ = IndexType::u16;
  uint32_t draws_ = 0;
  std::vector<uint8_t> stream_;                 // the VDM stream without its Stream Terminate
  std::vector<size_t> draw_ends_;               // where each draw's blocks end in stream_
  std::vector<uint8_t> scissors_, depth_biases_;  // the ISP's arrays, an entry per draw
  std::vector<std::pair<const GraphicsPipeline*, uint32_t>> fragment_words_;  // word lists with this pass's Shared word
};

// The memory format code (st_tile / image_write_block) of render target
// `rt` of a tilebuffer layout, and the compiler's view of it.
compiler::TileTarget tile_target(const tilebuffer::Layout& layout, uint32_t rt);

}  // namespace agx::runtime
