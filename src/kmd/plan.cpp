// Parsing the seed's submission notation and building the firmware queue view.
#include "kmd/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace agx::kmd {

const char* to_string(FirmwareQueue queue) {
  switch (queue) {
    case FirmwareQueue::compute: return "compute";
    case FirmwareQueue::vertex: return "vertex";
    case FirmwareQueue::fragment: return "fragment";
  }
  return "?";
}

std::string ViewEntry::text() const {
  std::string s = fmt::format("{} {}{}", run ? "RUN" : "WAIT", letter, number);
  if (half) s += half;
  return s;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

Result<uint32_t> parse_number(std::string_view s, std::string_view what) {
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v > 0xFFFE)
    return Error::parse("bad number '{}' in {}", s, what);
  return v;
}

// "R3" / "C0" -> kind and number.
Result<std::pair<char, uint32_t>> parse_name(std::string_view s) {
  if (s.size() < 2 || (s[0] != 'R' && s[0] != 'C'))
    return Error::parse("expected R<n> or C<n>, found '{}'", s);
  AGX_TRY(uint32_t n, parse_number(s.substr(1), s));
  return std::pair{s[0], n};
}

Status parse_barriers(std::string_view list, PlanCommand& cmd) {
  if (list.size() < 2 || list.front() != '[' || list.back() != ']')
    return Error::parse("barrier list '{}' is not [render, compute]", list);
  list = list.substr(1, list.size() - 2);
  size_t comma = list.find(',');
  if (comma == std::string_view::npos || list.find(',', comma + 1) != std::string_view::npos)
    return Error::parse("barrier list needs two entries, found '[{}]'", list);
  std::string_view slots[2] = {trim(list.substr(0, comma)), trim(list.substr(comma + 1))};
  bool seen_r = false, seen_c = false;
  for (int i = 0; i < 2; i++) {
    if (slots[i] == "__") continue;
    AGX_TRY(auto name, parse_name(slots[i]));
    bool& seen = name.first == 'R' ? seen_r : seen_c;
    if (seen) return Error::parse("two {} barriers in '[{}]'", name.first, list);
    seen = true;
    (name.first == 'R' ? cmd.vdm_barrier : cmd.cdm_barrier) = uint16_t(name.second);
  }
  return {};
}

Result<PlanCommand> parse_line(std::string_view line, uint32_t index, uint32_t renders, uint32_t computes) {
  PlanCommand cmd;
  if (line.starts_with('#')) {  // "#N" index prefix
    size_t end = 1;
    while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) end++;
    AGX_TRY(uint32_t n, parse_number(line.substr(1, end - 1), "the #N prefix"));
    if (n != index) return Error::parse("prefix #{} but this is command #{}", n, index);
    line = trim(line.substr(end));
  }
  size_t space = line.find_first_of(" \t");
  std::string_view name_text = line.substr(0, space);
  AGX_TRY(auto name, parse_name(name_text));
  cmd.kind = name.first == 'R' ? CommandKind::render : CommandKind::compute;
  uint32_t expect = (name.first == 'R' ? renders : computes) + 1;
  if (name.second != expect)
    return Error::parse("command {} should be {}{} (commands are numbered in order)", name_text, name.first, expect);
  std::string_view rest = space == std::string_view::npos ? "" : trim(line.substr(space));
  if (!rest.empty()) {
    if (!rest.starts_with("barrier="))
      return Error::parse("expected barrier=[..] after {}, found '{}'", name_text, rest);
    AGX_CHECK(parse_barriers(trim(rest.substr(8)), cmd));
  }
  return cmd;
}

}  // namespace

Result<std::vector<PlanCommand>> parse_plan(std::string_view text) {
  std::vector<PlanCommand> out;
  uint32_t renders = 0, computes = 0, line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? "" : text.substr(nl + 1);
    line_no++;
    // A '#' not followed by a digit starts a comment.
    for (size_t i = 0; i < line.size(); i++) {
      if (line[i] == '#' && !(i + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[i + 1])))) {
        line = line.substr(0, i);
        break;
      }
    }
    line = trim(line);
    if (line.empty()) continue;
    auto cmd = parse_line(line, uint32_t(out.size()), renders, computes);
    if (!cmd) return std::move(cmd).error().context(fmt::format("line {}", line_no));
    (cmd->kind == CommandKind::render ? renders : computes)++;
    out.push_back(*cmd);
  }
  AGX_CHECK(validate_plan(out));
  return out;
}

