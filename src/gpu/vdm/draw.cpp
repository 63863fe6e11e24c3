// One Index List: its counts (from the block, or an indirect buffer read
// when the draw runs), the index fetch with primitive restart, the vertex
// shader run once per distinct vertex ID and instance, and the primitive
// stage per instance. Mesa's encoders of the block: bminor/mesa-mesa
// src/asahi/lib/agx_helpers.h (agx_vdm_draw: Start is the index bias of
// indexed draws and the first vertex of others; Buffer size is the index
// buffer's bytes) and src/asahi/vulkan/hk_cmd_draw.c.
#include <unordered_map>

#include <fmt/format.h>

#include "gpu/vdm/vdm_internal.h"

namespace agx::gpu::detail {

namespace {

namespace cs = cmdstream;

struct DrawParams {
  uint32_t count = 0;
  uint32_t instances = 1;
  uint32_t bias = 0;  // added to each index (indexed) or the first vertex ID
  bool indexed = false;
  unsigned index_B = 4;
  GpuVa index_buffer = 0;
  uint64_t buffer_B = UINT64_MAX;  // bytes of the index buffer (no Buffer size word: unbounded)
};

Result<DrawParams> resolve(VdmRun& run, const IndexListBlock& b, const std::string& ctx) {
  DrawParams d;
  d.indexed = b.header.index_buffer_present;
  auto bad = [&](Error e) { return fail(run.where, b.at, GpuUnit::vdm, std::move(e).context(ctx)); };
  if (d.indexed) {
    switch (b.header.index_size) {
      case cs::IndexSize::kU8: d.index_B = 1; break;
      case cs::IndexSize::kU16: d.index_B = 2; break;
      case cs::IndexSize::kU32: d.index_B = 4; break;
      default:
        return bad(Error::decode("Index size {} names no size", static_cast<uint32_t>(b.header.index_size)));
    }
    d.index_buffer = b.index_buffer;
    if (b.buffer_size_B) d.buffer_B = *b.buffer_size_B;
  }
  if (b.indirect) {
    // Vulkan's VkDrawIndirectCommand (count, instances, first vertex,
    // first instance) or VkDrawIndexedIndirectCommand (count, instances,
    // first index, vertex offset, first instance), which hk_cmd_draw.c
    // hands to the block unchanged. The first instance has no register in
    // the vertex shader ABI: shaders read it from their uniforms.
    uint32_t w[5] = {};
    AGX_CHECK(read_gpu(*run.cmd.memory, *b.indirect, w, d.indexed ? 20 : 16, GpuUnit::vdm, run.where));
    d.count = w[0];
    d.instances = w[1];
    if (d.indexed) {
      const uint64_t skip = uint64_t{w[2]} * d.index_B;
      d.index_buffer += skip;
      d.buffer_B = d.buffer_B == UINT64_MAX ? d.buffer_B : (skip < d.buffer_B ? d.buffer_B - skip : 0);
      d.bias = w[3];
    } else {
      d.bias = w[2];
    }
    return d;
  }
  if (!b.count) return bad(Error::decode("an Index List with neither a Count word nor an Indirect buffer"));
  d.count = *b.count;
  d.instances = b.instances.value_or(1);
  d.bias = b.start.value_or(0);
  return d;
}

// The draw's elements (indices into `ids`, kRestartElement at a restart)
// and its distinct vertex IDs in order of first use. Indices at or beyond
// the Buffer size read as 0 (docs/gpu.md, "Index fetch").
Status fetch(VdmRun& run, const IndexListBlock& b, const DrawParams& d, std::vector<uint32_t>& elements,
             std::vector<uint32_t>& ids) {
  elements.resize(d.count);
  if (!d.indexed) {
    ids.resize(d.count);
    for (uint32_t i = 0; i < d.count; ++i) {
      elements[i] = i;
      ids[i] = d.bias + i;
    }
    return {};
  }
  const uint64_t in_range = std::min<uint64_t>(d.count, d.buffer_B / d.index_B);
  std::vector<uint8_t> bytes(in_range * d.index_B);
  AGX_CHECK(read_gpu(*run.cmd.memory, d.index_buffer, bytes.data(), bytes.size(), GpuUnit::vdm, run.where));
  const uint32_t mask = d.index_B == 4 ? 0xFFFFFFFFu : (1u << (8 * d.index_B)) - 1;
  const uint32_t restart = run.vdm.restart_index.value_or(cs::VdmStateRestartIndex{}).value & mask;
  std::unordered_map<uint32_t, uint32_t> seen;
  for (uint32_t i = 0; i < d.count; ++i) {
    uint32_t index = 0;
    if (i < in_range)
      for (unsigned k = 0; k < d.index_B; ++k) index |= uint32_t{bytes[size_t{i} * d.index_B + k]} << (8 * k);
    if (b.header.restart_enable && index == restart) {
      elements[i] = kRestartElement;
      continue;
    }
    const uint32_t id = index + d.bias;
    auto [it, added] = seen.try_emplace(id, static_cast<uint32_t>(ids.size()));
    if (added) ids.push_back(id);
    elements[i] = it->second;
  }
  return {};
}

}  // namespace

Status run_draw(VertexEngine& engine, VdmRun& run, const IndexListBlock& b) {
  const std::string ctx = fmt::format("Index List at 0x{:x}", b.at);
  AGX_TRY(const DrawParams d, resolve(run, b, ctx));
  if (uint64_t{d.count} * d.instances > engine.options.draw_element_limit)
    return fail(run.where, b.at, GpuUnit::vdm,
                Error::limit("{}: {} elements x {} instances exceed the limit of {} per draw", ctx, d.count,
                             d.instances, engine.options.draw_element_limit));
  engine.counters.draws++;
  if (d.count == 0 || d.instances == 0) return {};
  AGX_CHECK(prepare_draw_state(engine, run, b.at));
  std::vector<uint32_t> elements, ids;
  AGX_CHECK(fetch(run, b, d, elements, ids));
  const uint64_t words = uint64_t{ids.size()} * d.instances * run.plan.count;
  if (words > engine.options.shaded_word_limit)
    return fail(run.where, b.at, GpuUnit::vdm,
                Error::limit("{}: {} vertices x {} instances x {} output words exceed the limit of {} words per draw",
                             ctx, ids.size(), d.instances, run.plan.count, engine.options.shaded_word_limit));
  std::vector<uint32_t> outputs;
  AGX_CHECK(shade_vertices(engine, run, b.at, ids, d.instances, outputs));
  const size_t per_instance = ids.size() * run.plan.count;
  for (uint32_t i = 0; i < d.instances; ++i) {
    PrimitiveInput in;
    in.topology = b.header.primitive;
    in.elements = elements;
    in.outputs = std::span<const uint32_t>(outputs).subspan(i * per_instance, per_instance);
    in.state = run.state;
    auto counts = run_primitives(in, run.plan, run.scene);
    if (!counts)
      return fail(run.where, b.at, GpuUnit::ppp,
                  std::move(counts).error().context(fmt::format("{}, instance {}", ctx, i)));
    engine.counters.primitives_in += counts->in;
    engine.counters.primitives_out += counts->out;
  }
  return {};
}

}  // namespace agx::gpu::detail
