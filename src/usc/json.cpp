// The JSON state of `agx emu` (format in docs/usc.md).
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "usc/internal.h"
#include "util/hex.h"

namespace agx::usc {

namespace {

using nlohmann::json;

// "r12" -> 12 when the prefix matches and the number is below `limit`.
Result<unsigned> parse_name(const std::string& name, std::string_view prefix, unsigned limit) {
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size())
    return Error::parse("\"{}\" is not a {} name", name, prefix == "r" ? "register" : prefix == "u" ? "uniform" : "special register");
  unsigned v = 0;
  const char* b = name.data() + prefix.size();
  const char* e = name.data() + name.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e || v >= limit)
    return Error::parse("\"{}\" is not one of {}0..{}{}", name, prefix, prefix, limit - 1);
  return v;
}

Result<uint32_t> u32_of(const json& j, const std::string& where) {
  if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<int64_t>() >= 0))
    return Error::parse("{}: expected an unsigned integer, got {}", where, j.dump());
  uint64_t v = j.get<uint64_t>();
  if (v > 0xFFFFFFFFull) return Error::parse("{}: {} does not fit in 32 bits", where, v);
  return static_cast<uint32_t>(v);
}

Status lanes_of(const json& j, const std::string& where, LaneArray& out) {
  if (!j.is_array() || j.size() != kLanes)
    return Error::parse("{}: expected a list of {} lane values", where, kLanes);
  for (unsigned l = 0; l < kLanes; ++l) {
    AGX_TRY(out[l], u32_of(j[l], fmt::format("{}[{}]", where, l)));
  }
  return {};
}

Status parse_into(const json& j, State& st) {
  if (!j.is_object()) return Error::parse("state: expected a JSON object");
  for (auto& [key, val] : j.items()) {
    if (key == "exec") {
      AGX_TRY(st.core.exec, u32_of(val, "exec"));
    } else if (key == "pc") {
      if (!val.is_number_unsigned()) return Error::parse("pc: expected an unsigned integer");
      st.core.pc = val.get<uint64_t>();
    } else if (key == "r") {
      if (!val.is_object()) return Error::parse("r: expected an object of registers");
      for (auto& [name, lanes] : val.items()) {
        AGX_TRY(unsigned n, parse_name(name, "r", kRegisters));
        AGX_CHECK(lanes_of(lanes, name, st.core.r[n]));
        st.listed[n] = true;
      }
    } else if (key == "u") {
      if (!val.is_object()) return Error::parse("u: expected an object of uniforms");
      st.has_uniforms = true;
      for (auto& [name, v] : val.items()) {
        AGX_TRY(unsigned n, parse_name(name, "u", kUniforms));
        AGX_TRY(st.core.u[n], u32_of(v, name));
      }
    } else if (key == "sr") {
      if (!val.is_object()) return Error::parse("sr: expected an object of special registers");
      for (auto& [name, lanes] : val.items()) {
        AGX_TRY(unsigned n, parse_name(name, "sr", kSpecialRegisters));
        AGX_CHECK(lanes_of(lanes, name, st.core.sr[n]));
        st.core.sr_known[n] = true;
      }
    } else if (key == "mem") {
      if (!val.is_object()) return Error::parse("mem: expected an object of address -> hex bytes");
      st.has_memory = true;
      for (auto& [addr, hex] : val.items()) {
        if (addr.size() != 18 || addr.rfind("0x", 0) != 0)
          return Error::parse("mem: address \"{}\" must be 0x followed by 16 hex digits", addr);
        uint64_t va = 0;
        auto [p, ec] = std::from_chars(addr.data() + 2, addr.data() + addr.size(), va, 16);
        if (ec != std::errc() || p != addr.data() + addr.size())
          return Error::parse("mem: address \"{}\" is not hexadecimal", addr);
        if (!hex.is_string()) return Error::parse("mem[{}]: expected a hex string", addr);
        auto bytes = parse_hex(hex.get<std::string>());
        if (!bytes) return std::move(bytes).error().context(fmt::format("mem[{}]", addr));
        AGX_CHECK(st.memory.map(va, std::move(*bytes)));
      }
    } else {
      return Error::parse("state: unknown key \"{}\" (expected exec, pc, r, u, sr, mem)", key);
    }
  }
  return {};
}

}  // namespace

Result<State> parse_state(std::string_view text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    return Error::parse("state JSON: {}", e.what());
  }
  State st;
  st.core = make_core();
  AGX_CHECK(parse_into(j, st));
  return st;
}

std::string format_state(const State& st, bool one_line) {
  const Core& c = st.core;
  std::string nl = one_line ? "" : "\n", in1 = one_line ? "" : "  ", in2 = one_line ? "" : "    ";
  std::string sp = one_line ? "" : " ";
  std::string out = "{" + nl;
  out += fmt::format("{}\"exec\":{}{},{}", in1, sp, c.exec, nl);
  if (!one_line) out += fmt::format("{}\"pc\":{}{},{}", in1, sp, c.pc, nl);
  std::vector<std::string> regs;
  for (unsigned r = 0; r < kRegisters; ++r)
    if (st.listed[r] || c.written[r])
      regs.push_back(fmt::format("{}\"r{}\":{}[{}]", in2, r, sp, fmt::join(c.r[r], ",")));
  out += fmt::format("{}\"r\":{}{{{}{}{}{}}}", in1, sp, regs.empty() ? "" : nl,
                     fmt::join(regs, "," + nl), regs.empty() ? "" : nl, regs.empty() ? "" : in1);
  if (st.has_uniforms || c.uniforms_written) {
    std::vector<std::string> us;
    for (unsigned u = 0; u < kUniforms; ++u)
      if (c.u[u]) us.push_back(fmt::format("\"u{}\":{}{}", u, sp, c.u[u]));
    out += fmt::format(",{}{}\"u\":{}{{{}}}", nl, in1, sp, fmt::join(us, "," + sp));
  }
  if (st.has_memory) {
    std::vector<std::string> ms;
    for (const auto& [va, bytes] : st.memory.regions())
      ms.push_back(fmt::format("{}\"0x{:016x}\":{}\"{}\"", in2, va, sp, to_hex(bytes)));
    out += fmt::format(",{}{}\"mem\":{}{{{}{}{}{}}}", nl, in1, sp, ms.empty() ? "" : nl,
                       fmt::join(ms, "," + nl), ms.empty() ? "" : nl, ms.empty() ? "" : in1);
  }
  out += nl + "}";
  return out;
}

}  // namespace agx::usc
