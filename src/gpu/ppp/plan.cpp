// A draw state's vertex outputs as the primitive stage reads them: the
// layout the Output Select, Varying Counts and VDM Vertex Outputs words
// describe (varyings::layout_from_words), the slots they make (the
// varyings unit's remap: DrawState::slots) and the clipping rule of each
// word.
#include <fmt/format.h>

#include "gpu/ppp/ppp_internal.h"

namespace agx::gpu {

namespace cs = cmdstream;

namespace {

template <class T>
uint32_t word_of(const T& v) {
  uint32_t w = 0;
  (void)cs::pack_into(v, std::span(reinterpret_cast<uint8_t*>(&w), sizeof w));  // unpacked words pack back
  return w;
}

}  // namespace

Result<OutputPlan> plan_draw_state(DrawState& state) {
  const PppWords& p = state.ppp;
  if (state.output_count < 4)
    return Error::decode("VDM State Vertex Outputs: {} output words, the position alone takes 4",
                         state.output_count);
  auto layout = varyings::layout_from_words(word_of(p.output_select), word_of(p.varying_counts_32),
                                            word_of(p.varying_counts_16), state.output_count);
  if (!layout) return std::move(layout).error().context("draw state");
  auto slots = varyings::remap(word_of(p.output_select), *layout);
  if (!slots) return std::move(slots).error().context("draw state");
  state.slots = std::move(*slots);
  OutputPlan plan;
  plan.count = state.output_count;
  plan.rules.assign(plan.count, OutputRule::lerp32);
  for (const varyings::OutputRange& r : layout->outputs) {
    for (unsigned w = r.index; w < r.index + r.words; ++w) {
      switch (r.kind) {
        case varyings::OutputKind::varying:
          if (r.interp == varyings::Interp::flat) plan.rules[w] = OutputRule::flat;
          else if (r.interp == varyings::Interp::linear)
            plan.rules[w] = w >= layout->first_16bit_index ? OutputRule::linear16 : OutputRule::linear32;
          else if (w >= layout->first_16bit_index) plan.rules[w] = OutputRule::lerp16;
          break;
        case varyings::OutputKind::point_size: plan.point_size = static_cast<int>(w); break;
        case varyings::OutputKind::layer_viewport:
          plan.layer_viewport = static_cast<int>(w);
          plan.rules[w] = OutputRule::flat;
          break;
        case varyings::OutputKind::clip_distance: plan.clip_distances.push_back(w); break;
        case varyings::OutputKind::position: break;
      }
    }
  }
  return plan;
}

}  // namespace agx::gpu