Status validate_plan(std::span<const PlanCommand> commands) {
  if (commands.empty()) return Error::invalid_argument("a submission needs at least one command");
  if (commands.size() > kMaxCommandsPerSubmission)
    return Error::invalid_argument("{} commands, more than {} per submission", commands.size(),
                                   kMaxCommandsPerSubmission);
  uint32_t renders = 0, computes = 0;
  for (size_t i = 0; i < commands.size(); i++) {
    const PlanCommand& c = commands[i];
    if (c.vdm_barrier != kBarrierNone && c.vdm_barrier > renders)
      return Error::invalid_argument("command #{}: barrier R{} is a future boundary (only {} render commands before it)",
                                     i, c.vdm_barrier, renders);
    if (c.cdm_barrier != kBarrierNone && c.cdm_barrier > computes)
      return Error::invalid_argument("command #{}: barrier C{} is a future boundary (only {} compute commands before it)",
                                     i, c.cdm_barrier, computes);
    (c.kind == CommandKind::render ? renders : computes)++;
  }
  return {};
}

std::vector<ViewEntry> command_view(const PlanCommand& c, uint32_t ordinal) {
  const FirmwareQueue waits_on = c.kind == CommandKind::render ? FirmwareQueue::vertex : FirmwareQueue::compute;
  std::vector<ViewEntry> out;
  // Explicit barriers: render boundary first (its fragment half completes a
  // render command), then compute.
  if (c.vdm_barrier != kBarrierNone) out.push_back({waits_on, false, 'R', c.vdm_barrier, 'f'});
  if (c.cdm_barrier != kBarrierNone) out.push_back({waits_on, false, 'C', c.cdm_barrier, 0});
  if (c.kind == CommandKind::compute) {
    out.push_back({FirmwareQueue::compute, true, 'C', ordinal, 0});
  } else {
    out.push_back({FirmwareQueue::vertex, true, 'R', ordinal, 'v'});
    out.push_back({FirmwareQueue::fragment, false, 'R', ordinal, 'v'});  // implicit barrier
    out.push_back({FirmwareQueue::fragment, true, 'R', ordinal, 'f'});
  }
  return out;
}

FirmwareView firmware_view(std::span<const PlanCommand> commands) {
  FirmwareView view;
  uint32_t renders = 0, computes = 0;
  for (const PlanCommand& c : commands) {
    uint32_t ordinal = c.kind == CommandKind::render ? ++renders : ++computes;
    for (const ViewEntry& e : command_view(c, ordinal)) {
      auto& column = e.queue == FirmwareQueue::compute ? view.compute
                     : e.queue == FirmwareQueue::vertex ? view.vertex : view.fragment;
      column.push_back(e.text());
    }
  }
  return view;
}

std::string format_table(const FirmwareView& view) {
  const std::vector<std::string>* cols[3] = {&view.compute, &view.vertex, &view.fragment};
  const char* heads[3] = {"Compute", "Vertex", "Fragment"};
  size_t width[3], rows = 0;
  for (int i = 0; i < 3; i++) {
    width[i] = std::string_view(heads[i]).size();
    for (const auto& s : *cols[i]) width[i] = std::max(width[i], s.size());
    width[i] += 2;
    rows = std::max(rows, cols[i]->size());
  }
  std::string out;
  auto emit_row = [&](auto cell) {
    std::string line;
    for (int i = 0; i < 3; i++) {
      std::string c = cell(i);
      line += c;
      if (i < 2) line.append(width[i] - c.size(), ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  emit_row([&](int i) { return std::string(heads[i]); });
  for (size_t r = 0; r < rows; r++)
    emit_row([&](int i) { return r < cols[i]->size() ? (*cols[i])[r] : std::string(); });
  return out;
}

std::string format_json(const FirmwareView& view) {
  auto list = [](const std::vector<std::string>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); i++) s += fmt::format("{}\"{}\"", i ? ", " : "", v[i]);
    return s + "]";
  };
  return fmt::format("{{\"compute\": {}, \"vertex\": {}, \"fragment\": {}}}\n", list(view.compute),
                     list(view.vertex), list(view.fragment));
}

}  // namespace agx::kmd
