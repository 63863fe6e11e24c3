// Presentation of decode trees and crash dump headers.
#include "cmdstream/decode_report.h"

#include "cmdstream/report.h"

namespace agx::cmdstream {

namespace {

const char* kind_name(DecodeNode::Kind k) {
  switch (k) {
    case DecodeNode::Kind::root: return "root";
    case DecodeNode::Kind::command: return "command";
    case DecodeNode::Kind::stream: return "stream";
    case DecodeNode::Kind::packet: return "packet";
    case DecodeNode::Kind::data: return "data";
    case DecodeNode::Kind::shader: return "shader";
    case DecodeNode::Kind::error: return "error";
  }
  return "?";
}

std::string hex_bytes(std::span<const uint8_t> b) {
  std::string s;
  for (uint8_t x : b) s += fmt::format("{:02x}", x);
  return s;
}

void print_node(const DecodeNode& n, unsigned depth, std::string& out) {
  const std::string pad(2 * depth, ' ');
  if (n.crash) out += fmt::format("{}==> ESTIMATED CRASH LOCATION <==\n", pad);
  switch (n.kind) {
    case DecodeNode::Kind::error:
      for (const auto& l : n.lines) out += fmt::format("{}!! ERROR: {}\n", pad, l);
      break;
    case DecodeNode::Kind::packet:
    case DecodeNode::Kind::data:
    case DecodeNode::Kind::shader:
      out += fmt::format("{}0x{:x} {}\n", pad, n.va, n.title);
      break;
    default:
      out += n.va ? fmt::format("{}{} @ 0x{:x}\n", pad, n.title, n.va) : fmt::format("{}{}\n", pad, n.title);
  }
  if (n.kind != DecodeNode::Kind::error)
    for (const auto& l : n.lines) out += fmt::format("{}  {}\n", pad, l);
  for (const DecodedStruct& s : n.structs) {
    if (s.label.empty())
      out += fmt::format("{}  {}\n", pad, s.desc->name);
    else
      out += fmt::format("{}  {} ({})\n", pad, s.desc->name, s.label);
    auto u = unpack(*s.desc, s.bytes);
    if (u)
      out += print(*s.desc, *u, unsigned(2 * depth + 4));
    else
      out += fmt::format("{}    !! {}\n", pad, u.error().message());
  }
  for (const DecodeNode& c : n.children) print_node(c, depth + 1, out);
}

}  // namespace

std::string print_decode(const DecodeNode& root) {
  std::string out;
  print_node(root, 0, out);
  return out;
}

nlohmann::ordered_json decode_to_json(const DecodeNode& n) {
  nlohmann::ordered_json j;
  j["kind"] = kind_name(n.kind);
  j["title"] = n.title;
  j["va"] = fmt::format("0x{:x}", n.va);
  j["size_B"] = n.size_B;
  if (n.crash) j["crash"] = true;
  auto structs = nlohmann::ordered_json::array();
  for (const DecodedStruct& s : n.structs) {
    nlohmann::ordered_json o;
    o["name"] = s.desc->name;
    o["va"] = fmt::format("0x{:x}", s.va);
    if (!s.label.empty()) o["label"] = s.label;
    auto u = unpack(*s.desc, s.bytes);
    if (u) {
      o["fields"] = fields_to_json(*s.desc, u->values);
      if (u->has_unknown_bits) o["unknown_bits"] = hex_bytes(u->unknown_bits);
    } else {
      o["error"] = u.error().message();
    }
    structs.push_back(std::move(o));
  }
  j["structs"] = std::move(structs);
  j["lines"] = n.lines;
  auto children = nlohmann::ordered_json::array();
  for (const DecodeNode& c : n.children) children.push_back(decode_to_json(c));
  j["children"] = std::move(children);
  return j;
}

std::string print_fault(const Trace& dump) {
  const TraceSubmit& s = dump.submits.at(0);
  const TraceFault& f = *s.fault;
  std::string out;
  out += "agx crash dump (format version " + std::to_string(dump.version) + ")\n";
  out += fmt::format("fault:\n  address: 0x{:x}\n  unit: {}\n  access: {}\n  reason: {}\n  time_ns: {}\n", f.va,
                     to_string(f.unit), to_string(f.access), f.reason, f.time_ns);
  out += fmt::format("queue:\n  id: {}\n  vm: {}\n  priority: {}\n  usc_exec_base: 0x{:x}\n", s.info.queue_id,
                     s.info.vm_id, s.info.priority, s.info.usc_exec_base);
  out += fmt::format("command:\n  submit: {}\n  index: {}\n  firmware queue: {}\n  pid: {}\n", s.info.seqno,
                     f.command_index, kmd::to_string(f.queue), s.info.pid);
  out += fmt::format("gpu:\n  generation: {}\n  variant: {:c}\n  chip: 0x{:x}\n", dump.params.gpu_generation,
                     char(dump.params.gpu_variant), dump.params.chip_id);
  return out;
}

nlohmann::ordered_json fault_to_json(const Trace& dump) {
  const TraceSubmit& s = dump.submits.at(0);
  const TraceFault& f = *s.fault;
  nlohmann::ordered_json j;
  j["version"] = dump.version;
  j["fault"] = {{"address", fmt::format("0x{:x}", f.va)}, {"unit", to_string(f.unit)},
                {"access", to_string(f.access)}, {"reason", f.reason}, {"time_ns", f.time_ns}};
  j["queue"] = {{"id", s.info.queue_id}, {"vm", s.info.vm_id}, {"priority", s.info.priority},
                {"usc_exec_base", fmt::format("0x{:x}", s.info.usc_exec_base)}};
  j["command"] = {{"submit", s.info.seqno}, {"index", f.command_index}, {"firmware_queue", kmd::to_string(f.queue)},
                  {"pid", s.info.pid}};
  return j;
}

}  // namespace agx::cmdstream
