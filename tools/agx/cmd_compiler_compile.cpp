// `agx compile`: a compute, vertex or fragment shader (GLSL .comp / .vert /
// .frag or SPIR-V .spv) to AGX machine code (docs/compiler.md). A fragment
// shader is linked with the default epilog (one RGBA8 target, no blending)
// unless --no-epilog.
//   agx compile SHADER [-o OUT.bin] [--disasm] [--stats] [--json] [--entry NAME]
//                      [--stage comp|vert|frag] [--no-epilog]
//                      [--target vulkan|opengl] [--ir] [--no-opt] [--no-preamble]
//                      [--no-pressure-schedule] [--spec ID=VALUE]...
#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "command.h"
#include "compiler/compiler.h"

namespace AGX_UNITY_ID {

struct Options {
  std::string input, out, entry = "main", target = "vulkan";
  std::string stage;     // comp, vert, frag; empty: from the extension (.vert, .frag), else compute
  bool no_epilog = false;
  std::vector<std::string> specs;  // ID=VALUE
  bool disasm = false, stats = false, json = false, ir = false, no_opt = false, no_schedule = false, no_preamble = false;
};

nlohmann::json abi_json(const agx::compiler::Abi& abi) {
  nlohmann::json res = nlohmann::json::array();
  for (const auto& r : abi.resources) {
    const char* kind = r.kind == agx::compiler::Resource::Kind::storage_buffer ? "storage_buffer"
                     : r.kind == agx::compiler::Resource::Kind::uniform_buffer ? "uniform_buffer" : "atomic_counter";
    res.push_back({{"kind", kind}, {"set", r.set}, {"binding", r.binding}, {"uniform", r.uniform}, {"name", r.name}});
    if (r.size_uniform != agx::compiler::Resource::kNoUniform) res.back()["size_uniform"] = r.size_uniform;
    if (r.array_size) {  // a descriptor array's element
      res.back()["array_element"] = r.array_element;
      res.back()["array_size"] = r.array_size;
    }
  }
  nlohmann::json loose = nlohmann::json::array();
  for (const auto& u : abi.loose_uniforms)
    loose.push_back({{"name", u.name}, {"location", u.location}, {"uniform", u.uniform}, {"size_B", u.size_B}});
  nlohmann::json images = nlohmann::json::array();
  for (const auto& i : abi.images) {
    nlohmann::json j = {{"kind", i.kind == agx::compiler::ImageBinding::Kind::storage_image ? "storage_image" : "sampled_image"},
                        {"binding", i.binding},
                        {"name", i.name},
                        {"dim", agx::compiler::image_dim_name(i.dim)},
                        {"format", i.format},
                        {"texture_state", i.texture_state}};
    if (i.pbe_state != UINT32_MAX) j["pbe_state"] = i.pbe_state;
    if (i.sampler_state != UINT32_MAX) j["sampler_state"] = i.sampler_state;
    if (i.array_size) {  // an element of an array of images
      j["array_element"] = i.array_element;
      j["array_size"] = i.array_size;
    }
    images.push_back(std::move(j));
  }
  nlohmann::json out = {{"resources", res},
          {"loose_uniforms", loose},
          {"images", images},
          {"texture_state_count", abi.texture_state_count},
          {"sampler_state_count", abi.sampler_state_count},
          {"push_constants_uniform", abi.push_constants_uniform},
          {"push_constants_size_B", abi.push_constants_size_B},
          {"workgroup_count_uniform", abi.workgroup_count_uniform},
          {"workgroup_size", abi.workgroup_size},
          {"threadgroup_memory_B", abi.threadgroup_memory_B},
          {"uniform_count", abi.uniform_count}};
  if (abi.txf_sampler_state != UINT32_MAX) out["txf_sampler_state"] = abi.txf_sampler_state;
  if (!abi.samplers.empty()) {  // separate samplers
    nlohmann::json samplers = nlohmann::json::array();
    for (const auto& sb : abi.samplers)
      samplers.push_back({{"set", sb.set}, {"binding", sb.binding}, {"name", sb.name}, {"sampler_state", sb.sampler_state}});
    out["samplers"] = samplers;
  }
  return out;
}

// A vertex shader's VertexAbi (compiler/vertex.h).
nlohmann::json vertex_json(const agx::compiler::VertexAbi& v) {
  nlohmann::json attrs = nlohmann::json::array();
  for (const auto& a : v.attributes)
    attrs.push_back({{"location", a.location}, {"components", a.components}, {"type", agx::compiler::base_type_name(a.type)}});
  nlohmann::json outs = nlohmann::json::array();
  for (const auto& r : v.layout.outputs) {
    nlohmann::json j = {{"name", r.name}, {"index", r.index}, {"words", r.words}};
    if (r.varying >= 0) {
      j["location"] = v.output_locations[static_cast<size_t>(r.varying)];
      j["interp"] = agx::varyings::to_string(r.interp);
    }
    outs.push_back(std::move(j));
  }
  return {{"attributes", attrs}, {"attribute_slots", v.attribute_slots}, {"address_uniform", v.address_uniform},
          {"clamp_uniform", v.clamp_uniform}, {"base_vertex_uniform", v.base_vertex_uniform},
          {"base_instance_uniform", v.base_instance_uniform}, {"draw_id_uniform", v.draw_id_uniform},
          {"first_shader_uniform", v.first_shader_uniform}, {"outputs", outs},
          {"output_count", v.layout.output_count}, {"output_select", v.layout.output_select},
          {"varying_counts_32", v.layout.varying_counts_32}, {"varying_counts_16", v.layout.varying_counts_16},
          {"vdm_vertex_outputs", v.layout.vdm_vertex_outputs}};
}

// The stage: --stage, else the file name's extension (.vert, .frag), else compute.
agx::compiler::Stage stage_of(const Options& o) {
  using agx::compiler::Stage;
  auto ends = [&](std::string_view ext) { return o.input.size() > ext.size() && o.input.ends_with(ext); };
  if (o.stage.empty()) return ends(".vert") ? Stage::vertex : ends(".frag") ? Stage::fragment : Stage::compute;
  if (o.stage == "comp" || o.stage == "compute") return Stage::compute;
  if (o.stage == "vert" || o.stage == "vertex") return Stage::vertex;
  if (o.stage == "frag" || o.stage == "fragment") return Stage::fragment;
  agx::cli::fail(fmt::format("--stage '{}': expected comp, vert or frag", o.stage));
}

nlohmann::json fragment_json(const agx::compiler::FragmentAbi& f) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto& i : f.inputs)
    inputs.push_back({{"location", i.location}, {"component", i.component}, {"components", i.components},
                      {"interpolation", agx::compiler::interpolation_name(i.interpolation)},
                      {"point", agx::compiler::interpolation_point_name(i.point)}, {"cf", i.cf}});
  auto cf = [](uint32_t c) { return c == agx::compiler::FragmentAbi::kNoCf ? nlohmann::json() : nlohmann::json(c); };
  return {{"inputs", inputs}, {"w_cf", f.w_cf}, {"z_cf", cf(f.z_cf)}, {"point_coord_cf", cf(f.point_coord_cf)},
          {"primitive_id_cf", cf(f.primitive_id_cf)}, {"cf_count", f.cf_count}, {"colour_outputs", f.colour_outputs},
          {"dual_source", f.dual_source}, {"writes_depth", f.writes_depth}, {"writes_stencil", f.writes_stencil},
          {"discards", f.discards}, {"early_fragment_tests", f.early_fragment_tests},
          {"origin_lower_left", f.origin_lower_left}, {"pixel_center_integer", f.pixel_center_integer}};
}

