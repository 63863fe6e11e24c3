// agx decode TRACE [--submit N] [--json]
// agx decode --hex ADDR --memory FILE[@VA] ... [--stream cdm|vdm|usc] [--usc-base VA] [--g14x] [--json]
//
// Walks captured submits (AGX_TRACE files, crash dumps) or a raw stream in
// memory files the way the hardware reads them (docs/cmdstream.md).
#include <fmt/format.h>

#include <charconv>

#include "cmdstream/decode.h"
#include "cmdstream/decode_report.h"
#include "cmdstream/trace_file.h"
#include "command.h"

namespace AGX_UNITY_ID {

using namespace agx::cmdstream;

struct Options {
  std::string trace;
  int64_t submit = -1;
  bool json = false;
  std::string hex;
  std::vector<std::string> memory;
  std::string stream = "cdm";
  std::string usc_base = "0";
  bool g14x = false;
};

agx::Result<uint64_t> parse_u64(std::string_view text, const char* what) {
  std::string_view t = text;
  int base = 10;
  if (t.starts_with("0x") || t.starts_with("0X")) {
    t.remove_prefix(2);
    base = 16;
  }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size())
    return agx::Error::parse("{} '{}' is not a number (decimal or 0x hex)", what, text);
  return v;
}

void print(const DecodeNode& n, bool json) {
  if (json)
    fmt::print("{}\n", decode_to_json(n).dump());
  else
    fmt::print("{}", print_decode(n));
}

void run_trace(const Options& o) {
  auto trace = read_trace_file(o.trace);
  if (!trace) agx::cli::fail(trace.error());
  if (o.submit >= 0 && uint64_t(o.submit) >= trace->submits.size())
    agx::cli::fail(fmt::format("--submit {}: the trace holds {} submits (0..{})", o.submit, trace->submits.size(),
                               trace->submits.size() ? trace->submits.size() - 1 : 0));
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (size_t i = 0; i < trace->submits.size(); i++) {
    if (o.submit >= 0 && i != uint64_t(o.submit)) continue;
    DecodeNode n = decode_submit(trace->submits[i], trace->params);
    if (o.json)
      all.push_back(decode_to_json(n));
    else
      fmt::print("{}{}", i ? "\n" : "", print_decode(n));
  }
  if (o.json) fmt::print("{}\n", nlohmann::ordered_json{{"submits", all}}.dump());
}

void run_raw(const Options& o) {
  auto start = parse_u64(o.hex, "--hex");
  if (!start) agx::cli::fail(start.error());
  auto usc_base = parse_u64(o.usc_base, "--usc-base");
  if (!usc_base) agx::cli::fail(usc_base.error());
  if (o.memory.empty()) agx::cli::fail(std::string("--hex needs at least one --memory FILE[@VA]"));
  TraceSubmit mem;
  for (const std::string& spec : o.memory) {
    const size_t at = spec.rfind('@');
    const std::string path = at == std::string::npos ? spec : spec.substr(0, at);
    uint64_t va = 0;
    if (at != std::string::npos) {
      auto v = parse_u64(std::string_view(spec).substr(at + 1), "--memory address");
      if (!v) agx::cli::fail(v.error());
      va = *v;
    }
    auto bytes = agx::cli::read_binary(path);
    if (!bytes) agx::cli::fail(bytes.error());
    if (bytes->empty()) agx::cli::fail(fmt::format("--memory {}: empty file", path));
    if (va + bytes->size() < va) agx::cli::fail(fmt::format("--memory {}: 0x{:x} + size overflows", path, va));
    TraceMapping m;
    m.va = va;
    m.size_B = bytes->size();
    m.flags = agx::kmd::trace::kMapRead;
    m.data = std::move(*bytes);
    mem.mappings.push_back(std::move(m));
  }
  std::sort(mem.mappings.begin(), mem.mappings.end(), [](auto& a, auto& b) { return a.va < b.va; });
  for (size_t i = 1; i < mem.mappings.size(); i++)
    if (mem.mappings[i - 1].va + mem.mappings[i - 1].size_B > mem.mappings[i].va)
      agx::cli::fail(fmt::format("--memory files at 0x{:x} and 0x{:x} overlap", mem.mappings[i - 1].va,
                                 mem.mappings[i].va));
  TraceMemory memory(mem);
  DecodeConfig config;
  config.usc_exec_base = *usc_base;
  config.g14x = o.g14x;
  DecodeNode n;
  if (o.stream == "cdm")
    n = decode_cdm_stream(memory, *start, config);
  else if (o.stream == "vdm")
    n = decode_vdm_stream(memory, *start, config);
  else if (o.stream == "usc")
    n = decode_usc_words(memory, *start - *usc_base, config);
  else
    agx::cli::fail(fmt::format("--stream {}: expected cdm, vdm or usc", o.stream));
  print(n, o.json);
}

void setup(agx::cli::Args& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option("trace", o->trace, "Trace file (AGX_TRACE) or crash dump");
  sub.add_option("--submit", o->submit, "Decode only this submit (0-based)");
  sub.add_flag("--json", o->json, "Print JSON (docs/cmdstream.md)");
  sub.add_option("--hex", o->hex, "Decode a raw stream starting at this GPU address");
  sub.add_option("--memory", o->memory, "FILE[@VA]: raw bytes mapped at VA (default 0); repeatable");
  sub.add_option("--stream", o->stream, "cdm (default), vdm or usc (a USC word list)");
  sub.add_option("--usc-base", o->usc_base, "usc_exec_base: USC addresses are offsets from it (default 0)");
  sub.add_flag("--g14x", o->g14x, "CDM Launch carries the G14X word (G14X-class GPUs)");
  sub.callback([o] {
    if (!o->hex.empty()) {
      if (!o->trace.empty()) agx::cli::fail(std::string("give a TRACE or --hex ADDR --memory FILE, not both"));
      run_raw(*o);
    } else {
      if (o->trace.empty()) agx::cli::fail(std::string("give a TRACE, or --hex ADDR --memory FILE"));
      if (!o->memory.empty()) agx::cli::fail(std::string("--memory goes with --hex"));
      run_trace(*o);
    }
  });
}

agx::cli::Command kDecode{"decode", "Decode captured submits or a raw control stream (CDM, VDM, USC words)", setup};

}  // namespace AGX_UNITY_ID
