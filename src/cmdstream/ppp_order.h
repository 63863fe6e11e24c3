// The order of the words of a PPP update: a PPP Header whose present bits
// select the words that follow, each in a fixed place; Region clip and
// Viewport repeat once per viewport (the header's Viewport count), the
// Viewport words after one Viewport control word; the fragment shader is
// four words. One table, read by the decoder (decode_ppp.cpp) and by the
// software GPU's PPP (gpu/ppp). Order and repeats: bminor/mesa-mesa
// src/asahi/lib/agx_ppp.h (agx_ppp_fini's size sum and the order of its
// pushes) and src/asahi/lib/decode.c (agxdecode_record).
#pragma once

#include <cstdint>

#include "cmdstream/tables.h"

namespace agx::cmdstream {

enum class PppWord : uint8_t {
  fragment_control,
  fragment_control_2,
  front_face,
  front_face_2,
  front_stencil,
  back_face,
  back_face_2,
  back_stencil,
  depth_bias_scissor,
  region_clip,
  viewport_control,
  viewport,
  w_clamp,
  output_select,
  varying_counts_32,
  varying_counts_16,
  cull,
  cull_2,
  fragment_shader_0,
  fragment_shader_1,
  fragment_shader_2,
  fragment_shader_3,
  occlusion_query,
  occlusion_query_2,
  output_unknown,
  output_size,
  varying_word_2,
};

// Names the typed struct of a word for a generic visitor.
template <class T>
struct PppTag {
  using type = T;
};

// Calls f(PppTag<T>{}, PppWord, title, index) for every word `h` selects,
// in record order; `title` is null where the struct's own name is the
// word's name, `index` counts the repeats of Region clip and Viewport. A
// call returning false stops the walk; then the result is false.
template <class F>
bool for_each_ppp_word(const PppHeader& h, F&& f) {
  const uint64_t viewports = h.viewport_count;
  auto run = [&]<class T>(PppTag<T> tag, bool present, PppWord w, const char* title, uint64_t n = 1) {
    if (!present) return true;
    for (uint64_t i = 0; i < n; ++i)
      if (!f(tag, w, title, i)) return false;
    return true;
  };
  using W = PppWord;
  return run(PppTag<FragmentControl>{}, h.fragment_control, W::fragment_control, nullptr) &&
         run(PppTag<FragmentControl>{}, h.fragment_control_2, W::fragment_control_2, "Fragment control 2") &&
         run(PppTag<FragmentFace>{}, h.fragment_front_face, W::front_face, "Front face") &&
         run(PppTag<FragmentFace2>{}, h.fragment_front_face_2, W::front_face_2, "Front face 2") &&
         run(PppTag<FragmentStencil>{}, h.fragment_front_stencil, W::front_stencil, "Front stencil") &&
         run(PppTag<FragmentFace>{}, h.fragment_back_face, W::back_face, "Back face") &&
         run(PppTag<FragmentFace2>{}, h.fragment_back_face_2, W::back_face_2, "Back face 2") &&
         run(PppTag<FragmentStencil>{}, h.fragment_back_stencil, W::back_stencil, "Back stencil") &&
         run(PppTag<DepthBiasScissor>{}, h.depth_bias_scissor, W::depth_bias_scissor, nullptr) &&
         run(PppTag<RegionClip>{}, h.region_clip, W::region_clip, nullptr, viewports) &&
         run(PppTag<ViewportControl>{}, h.viewport, W::viewport_control, nullptr) &&
         run(PppTag<Viewport>{}, h.viewport, W::viewport, nullptr, viewports) &&
         run(PppTag<WClamp>{}, h.w_clamp, W::w_clamp, nullptr) &&
         run(PppTag<OutputSelect>{}, h.output_select, W::output_select, nullptr) &&
         run(PppTag<VaryingCounts>{}, h.varying_counts_32, W::varying_counts_32, "Varying counts 32") &&
         run(PppTag<VaryingCounts>{}, h.varying_counts_16, W::varying_counts_16, "Varying counts 16") &&
         run(PppTag<Cull>{}, h.cull, W::cull, nullptr) && run(PppTag<Cull2>{}, h.cull_2, W::cull_2, nullptr) &&
         run(PppTag<FragmentShaderWord0>{}, h.fragment_shader, W::fragment_shader_0, nullptr) &&
         run(PppTag<FragmentShaderWord1>{}, h.fragment_shader, W::fragment_shader_1, nullptr) &&
         run(PppTag<FragmentShaderWord2>{}, h.fragment_shader, W::fragment_shader_2, nullptr) &&
         run(PppTag<FragmentShaderWord3>{}, h.fragment_shader, W::fragment_shader_3, nullptr) &&
         run(PppTag<FragmentOcclusionQuery>{}, h.occlusion_query, W::occlusion_query, nullptr) &&
         run(PppTag<FragmentOcclusionQuery2>{}, h.occlusion_query_2, W::occlusion_query_2, nullptr) &&
         run(PppTag<OutputUnknown>{}, h.output_unknown, W::output_unknown, nullptr) &&
         run(PppTag<OutputSize>{}, h.output_size, W::output_size, nullptr) &&
         run(PppTag<Varying2>{}, h.varying_word_2, W::varying_word_2, nullptr);
}

}  // namespace agx::cmdstream