// A fragment shader linked with the default epilog.
agx::Result<agx::compiler::Shader> with_epilog(const agx::compiler::Shader& main) {
  AGX_TRY(auto epilog, agx::compiler::compile_fragment_epilog(agx::compiler::FragmentEpilogKey{}));
  return agx::compiler::link_fragment(main, epilog);
}

// abi_json plus the keys only some shaders have.
nlohmann::json abi_json_full(const agx::compiler::Abi& abi) {
  nlohmann::json j = abi_json(abi);
  if (!abi.vertex.layout.outputs.empty()) j["vertex"] = vertex_json(abi.vertex);
  if (abi.atomic_lock_uniform != UINT32_MAX) j["atomic_lock_uniform"] = abi.atomic_lock_uniform;
  if (abi.push_memory_uniform != agx::compiler::Resource::kNoUniform) j["push_memory_uniform"] = abi.push_memory_uniform;
  if (abi.preamble_uniform_count) {
    j["preamble_uniform"] = abi.preamble_uniform;
    j["preamble_uniform_count"] = abi.preamble_uniform_count;
  }
  return j;
}

void run(const Options& o) {
  agx::compiler::Options co;
  co.entry = o.entry;
  co.stage = stage_of(o);
  co.file_name = o.input;
  co.optimize = !o.no_opt;
  co.pressure_schedule = !o.no_schedule;
  co.preamble = !o.no_preamble;
  for (const std::string& spec : o.specs) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      agx::cli::fail(fmt::format("--spec '{}': expected ID=VALUE", spec));
    uint32_t id = 0;
    auto [end, ec] = std::from_chars(spec.data(), spec.data() + eq, id);
    if (ec != std::errc() || end != spec.data() + eq) agx::cli::fail(fmt::format("--spec '{}': the ID is not a number", spec));
    if (co.specializations.count(id)) agx::cli::fail(fmt::format("--spec: SpecId {} given twice", id));
    co.specializations[id] = spec.substr(eq + 1);
  }
  if (o.target == "opengl") co.env = agx::compiler::TargetEnv::opengl;
  else if (o.target != "vulkan") agx::cli::fail(std::string("--target is vulkan or opengl"));
  bool spirv = o.input.size() > 4 && o.input.substr(o.input.size() - 4) == ".spv";
  agx::Result<agx::compiler::Shader> shader = agx::Error::invalid_argument("unreachable");
  if (spirv) {
    auto bytes = agx::cli::read_binary(o.input);
    if (!bytes) agx::cli::fail(bytes.error());
    if (bytes->size() % 4) agx::cli::fail(fmt::format("{}: SPIR-V size {} is not a multiple of 4 bytes", o.input, bytes->size()));
    std::vector<uint32_t> words(bytes->size() / 4);
    std::memcpy(words.data(), bytes->data(), bytes->size());
    shader = agx::compiler::compile_spirv(words, co);
  } else {
    auto text = agx::cli::read_file(o.input);
    if (!text) agx::cli::fail(text.error());
    shader = agx::compiler::compile_glsl(*text, co);
  }
  if (!shader) agx::cli::fail(shader.error());
  if (co.stage == agx::compiler::Stage::fragment && !o.no_epilog) {
    shader = with_epilog(*shader);
    if (!shader) agx::cli::fail(shader.error());
  }
  if (!o.out.empty())
    if (auto st = agx::cli::write_binary(o.out, shader->code); !st) agx::cli::fail(st.error());
  const auto& s = shader->stats;
  if (o.json) {
    nlohmann::json j = {{"instructions", s.instructions}, {"bytes", s.bytes}, {"gprs", s.gprs},
                        {"uniforms", s.uniforms}, {"spills", s.spills}, {"fills", s.fills}, {"scratch_B", s.scratch_B},
                        {"threads_per_core", s.threads_per_core}, {"loops", s.loops},
                        {"preamble_instructions", s.preamble_instructions}, {"preamble_bytes", s.preamble_bytes},
                        {"preamble_gprs", s.preamble_gprs}, {"abi", abi_json_full(shader->abi)}};
    if (co.stage == agx::compiler::Stage::fragment) j["abi"]["fragment"] = fragment_json(shader->abi.fragment);
    fmt::print("{}\n", j.dump());
    return;
  }
  // With a preamble, each listing has a heading: the preamble (its own
  // code, from offset 0) first, then the main shader.
  const bool pre = !shader->preamble.empty();
  if (o.ir) fmt::print("{}{}{}", pre ? "preamble:\n" + shader->preamble_ir_text : "", pre ? "main:\n" : "", shader->ir_text);
  if (o.disasm) {
    if (pre) fmt::print("preamble:\n{}main:\n", agx::compiler::disassemble(shader->preamble));
    fmt::print("{}", agx::compiler::disassemble(shader->code));
  }
  if (o.stats)
    fmt::print("{} shader: {} inst, {} bytes, {} halfregs, {} threads, {} loops, {}:{} spills:fills, {} uniform halves{}\n",
               agx::compiler::stage_name(co.stage), s.instructions, s.bytes, s.gprs, s.threads_per_core, s.loops, s.spills, s.fills, s.uniforms,
               pre ? fmt::format(", preamble {} inst {} bytes {} halfregs", s.preamble_instructions, s.preamble_bytes,
                                 s.preamble_gprs)
                   : "");
}

