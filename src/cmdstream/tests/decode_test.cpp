// The stream walker on streams built with the typed pack API: every CDM and
// VDM block, USC words with their descriptors and shaders, PPP records,
// links, calls and returns, and every error (unmapped pointers, streams
// running off memory, link cycles, call depth, length, bad record sizes).
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "cmdstream/decode.h"
#include "cmdstream/decode_report.h"
#include "cmdstream/trace_file.h"
#include "cmdstream/typed.h"
#include "isa/isa.h"

namespace agx::cmdstream {
namespace AGX_UNITY_ID {

constexpr uint64_t kBase = 0x10000;       // one 64 KiB mapping
constexpr uint64_t kUscBase = 0x10000;    // usc_exec_base: USC addresses are offsets from kBase
constexpr uint64_t kUnmapped = 0x9990000;

// Memory built by placing packed structs at addresses.
struct Mem {
  TraceSubmit submit;
  Mem() {
    TraceMapping m;
    m.va = kBase;
    m.size_B = 0x10000;
    m.flags = kmd::trace::kMapRead;
    m.data.assign(m.size_B, 0);
    submit.mappings.push_back(std::move(m));
  }
  void put(uint64_t va, std::span<const uint8_t> bytes) {
    ASSERT_GE(va, kBase);
    ASSERT_LE(va - kBase + bytes.size(), submit.mappings[0].data.size());
    std::memcpy(submit.mappings[0].data.data() + (va - kBase), bytes.data(), bytes.size());
  }
  // Packs `v` at va and returns the address after it.
  template <class T>
  uint64_t at(uint64_t va, const T& v) {
    auto b = pack(v);
    EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message());
    if (b.ok()) put(va, *b);
    return va + T::kSize_B;
  }
};

DecodeConfig config(bool g14x = false) {
  DecodeConfig c;
  c.usc_exec_base = kUscBase;
  c.g14x = g14x;
  return c;
}

// Titles of a node's children.
std::vector<std::string> titles(const DecodeNode& n) {
  std::vector<std::string> t;
  for (const auto& c : n.children) t.push_back(c.title);
  return t;
}

const DecodeNode* find(const DecodeNode& n, const std::function<bool(const DecodeNode&)>& pred) {
  if (pred(n)) return &n;
  for (const auto& c : n.children)
    if (auto* f = find(c, pred)) return f;
  return nullptr;
}

const DecodeNode* find_error(const DecodeNode& n, std::string_view text) {
  return find(n, [&](const DecodeNode& x) {
    return x.kind == DecodeNode::Kind::error && !x.lines.empty() && x.lines[0].find(text) != std::string::npos;
  });
}

// A USC word list at usc offset `off` (GPU VA kUscBase + off): uniforms,
// one texture, one extended sampler, shared, registers, a shader, the end.
uint64_t usc_list(Mem& m, uint64_t off, bool preshader = false) {
  uint64_t va = kUscBase + off;
  const uint64_t uniforms = kBase + 0x8000, textures = kBase + 0x8100, samplers = kBase + 0x8200,
                 code = 0x8400;  // usc offset
  std::vector<uint8_t> u(8);
  for (int i = 0; i < 8; i++) u[i] = uint8_t(0xa0 + i);
  m.put(uniforms, u);
  UscUniform uw;
  uw.start_halfs = 4;
  uw.size_halfs = 4;
  uw.buffer = uniforms;
  va = m.at(va, uw);
  Texture tex;
  tex.width = 16;
  tex.height = 8;
  m.at(textures, tex);
  UscTexture tw;
  tw.start = 2;
  tw.count = 1;
  tw.buffer = textures;
  va = m.at(va, tw);
  Sampler s;
  m.at(samplers, s);
  Border border;
  border.channel_0 = 0x3f800000;
  m.at(samplers + Sampler::kSize_B, border);
  UscSampler sw;
  sw.count = 1;
  sw.buffer = samplers;
  va = m.at(va, sw);
  va = m.at(va, UscShared{});
  va = m.at(va, UscRegisters{});
  auto prog = isa::assemble_program("fadd32 r2, r0, r1 ; stop");
  EXPECT_TRUE(prog.ok());
  m.put(kUscBase + code, *prog);
  UscShader sh;
  sh.code = code;
  va = m.at(va, sh);
  if (preshader) {
    UscPreshader p;
    p.code = code;
    return m.at(va, p);
  }
  return m.at(va, UscNoPreshader{});
}

CdmLaunchWord0 launch0(CdmMode mode) {
  CdmLaunchWord0 w;
  w.mode = mode;
  w.sampler_state_register_count = SamplerStates::k8Extended;
  return w;
}

// A Barrier with Returns set ends a called stream as Stream Return does
// (the CDM executor reads it the same way).
TEST(Decode, CdmBarrierWithReturnsPopsACall) {
  Mem m;
  CdmStreamLink call;
  call.with_return = true;
  call.target_lo = kBase + 0x2000;
  uint64_t va = m.at(kBase, call);
  va = m.at(va, CdmBarrier{});
  m.at(va, CdmStreamTerminate{});
  CdmBarrier ret;
  ret.returns = true;
  m.at(m.at(kBase + 0x2000, CdmBarrier{}), ret);
  TraceMemory mem(m.submit);
  DecodeNode n = decode_cdm_stream(mem, kBase, config());
  EXPECT_EQ(titles(n), (std::vector<std::string>{"CDM Stream Link (call)", "CDM Barrier", "CDM Barrier (returns)",
                                                 "CDM Barrier", "CDM Stream Terminate"}))
      << print_decode(n);
  EXPECT_EQ(find_error(n, ""), nullptr) << print_decode(n);
  // With no call to return to, the walker's one wording of the error.
  Mem lone;
  lone.at(kBase, ret);
  TraceMemory lone_mem(lone.submit);
  DecodeNode e = decode_cdm_stream(lone_mem, kBase, config());
  EXPECT_NE(print_decode(e).find("with no call to return to"), std::string::npos) << print_decode(e);
}

TEST(Decode, CdmLaunchesBarrierCallReturnAndTerminate) {
  Mem m;
  usc_list(m, 0x1000);
  CdmLaunchWord1 w1;
  w1.pipeline = 0x1000;
  m.put(kBase + 0x9000, std::vector<uint8_t>(24, 0x77));  // an indirect buffer
  uint64_t va = kBase;
  va = m.at(va, launch0(CdmMode::kDirect));
  va = m.at(va, w1);
  CdmGlobalSize g;
  g.x = 64;
  va = m.at(va, g);
  va = m.at(va, CdmLocalSize{});
  va = m.at(va, CdmBarrier{});
  CdmStreamLink call;
  call.with_return = true;
  call.target_lo = kBase + 0x2000;
  va = m.at(va, call);
  va = m.at(va, launch0(CdmMode::kIndirectLocal));
  va = m.at(va, w1);
  CdmIndirect ind;
  ind.address_lo = kBase + 0x9000;
  va = m.at(va, ind);
  m.at(va, CdmStreamTerminate{});
  // The called stream: an indirect-global launch and a return.
  uint64_t sub = kBase + 0x2000;
  sub = m.at(sub, launch0(CdmMode::kIndirectGlobal));
  sub = m.at(sub, w1);
  sub = m.at(sub, ind);
  sub = m.at(sub, CdmLocalSize{});
  m.at(sub, CdmStreamReturn{});
  TraceMemory mem(m.submit);
  DecodeNode n = decode_cdm_stream(mem, kBase, config());
  EXPECT_EQ(titles(n), (std::vector<std::string>{"CDM Launch", "CDM Barrier", "CDM Stream Link (call)", "CDM Launch",
                                                 "CDM Stream Return", "CDM Launch", "CDM Stream Terminate"}))
      << print_decode(n);
  EXPECT_EQ(find_error(n, ""), nullptr) << print_decode(n);
  // Lengths: direct 8+12+12, indirect local 8+8; the called stream at its target.
  EXPECT_EQ(n.children[0].size_B, 32u);
  EXPECT_EQ(n.children[3].va, kBase + 0x2000);
  EXPECT_EQ(n.children[3].size_B, 28u);
  EXPECT_EQ(n.children[5].va, kBase + 32 + 4 + 8);
  EXPECT_EQ(n.children[5].size_B, 16u);
  // The pipeline's USC words, each unpacked, and what they point to.
  const DecodeNode& usc = n.children[0].children[0];
  EXPECT_EQ(titles(usc), (std::vector<std::string>{"USC Uniform", "USC Texture", "USC Sampler", "USC Shared",
                                                   "USC Registers", "USC Shader", "USC No Preshader"}));
  const std::string text = print_decode(n);
  EXPECT_NE(text.find("a0 a1 a2 a3 a4 a5 a6 a7"), std::string::npos) << text;  // uniforms hexdumped
  EXPECT_NE(text.find("Texture 2"), std::string::npos);
  EXPECT_NE(text.find("Width: 16"), std::string::npos);
  EXPECT_NE(text.find("Border"), std::string::npos);  // extended samplers carry one
  EXPECT_NE(text.find("fadd32"), std::string::npos);  // disassembled inline
  EXPECT_NE(text.find("stop"), std::string::npos);
  EXPECT_NE(text.find("indirect global and local size"), std::string::npos);
  // JSON carries the same tree.
  auto j = decode_to_json(n);
  EXPECT_EQ(j["children"].size(), 7u);
  EXPECT_EQ(j["children"][0]["structs"][0]["fields"]["Mode"], "Direct");
}

TEST(Decode, G14xWordOnlyOnG14x) {
  Mem m;
  usc_list(m, 0x1000);
  CdmLaunchWord1 w1;
  w1.pipeline = 0x1000;
  uint64_t va = m.at(kBase, launch0(CdmMode::kIndirectLocal));
  va = m.at(va, w1);
  uint64_t g13_end = m.at(va, CdmIndirect{});
  m.at(g13_end, CdmStreamTerminate{});
  TraceMemory mem(m.submit);
  DecodeNode g13 = decode_cdm_stream(mem, kBase, config(false));
  ASSERT_EQ(g13.children.size(), 2u) << print_decode(g13);
  EXPECT_EQ(g13.children[0].size_B, 16u);
  for (const auto& s : g13.children[0].structs) EXPECT_NE(s.desc, &kCdmUnkG14x);
  // On G14X the same bytes are read with the extra word after word 1.
  Mem m2;
  usc_list(m2, 0x1000);
  va = m2.at(kBase, launch0(CdmMode::kIndirectLocal));
  va = m2.at(va, w1);
  va = m2.at(va, CdmUnkG14x{});
  m2.at(m2.at(va, CdmIndirect{}), CdmStreamTerminate{});
  TraceMemory mem2(m2.submit);
  DecodeNode g14 = decode_cdm_stream(mem2, kBase, config(true));
  ASSERT_EQ(g14.children.size(), 2u) << print_decode(g14);
  EXPECT_EQ(g14.children[0].size_B, 16u + CdmUnkG14x::kSize_B);
  EXPECT_EQ(g14.children[0].structs[2].desc, &kCdmUnkG14x);
}

TEST(Decode, UnmappedPointerIsAnErrorAndTheStreamGoesOn) {
  Mem m;
  CdmLaunchWord1 w1;
  w1.pipeline = kUnmapped - kUscBase;  // the pipeline is not mapped
  uint64_t va = m.at(kBase, launch0(CdmMode::kDirect));
  va = m.at(m.at(m.at(va, w1), CdmGlobalSize{}), CdmLocalSize{});
  va = m.at(va, CdmBarrier{});
  m.at(va, CdmStreamTerminate{});
  TraceMemory mem(m.submit);
  DecodeNode n = decode_cdm_stream(mem, kBase, config());
  EXPECT_EQ(titles(n).back(), "CDM Stream Terminate") << print_decode(n);
  const DecodeNode* e = find_error(n, "unmapped at 0x9990000");
  ASSERT_NE(e, nullptr) << print_decode(n);
  EXPECT_EQ(e->va, kUnmapped);
}

TEST(Decode, StreamRunningOffMemoryEnds) {
  Mem m;
  // Barriers up to the last word of the mapping, then nothing.
  for (uint64_t va = kBase + 0x10000 - 8; va < kBase + 0x10000; va += 4) m.at(va, CdmBarrier{});
  TraceMemory mem(m.submit);
  DecodeNode n = decode_cdm_stream(mem, kBase + 0x10000 - 8, config());
  ASSERT_EQ(n.children.size(), 3u);
  EXPECT_NE(n.children[2].title.find("runs off mapped memory"), std::string::npos);
  EXPECT_NE(find_error(n, "unmapped at 0x20000"), nullptr) << print_decode(n);
}

TEST(Decode, LinkCycleCallDepthReturnWithoutCallAndLength) {
  {
    Mem m;
    CdmStreamLink self;
    self.target_lo = kBase + 4;
    m.at(kBase, CdmBarrier{});
    m.at(kBase + 4, self);  // links to itself: the hardware would spin
    TraceMemory mem(m.submit);
    DecodeNode n = decode_cdm_stream(mem, kBase, config());
    EXPECT_NE(find_error(n, "link cycle: Stream Link at 0x10004 to 0x10004"), nullptr) << print_decode(n);
  }
  {
    Mem m;
    CdmStreamLink call;
    call.with_return = true;
    call.target_lo = kBase;
    m.at(kBase, call);  // calls itself: the return stack grows every time
    TraceMemory mem(m.submit);
    DecodeNode n = decode_cdm_stream(mem, kBase, config());
    EXPECT_NE(find_error(n, "call depth 9 exceeds the limit"), nullptr) << print_decode(n);
    EXPECT_EQ(n.children.size(), 9u + 1);
  }
  {
    Mem m;
    m.at(kBase, CdmStreamReturn{});
    TraceMemory mem(m.submit);
    DecodeNode n = decode_cdm_stream(mem, kBase, config());
    EXPECT_NE(find_error(n, "Stream Return at 0x10000 with no call"), nullptr);
  }
  {
    Mem m;
    for (uint64_t i = 0; i < 20; i++) m.at(kBase + 4 * i, CdmBarrier{});
    TraceMemory mem(m.submit);
    DecodeConfig c = config();
    c.limits.max_packets = 5;
    DecodeNode n = decode_cdm_stream(mem, kBase, c);
    EXPECT_NE(find_error(n, "stream longer than 5 packets"), nullptr);
    EXPECT_EQ(n.children.size(), 6u);
  }
  {
    Mem m;
    std::vector<uint8_t> junk{0, 0, 0, 0xe0};  // block type 7: not a CDM block
    m.put(kBase, junk);
    TraceMemory mem(m.submit);
    DecodeNode n = decode_cdm_stream(mem, kBase, config());
    EXPECT_NE(find_error(n, "unknown CDM block type 7"), nullptr) << print_decode(n);
  }
}

// A PPP record: header, fragment control, one viewport, fragment shader.
uint64_t ppp_record(Mem& m, uint64_t va) {
  PppHeader h;
  h.fragment_control = true;
  h.viewport = true;
  h.viewport_count = 1;
  h.fragment_shader = true;
  uint64_t p = m.at(va, h);
  p = m.at(p, FragmentControl{});
  p = m.at(p, ViewportControl{});
  p = m.at(p, Viewport{});
  FragmentShaderWord0 f0;
  f0.cf_binding_count = 2;
  p = m.at(p, f0);
  FragmentShaderWord1 f1;
  f1.pipeline = 0x1000;
  p = m.at(p, f1);
  FragmentShaderWord2 f2;
  f2.cf_bindings = 0x3000;
  p = m.at(p, f2);
  p = m.at(p, FragmentShaderWord3{});
  CfBindingHeader cfh;
  uint64_t c = m.at(kUscBase + 0x3000, cfh);
  CfBinding b;
  b.components = 4;
  m.at(m.at(c, b), b);
  return p - va;
}

TEST(Decode, VdmBlocksPppRecordsAndCalls) {
  Mem m;
  usc_list(m, 0x1000);
  const uint64_t record = kBase + 0x4000;
  const uint64_t record_B = ppp_record(m, record);
  uint64_t va = kBase;
  PppState ppp;
  ppp.pointer_lo = record;
  ppp.size_words = record_B / 4;
  va = m.at(va, ppp);
  VdmState st;
  st.vertex_shader_word_0_present = true;
  st.vertex_shader_word_1_present = true;
  st.vertex_outputs_present = true;
  uint64_t st_va = va;
  va = m.at(va, st);
  va = m.at(va, VdmStateVertexShaderWord0{});
  VdmStateVertexShaderWord1 vs1;
  vs1.pipeline = 0x1000;
  va = m.at(va, vs1);
  va = m.at(va, VdmStateVertexOutputs{});
  va = st_va + 16;  // 4 words: already 8-aligned
  IndexList il;
  il.index_count_present = true;
  il.instance_count_present = true;
  va = m.at(va, il);
  IndexListCount cnt;
  cnt.count = 3;
  va = m.at(va, cnt);
  va = m.at(va, IndexListInstances{});
  VdmStreamLink call;
  call.with_return = true;
  call.target_lo = kBase + 0x2000;
  va = m.at(va, call);
  // cmdbuf.xml gives Patch count present and Instance count present the
  // same bit: setting it brings both words.
  VdmTessellate t;
  t.patch_count_present = true;
  va = m.at(va, t);
  va = m.at(va, VdmTessellatePatchCount{});
  va = m.at(va, VdmTessellateInstanceCount{});
  m.at(va, VdmStreamTerminate{});
  VdmBarrier ret;
  ret.returns = true;
  m.at(m.at(kBase + 0x2000, VdmBarrier{}), ret);
  TraceMemory mem(m.submit);
  DecodeNode n = decode_vdm_stream(mem, kBase, config());
  EXPECT_EQ(titles(n),
            (std::vector<std::string>{"PPP State Update", "VDM State Update", "Index List", "VDM Stream Link (call)",
                                      "VDM Barrier", "VDM Barrier (returns)", "VDM Tessellate",
                                      "VDM Stream Terminate"}))
      << print_decode(n);
  EXPECT_EQ(find_error(n, ""), nullptr) << print_decode(n);
  EXPECT_EQ(n.children[1].size_B, 16u);
  EXPECT_EQ(n.children[2].size_B, 12u);
  EXPECT_EQ(n.children[6].size_B, 12u);
  const std::string text = print_decode(n);
  EXPECT_NE(text.find("Fragment pipeline (USC words)"), std::string::npos);
  EXPECT_NE(text.find("Vertex pipeline (USC words)"), std::string::npos);
  EXPECT_NE(text.find("CF binding"), std::string::npos);
  EXPECT_NE(text.find("Components: 4"), std::string::npos) << text;
}

TEST(Decode, PppRecordSizeMustMatchItsBlocks) {
  Mem m;
  usc_list(m, 0x1000);
  const uint64_t record = kBase + 0x4000;
  const uint64_t record_B = ppp_record(m, record);
  for (int64_t delta : {-4, 4}) {
    PppState ppp;
    ppp.pointer_lo = record;
    ppp.size_words = (record_B + delta) / 4;
    m.at(m.at(kBase, ppp), VdmStreamTerminate{});
    TraceMemory mem(m.submit);
    DecodeNode n = decode_vdm_stream(mem, kBase, config());
    const char* want = delta < 0 ? "runs past the record" : "the header's blocks take";
    EXPECT_NE(find_error(n, want), nullptr) << print_decode(n);
    EXPECT_EQ(titles(n).back(), "VDM Stream Terminate");
  }
}

TEST(Decode, UscListEndsWithPreshaderAndUnknownTagStops) {
  Mem m;
  usc_list(m, 0x1000, /*preshader=*/true);
  TraceMemory mem(m.submit);
  DecodeNode n = decode_usc_words(mem, 0x1000, config());
  EXPECT_EQ(titles(n).back(), "USC Preshader");
  EXPECT_EQ(n.children.back().children.at(0).kind, DecodeNode::Kind::shader);
  m.put(kUscBase + 0x5000, std::vector<uint8_t>{0x42, 0, 0, 0});
  TraceMemory mem2(m.submit);
  DecodeNode bad = decode_usc_words(mem2, 0x5000, config());
  EXPECT_NE(find_error(bad, "unknown USC control word 0x42"), nullptr) << print_decode(bad);
}

TEST(Decode, SubmitDecodeAndCrashLocation) {
  Mem m;
  CdmLaunchWord1 w1;
  w1.pipeline = kUnmapped - kUscBase;
  uint64_t va = m.at(kBase, launch0(CdmMode::kDirect));
  m.at(m.at(m.at(m.at(va, w1), CdmGlobalSize{}), CdmLocalSize{}), CdmStreamTerminate{});
  drm_asahi_cmd_header h{DRM_ASAHI_CMD_COMPUTE, sizeof(drm_asahi_cmd_compute), DRM_ASAHI_BARRIER_NONE, 0};
  drm_asahi_cmd_compute c{};
  c.cdm_ctrl_stream_base = kBase;
  m.submit.cmdbuf.resize(sizeof h + sizeof c);
  std::memcpy(m.submit.cmdbuf.data(), &h, sizeof h);
  std::memcpy(m.submit.cmdbuf.data() + sizeof h, &c, sizeof c);
  m.submit.info.usc_exec_base = kUscBase;
  drm_asahi_params_global params{};
  params.gpu_generation = 13;
  DecodeNode root = decode_submit(m.submit, params);
  ASSERT_EQ(root.children.size(), 1u);
  EXPECT_NE(root.children[0].title.find("Command #0 compute"), std::string::npos);
  TraceFault f;
  f.va = kUnmapped;
  f.unit = GpuUnit::usc;
  const DecodeNode* at = mark_crash(root, f);
  ASSERT_NE(at, nullptr);
  EXPECT_EQ(at->kind, DecodeNode::Kind::error);
  EXPECT_EQ(at->va, kUnmapped);
  EXPECT_NE(print_decode(root).find("==> ESTIMATED CRASH LOCATION <=="), std::string::npos);
  // A fault inside a packet marks that packet; one nowhere marks the last.
  DecodeNode again = decode_submit(m.submit, params);
  f.va = kBase + 10;
  EXPECT_EQ(mark_crash(again, f)->title, "CDM Launch");
  DecodeNode third = decode_submit(m.submit, params);
  f.va = 0x123;
  EXPECT_EQ(mark_crash(third, f)->title, "CDM Stream Terminate");
  f.command_index = 5;
  EXPECT_EQ(mark_crash(third, f), nullptr);
  // An unreadable command buffer is an error node.
  m.submit.cmdbuf.resize(3);
  DecodeNode broken = decode_submit(m.submit, params);
  EXPECT_NE(find_error(broken, "truncated header"), nullptr);
}

}  // namespace
}  // namespace agx::cmdstream
