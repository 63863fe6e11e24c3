// Running a compiled kernel with the texture unit attached (the image
// tests): descriptor fields, the texel-fetch sampler, and a one-threadgroup
// run through the runtime and the CDM with the states the test packed.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "cmdstream/cmdstream.h"
#include "compiler/tests/run_helpers.h"
#include "layout/layout.h"

namespace agx::compiler::test {

// The fields the Texture and PBE descriptors share, filled alike for a
// GPU-tiled layout (the cmdstream tables name them the same).
template <class D>
D image_fields(const layout::Layout& l, cmdstream::TextureDimension dim) {
  D d;
  d.dimension = dim;
  d.layout = cmdstream::Layout::kGpu;
  d.channels = l.format().channels;
  d.type = l.format().type;
  d.swizzle_r = cmdstream::Channel::kR;
  d.swizzle_g = cmdstream::Channel::kG;
  d.swizzle_b = cmdstream::Channel::kB;
  d.swizzle_a = cmdstream::Channel::kA;
  d.width = l.request.width_px;
  d.height = l.request.height_px;
  d.mode = cmdstream::ImageMode::kNormal;
  d.page_aligned_layers = l.page_aligned_layers;
  return d;
}

// Writes the nearest, clamp-to-border sampler texel fetches use
// (Abi::txf_sampler_state) into a sampler-state array, when the shader
// has one.
inline void put_txf_sampler(const Abi& abi, std::vector<uint8_t>& samplers) {
  if (abi.txf_sampler_state == UINT32_MAX) return;
  cmdstream::Sampler txf;
  txf.wrap_s = txf.wrap_t = txf.wrap_r = cmdstream::Wrap::kClampToBorder;
  auto words = *cmdstream::pack(txf);
  std::memcpy(samplers.data() + 8 * abi.txf_sampler_state, words.data(), 8);
}

// A run of a compiled kernel with textures, as a driver makes it: images
// in buffers of the runtime's device, the texture and sampler states in the
// launch's USC words, one threadgroup of the shader's size launched by the
// runtime's encoder through the UAPI on the CDM executor (which runs the
// preamble as the USC Preshader and attaches the texture unit and the PBE).
class TextureRun {
 public:
  explicit TextureRun(const Shader& shader) : shader_(shader), uniforms_(usc::kUniforms, 0) {
    auto d = gpu_device();
    EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().message());
    if (d.ok()) device_ = *d;
    uniforms_.resize(std::max<size_t>(uniforms_.size(), shader.abi.uniform_count));
  }

  // A buffer holding `bytes` for an image; returns its address for the
  // descriptors (0 when the device failed, reported).
  GpuVa add_image(std::span<const uint8_t> bytes) {
    if (!device_) return 0;
    auto b = device_->create_buffer(std::max<size_t>(bytes.size(), 4), fmt::format("image {}", images_.size()));
    EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message());
    if (!b.ok()) return 0;
    std::memcpy((*b)->host().data(), bytes.data(), bytes.size());
    images_.push_back(std::move(*b));
    return images_.back()->gpu_va();
  }
  // What image k holds now (after run(): what the kernel left there).
  std::span<const uint8_t> image(size_t k) const { return images_.at(k)->host(); }

  // The uniform file the kernel starts with (resource 0 and the workgroup
  // count are set by run()).
  uint32_t& uniform(uint32_t at) { return uniforms_.at(at); }

  // Runs one threadgroup with the 24-byte texture / PBE states and 8-byte
  // sampler states given, and resource 0 an output buffer of `vec4s`
  // vec4s; returns the buffer, empty when something failed (reported).
  std::vector<float> run(std::span<const uint8_t> states, std::span<const uint8_t> samplers, size_t vec4s) {
    if (!device_) return {};
    Status st = launch(states, samplers, vec4s);
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message());
    if (!st.ok()) return {};
    std::vector<float> v(vec4s * 4);
    std::memcpy(v.data(), out_->host().data(), v.size() * 4);
    return v;
  }

 private:
  Status launch(std::span<const uint8_t> states, std::span<const uint8_t> samplers, size_t vec4s) {
    const Abi& abi = shader_.abi;
    if (abi.resources.empty()) return Error::invalid_argument("the shader has no output resource");
    AGX_TRY(out_, device_->create_buffer(std::max<size_t>(vec4s * 16, 4), "output"));
    uniforms_[abi.resources[0].uniform] = uint32_t(out_->gpu_va());
    uniforms_[abi.resources[0].uniform + 1] = uint32_t(out_->gpu_va() >> 32);
    for (int i = 0; i < 3; ++i) uniforms_[abi.workgroup_count_uniform + i] = 1;
    runtime::LaunchDesc l = runtime::shader_launch(shader_, {1, 1, 1});
    l.uniforms = uniforms_;
    l.texture_states = states;
    l.sampler_states = samplers;
    AGX_TRY(runtime::EncodedLaunch e, runtime::encode_launch(*device_, l));
    return device_->submit_compute(e.command, "the texture test kernel");
  }

  const Shader& shader_;
  runtime::Device* device_ = nullptr;
  std::vector<uint32_t> uniforms_;
  std::vector<std::unique_ptr<runtime::Buffer>> images_;
  std::unique_ptr<runtime::Buffer> out_;
};

}  // namespace agx::compiler::test