void setup(agx::cli::Args& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option("shader", o->input, "GLSL shader (.vert: vertex, .frag: fragment, any other name: compute) or SPIR-V (.spv)")->required();
  sub.add_option("--stage", o->stage, "Pipeline stage: comp, vert or frag (default: by the file's extension)");
  sub.add_flag("--no-epilog", o->no_epilog, "Fragment shaders: the main shader alone, without the default epilog");
  sub.add_option("-o,--output", o->out, "Write the machine code to this file");
  sub.add_flag("--disasm", o->disasm, "Print the disassembly");
  sub.add_flag("--stats", o->stats, "Print shader-db style statistics");
  sub.add_flag("--json", o->json, "With --stats: one JSON object (instructions, bytes, gprs, uniforms, spills, fills, threads_per_core, loops, preamble_*, abi)");
  sub.add_flag("--ir", o->ir, "Print the final IR");
  sub.add_flag("--no-opt", o->no_opt, "Skip the SPIR-V performance passes (legalization still runs)");
  sub.add_flag("--no-preamble", o->no_preamble, "Compile everything into the main shader (no preamble)");
  sub.add_flag("--no-pressure-schedule", o->no_schedule, "Keep each block's instruction order (no scheduling for register pressure)");
  sub.add_option("--entry", o->entry, "Entry point name (default main)");
  sub.add_option("--spec", o->specs, "Specialization constant: SpecId=value (repeatable; 7, -3, 0x10, 1.5, true)");
  sub.add_option("--target", o->target, "SPIR-V flavour: vulkan (glslang -V, default) or opengl (-G)");
  sub.callback([o] { run(*o); });
}

agx::cli::Command kCompile{"compile", "Compile a compute, vertex or fragment shader (GLSL or SPIR-V) to AGX machine code", setup};

}  // namespace AGX_UNITY_ID
