#include "shadertest/census.h"
#include "shadertest/command_words.h"

#include <set>

#include "shadertest/graphics_program.h"
#include "shadertest/overloaded.h"

namespace agx::shadertest {

std::string graphics_kind(const GraphicsCommand& c) {
  return std::visit(
      Overloaded{
          [](const CmdDrawRect& d) -> std::string {
            std::string k = d.instanced ? "draw instanced rect" : "draw rect";
            if (d.tex) k += " tex";
            if (d.ortho) k += " ortho";
            if (d.patch) k += " patch";
            return k;
          },
          [](const CmdDrawArrays& d) -> std::string {
            static constexpr const char* kNames[] = {"draw arrays", "draw arrays instanced",
                                                     "draw arrays instanced base", "draw elements",
                                                     "multidraw arrays"};
            return kNames[int(d.kind)];
          },
          [](const CmdClearDepth&) -> std::string { return "clear depth"; },
          [](const CmdProbeRegion& p) -> std::string {
            return fmt::format("{}probe {}{}{}", p.relative ? "relative " : "", p.rect ? "rect " : "",
                               p.alpha ? "rgba" : "rgb", p.integer ? " int" : "");
          },
          [](const CmdProbeDepth&) -> std::string { return "probe depth"; },
          [](const CmdProbeWarnAll&) -> std::string { return "probe warn all rgba"; },
          [](const CmdGlState& s) -> std::string {
            static constexpr const char* kNames[] = {
                "enable", "disable", "depthfunc", "polygon mode", "provoking vertex", "hint", "shade model",
                "active shader program", "display list", "program binary save restore", "barrier",
                "viewport swizzle", "viewport indexed", "patch parameter", "blit", "fb tex slice", "fb tex layered", "fb ms"};
            return kNames[int(s.kind)];
          },
          [](const CmdFixedFunction& f) -> std::string {
            static constexpr const char* kNames[] = {"ortho", "frustum", "clip plane", "color", "texcoord",
                                                     "light", "parameter"};
            return kNames[int(f.kind)];
          },
          [](const CmdProgramQuery& q) -> std::string {
            static constexpr const char* kNames[] = {"active uniform", "verify program_interface_query",
                                                     "verify query_object", "subuniform", "vertex attrib"};
            return kNames[int(q.kind)];
          },
          [](const CmdXfb& x) -> std::string {
            static constexpr const char* kNames[] = {"xfb buffer object", "xfb draw arrays", "probe xfb buffer"};
            return kNames[int(x.kind)];
          },
          [](const CmdTexturePattern& t) -> std::string {
            return t.quads ? "texture quads" : "texture checkerboard";
          },
      },
      c);
}

std::string command_kind(const CommandBody& body) {
  return std::visit(
      Overloaded{
          [](const CmdUniform&) -> std::string { return "uniform"; },
          [](const CmdUniformHandle&) -> std::string { return "uniform handle"; },
          [](const CmdSsbo&) -> std::string { return "ssbo"; },
          [](const CmdSsboSubdata&) -> std::string { return "ssbo subdata"; },
          [](const CmdAtomicCounters&) -> std::string { return "atomic counters"; },
          [](const CmdAtomicCounterBuffer&) -> std::string { return "atomic counter buffer"; },
          [](const CmdAtomicCounterSet&) -> std::string { return "atomic counter"; },
          [](const CmdCompute&) -> std::string { return "compute"; },
          [](const CmdComputeGroupSize&) -> std::string { return "compute group size"; },
          [](const CmdProbeSsbo&) -> std::string { return "probe ssbo"; },
          [](const CmdProbeAtomicCounter&) -> std::string { return "probe atomic counter"; },
          [](const CmdTextureRgbw&) -> std::string { return "texture rgbw"; },
          [](const CmdTextureInteger&) -> std::string { return "texture integer"; },
          [](const CmdTextureMiptree&) -> std::string { return "texture miptree"; },
          [](const CmdTextureShaped& t) -> std::string {
            static constexpr const char* kNames[] = {"texture rgbw", "texture junk", "texture shadow",
                                                     "texture storage"};
            return fmt::format("{} {}", kNames[int(t.kind)], t.target);
          },
          [](const CmdTexParameter&) -> std::string { return "texparameter"; },
          [](const CmdImageTexture& t) -> std::string { return t.resident ? "resident image texture" : "image texture"; },
          [](const CmdFbTex2d& f) -> std::string { return f.winsys ? "fb winsys" : "fb tex 2d"; },
          [](const CmdClearColor&) -> std::string { return "clear color"; },
          [](const CmdClear&) -> std::string { return "clear"; },
          [](const CmdProbeRgba& p) -> std::string { return p.alpha ? "probe rgba" : "probe rgb"; },
          [](const CmdProbeAll& p) -> std::string { return p.alpha ? "probe all rgba" : "probe all rgb"; },
          [](const CmdTolerance&) -> std::string { return "tolerance"; },
          [](const CmdMemoryBarrier&) -> std::string { return "memory barrier"; },
          [](const CmdLinkError&) -> std::string { return "link error"; },
          [](const CmdLinkSuccess&) -> std::string { return "link success"; },
          [](const CmdVerifyProgramQuery&) -> std::string { return "verify program_query"; },
          [](const CmdBlockIndex& b) -> std::string { return b.what; },
          [](const CmdGraphics& g) -> std::string { return graphics_kind(g.command); },
      },
      body);
}

namespace {

using words::starts_with;

}  // namespace

FileClass classify_file(std::string_view text) {
  bool compute = false, geo_tess = false, vs_fs = false;
  for (const auto& h : section_headers(text)) {
    compute = compute || starts_with(h, "compute shader");
    geo_tess = geo_tess || starts_with(h, "geometry") || starts_with(h, "tessellation");
    vs_fs = vs_fs || starts_with(h, "vertex") || starts_with(h, "fragment");
  }
  if (compute) return FileClass::compute;
  if (geo_tess) return FileClass::geometry_tessellation;
  return vs_fs ? FileClass::vertex_fragment : FileClass::other;
}

void Census::add(const std::string& path, std::string_view text, bool compile) {
  switch (classify_file(text)) {
    case FileClass::geometry_tessellation: ++geometry_tessellation_files; return;
    case FileClass::compute:
    case FileClass::other: ++other_files; return;
    case FileClass::vertex_fragment: break;
  }
  ++vertex_fragment_files;
  std::set<std::string> seen;
  for (auto& h : section_headers(text))
    if (seen.insert(h).second) ++sections[h];
  auto parsed_test = parse_shader_test(text);
  if (!parsed_test.ok()) {
    failures.push_back(fmt::format("{}: {}", path, parsed_test.error().message()));
    return;
  }
  ++parsed;
  for (const auto& c : parsed_test->commands) ++commands[command_kind(c.body)];
  if (!compile) return;
  auto built = build_graphics_program(*parsed_test);
  if (std::holds_alternative<GraphicsProgram>(built)) {
    ++compiled;
    return;
  }
  const auto& e = std::get<ProgramError>(built);
  switch (e.kind) {
    case ProgramError::Kind::several_units: ++compile_failures["several shader objects of one stage"]; break;
    case ProgramError::Kind::lowering: ++compile_failures["lowering: " + e.message]; break;
    case ProgramError::Kind::glslang: ++compile_failures[glslang_error_kind(e.message)]; break;
    case ProgramError::Kind::link: ++compiled; break;  // each stage became SPIR-V; check_linking refused the pair
  }
}

}  // namespace agx::shadertest
