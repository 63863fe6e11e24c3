// The UAPI's render and compute commands (include/agx/asahi_drm.h): their
// fields, then what they name: the VDM / CDM stream, the background and
// end-of-tile programs (USC word lists), the helper programs and the
// sampler heap. The address tags of bg/eot programs (low 3 bits) and of
// helper programs (bit 0 = present) are as bminor/mesa-mesa
// src/asahi/lib/decode.c reads them.
#include <algorithm>
#include <cstring>

#include "cmdstream/decode_internal.h"
#include "cmdstream/trace_file.h"

namespace agx::cmdstream {

using namespace detail;

namespace {

DecodeNode command_node(std::string title) {
  DecodeNode n;
  n.kind = DecodeNode::Kind::command;
  n.title = std::move(title);
  return n;
}

template <class T>
DecodedStruct uapi_struct(uint64_t value) {
  DecodedStruct s{&desc_of<T>(), 0, std::vector<uint8_t>(T::kSize_B), "from the command"};
  std::memcpy(s.bytes.data(), &value, std::min<size_t>(sizeof value, T::kSize_B));
  return s;
}

void helper(Walker& w, DecodeNode& n, const char* which, const drm_asahi_helper_program& h) {
  n.lines.push_back(fmt::format("{} helper: binary 0x{:x} cfg 0x{:x} data 0x{:x}", which, h.binary, h.cfg, h.data));
  if (h.binary & 1) n.children.push_back(w.shader(w.usc(h.binary & ~1u), fmt::format("{} helper program", which)));
}

void sampler_heap(Walker& w, DecodeNode& n, uint64_t heap, uint32_t count) {
  if (!heap || !count) return;
  if (count > w.config().limits.max_array) {
    n.children.push_back(error_node(heap, fmt::format("sampler heap count {} exceeds the limit", count)));
    return;
  }
  DecodeNode h = packet_node(heap, fmt::format("Sampler heap ({} entries, nonzero shown)", count));
  h.size_B = uint64_t(count) * Sampler::kSize_B;
  std::vector<uint8_t> bytes(h.size_B);
  if (!w.read(heap, bytes, GpuUnit::texture, "sampler heap", h)) {
    n.children.push_back(std::move(h));
    return;
  }
  for (uint32_t i = 0; i < count; i++) {
    auto first = bytes.begin() + i * Sampler::kSize_B;
    if (std::all_of(first, first + Sampler::kSize_B, [](uint8_t b) { return b == 0; })) continue;
    h.structs.push_back({&kSampler, heap + i * Sampler::kSize_B, std::vector<uint8_t>(first, first + Sampler::kSize_B),
                         fmt::format("heap sampler {}", i)});
  }
  n.children.push_back(std::move(h));
}

void program(Walker& w, DecodeNode& n, const char* which, const drm_asahi_bg_eot& p, ImageKind images) {
  n.lines.push_back(fmt::format("{}: usc 0x{:x} rsrc_spec 0x{:x}", which, p.usc, p.rsrc_spec));
  if (p.usc & ~7u)
    n.children.push_back(usc_words(w, w.usc(p.usc & ~7u), fmt::format("{} program (USC words)", which),
                                   SamplerStates::k0, images));
}

}  // namespace

DecodeNode decode_compute_command(GpuMemory& memory, const drm_asahi_cmd_compute& c, const DecodeConfig& config) {
  Walker w(memory, config);
  DecodeNode n = command_node("compute");
  n.lines.push_back(fmt::format("flags: 0x{:x}", c.flags));
  n.lines.push_back(fmt::format("cdm_ctrl_stream_base: 0x{:x}", c.cdm_ctrl_stream_base));
  n.lines.push_back(fmt::format("cdm_ctrl_stream_end: 0x{:x}", c.cdm_ctrl_stream_end));
  n.lines.push_back(fmt::format("sampler_heap: 0x{:x} ({} samplers)", c.sampler_heap, c.sampler_count));
  helper(w, n, "compute", c.helper);
  n.children.push_back(w.walk(c.cdm_ctrl_stream_base, "CDM stream", kCdmHead, cdm_block));
  sampler_heap(w, n, c.sampler_heap, c.sampler_count);
  return n;
}

DecodeNode decode_render_command(GpuMemory& memory, const drm_asahi_cmd_render& r, const DecodeConfig& config) {
  Walker w(memory, config);
  DecodeNode n = command_node("render");
  n.lines.push_back(fmt::format("flags: 0x{:x}", r.flags));
  n.lines.push_back(fmt::format("vdm_ctrl_stream_base: 0x{:x}", r.vdm_ctrl_stream_base));
  n.lines.push_back(fmt::format("size: {}x{} px, {} layers, {} samples of {} B, utile {}x{} px", r.width_px,
                                r.height_px, r.layers, r.samples, r.sample_size_B, r.utile_width_px,
                                r.utile_height_px));
  n.lines.push_back(fmt::format("isp_scissor_base: 0x{:x}", r.isp_scissor_base));
  n.lines.push_back(fmt::format("isp_dbias_base: 0x{:x}", r.isp_dbias_base));
  n.lines.push_back(fmt::format("isp_oclqry_base: 0x{:x}", r.isp_oclqry_base));
  for (auto [name, z] : {std::pair{"depth", &r.depth}, std::pair{"stencil", &r.stencil}})
    n.lines.push_back(fmt::format("{}: base 0x{:x} comp_base 0x{:x} stride {} comp_stride {}", name, z->base,
                                  z->comp_base, z->stride, z->comp_stride));
  n.lines.push_back(fmt::format("ppp_multisamplectl: 0x{:x}", r.ppp_multisamplectl));
  n.lines.push_back(fmt::format("sampler_heap: 0x{:x} ({} samplers)", r.sampler_heap, r.sampler_count));
  n.lines.push_back(fmt::format("isp_merge_upper: x 0x{:08x} y 0x{:08x}", r.isp_merge_upper_x, r.isp_merge_upper_y));
  n.lines.push_back(fmt::format("isp_bgobjdepth: 0x{:x} isp_bgobjvals: 0x{:x}", r.isp_bgobjdepth, r.isp_bgobjvals));
  n.structs.push_back(uapi_struct<ZlsControl>(r.zls_ctrl));
  n.structs.push_back(uapi_struct<CrPppControl>(r.ppp_ctrl));
  n.structs.push_back(uapi_struct<CrIspZlsPixels>(r.isp_zls_pixels));
  helper(w, n, "vertex", r.vertex_helper);
  helper(w, n, "fragment", r.fragment_helper);
  n.children.push_back(w.walk(r.vdm_ctrl_stream_base, "VDM stream", kVdmHead, vdm_block));
  program(w, n, "bg", r.bg, ImageKind::texture);
  program(w, n, "eot", r.eot, ImageKind::pbe);
  program(w, n, "partial_bg", r.partial_bg, ImageKind::texture);
  program(w, n, "partial_eot", r.partial_eot, ImageKind::pbe);
  sampler_heap(w, n, r.sampler_heap, r.sampler_count);
  return n;
}

DecodeNode decode_usc_words(GpuMemory& memory, uint64_t usc_address, const DecodeConfig& config) {
  Walker w(memory, config);
  return usc_words(w, w.usc(usc_address), "USC words", SamplerStates::k0);
}

DecodeNode decode_submit(const TraceSubmit& s, const drm_asahi_params_global& params, const DecodeLimits& limits) {
  DecodeNode root;
  root.kind = DecodeNode::Kind::root;
  root.title = fmt::format("Submit {} (queue {}, vm {}, pid {}, usc_exec_base 0x{:x}, {} in-syncs, {} out-syncs, "
                           "{} mappings)",
                           s.info.seqno, s.info.queue_id, s.info.vm_id, s.info.pid, s.info.usc_exec_base,
                           s.info.in_sync_count, s.info.out_sync_count, s.mappings.size());
  for (const TraceMapping& m : s.mappings)
    root.lines.push_back(fmt::format("mapping 0x{:x}..0x{:x} {}{}{}{}", m.va, m.va + m.size_B,
                                     (m.flags & kmd::trace::kMapRead) ? "r" : "-",
                                     (m.flags & kmd::trace::kMapWrite) ? "w" : "-",
                                     (m.flags & kmd::trace::kMapSinglePage) ? " single-page" : "",
                                     (m.flags & kmd::trace::kMapWritten) ? " written" : ""));
  auto commands = parse_cmdbuf(s.cmdbuf);
  if (!commands) {
    root.children.push_back(error_node(0, commands.error().message()));
    return root;
  }
  DecodeConfig config = config_for(params, s.info.usc_exec_base);
  config.limits = limits;
  TraceMemory memory(s);
  for (const TraceCommand& c : *commands) {
    const bool render = c.type == DRM_ASAHI_CMD_RENDER;
    DecodeNode n = render ? decode_render_command(memory, c.render, config)
                          : decode_compute_command(memory, c.compute, config);
    n.title = fmt::format("Command #{} {} (vdm_barrier {}, cdm_barrier {}, {} attachments{})", c.index,
                          render ? "render" : "compute", c.vdm_barrier, c.cdm_barrier, c.attachments.size(),
                          render ? fmt::format(", {} fragment attachments", c.fragment_attachments.size()) : "");
    n.va = c.index;  // commands are numbered, not addressed
    for (const auto& a : c.attachments) n.lines.push_back(fmt::format("attachment 0x{:x} ({} B)", a.pointer, a.size));
    for (const auto& a : c.fragment_attachments)
      n.lines.push_back(fmt::format("fragment attachment 0x{:x} ({} B)", a.pointer, a.size));
    root.children.push_back(std::move(n));
  }
  return root;
}

namespace {

DecodeNode* find_error_at(DecodeNode& n, GpuVa va) {
  if (n.kind == DecodeNode::Kind::error && n.va == va) return &n;
  for (auto& c : n.children)
    if (auto* f = find_error_at(c, va)) return f;
  return nullptr;
}

DecodeNode* find_holding(DecodeNode& n, GpuVa va) {
  const bool addressed = n.kind == DecodeNode::Kind::packet || n.kind == DecodeNode::Kind::data ||
                         n.kind == DecodeNode::Kind::shader;
  if (addressed && va >= n.va && va - n.va < n.size_B) return &n;
  for (auto& c : n.children)
    if (auto* f = find_holding(c, va)) return f;
  return nullptr;
}

void last_packet(DecodeNode& n, DecodeNode*& last) {
  if (n.kind == DecodeNode::Kind::packet) last = &n;
  for (auto& c : n.children) last_packet(c, last);
}

}  // namespace

const DecodeNode* mark_crash(DecodeNode& root, const TraceFault& fault) {
  DecodeNode* command = nullptr;
  for (auto& c : root.children)
    if (c.kind == DecodeNode::Kind::command && c.va == fault.command_index) command = &c;
  if (!command) return nullptr;
  DecodeNode* at = find_error_at(*command, fault.va);
  if (!at) at = find_holding(*command, fault.va);
  if (!at) {
    last_packet(*command, at);
    if (at) at->lines.push_back("(no decoded packet touches the fault address: the last packet decoded)");
  }
  if (!at) at = command;
  at->crash = true;
  return at;
}

}  // namespace agx::cmdstream
