// The vertex prolog with several attributes: a float vec4 at location 0
// followed by an integer pair at location 1 (every vertex of the draw read
// back, each with its own element), and random keys of 1-6 attributes of
// random formats at random locations, strides, rates and clamps, in random
// key order, each component of each drawn vertex checked against the
// reference conversion of the element the attribute's index selects.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/tests/vertex_prolog_ref.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

using namespace test;

// One attribute of a draw: its key entry, buffer and clamp.
struct Input {
  VertexPrologAttribute a;
  std::vector<uint8_t> buffer;
  uint32_t clamp = 0;
};

struct Draw {
  std::vector<Input> inputs;
  uint32_t count = 1, instances = 1, base_instance = 0, first = 0;
};

std::string describe(const Draw& d) {
  std::ostringstream s;
  s << d.count << " vertices from " << d.first << ", " << d.instances << " instances from " << d.base_instance << ":";
  for (const Input& in : d.inputs) {
    s << " [location " << in.a.location << " " << vertex_format_name(in.a.format) << " stride " << in.a.stride;
    if (in.a.per_instance) s << " per instance / " << in.a.divisor;
    s << " clamp " << in.clamp << "]";
  }
  return s.str();
}

// The element attribute `a` reads for vertex ID `vertex` of instance
// `instance` (0-based): the prolog's index, clamped.
uint32_t element_of(const Input& in, uint32_t vertex, uint32_t instance, uint32_t base_instance) {
  const VertexPrologAttribute& a = in.a;
  if (a.per_instance && a.divisor == 0) return std::min(base_instance, in.clamp);
  const uint32_t index = a.per_instance ? instance / a.divisor + base_instance : vertex;
  return std::min(index, in.clamp);
}

class PrologOrder : public PrologRun {
 public:
  // Draws `d` with a reader of its attributes (in key order) and checks
  // every component of every vertex.
  void check(const Draw& d) {
    std::vector<std::pair<uint32_t, BaseType>> reads;
    std::vector<VertexPrologAttribute> attrs;
    std::vector<std::vector<uint8_t>> buffers;
    std::vector<uint32_t> clamps;
    for (const Input& in : d.inputs) {
      reads.emplace_back(in.a.location, in.a.type);
      attrs.push_back(in.a);
      buffers.push_back(in.buffer);
      clamps.push_back(in.clamp);
    }
    const Shader& main = attribute_reader(reads);
    ASSERT_FALSE(main.code.empty());
    ASSERT_TRUE(draw(main, attrs, buffers, clamps, d.count, d.instances, d.base_instance, d.first)) << message;
    ASSERT_EQ(scene.vertices.size(), size_t{d.count} * d.instances) << describe(d);
    const varyings::VertexOutputLayout& l = main.abi.vertex.layout;
    const unsigned ids = l.find_varying(static_cast<int>(d.inputs.size()))->index;
    std::vector<bool> seen(size_t{d.count} * d.instances, false);
    for (size_t k = 0; k < scene.vertices.size(); ++k) {
      const uint32_t vertex = out(k, ids), instance = out(k, ids + 1) - d.base_instance;
      ASSERT_GE(vertex, d.first) << describe(d);
      ASSERT_LT(vertex - d.first, d.count) << describe(d);
      ASSERT_LT(instance, d.instances) << describe(d);
      const size_t which = size_t{instance} * d.count + (vertex - d.first);
      EXPECT_FALSE(seen[which]) << "vertex " << vertex << " instance " << instance << " drawn twice: " << describe(d);
      seen[which] = true;
      for (size_t i = 0; i < d.inputs.size(); ++i) {
        const Input& in = d.inputs[i];
        const uint32_t e = element_of(in, vertex, instance, d.base_instance);
        const auto want = expected(in.a.format, in.buffer.data() + size_t{e} * in.a.stride);
        const unsigned o = l.find_varying(static_cast<int>(i))->index;
        for (unsigned c = 0; c < 4; ++c) {
          const uint32_t got = out(k, o + c);
          const VertexFormat& f = in.a.format;
          const bool close = alu_normalized(f) && c < (f.layout == Layout::plain ? f.components : 4u) &&
                             std::abs(int64_t{got} - int64_t{want[c]}) <= 1;
          EXPECT_TRUE(got == want[c] || close)
              << "vertex " << vertex << " instance " << instance << " location " << in.a.location << " ("
              << vertex_format_name(in.a.format) << ") element " << e << " component " << c << std::hex << ": 0x"
              << got << " vs 0x" << want[c] << std::dec << "; " << describe(d);
        }
      }
    }
  }
};

// A buffer of `elements` elements of `f` at `stride` (at least one
// element's bytes), filled from `seed`, float fields finite.
std::vector<uint8_t> buffer_of(const VertexFormat& f, uint32_t stride, uint32_t elements, uint32_t seed) {
  const uint32_t bytes = f.layout == Layout::plain ? f.components * f.bits / 8u : 4u;
  std::vector<uint8_t> b(size_t{stride} * (elements - 1) + bytes);
  uint32_t x = seed * 2654435761u + 12345u;
  for (uint8_t& v : b) v = static_cast<uint8_t>((x = x * 1664525u + 1013904223u) >> 24);
  finite(f, b.data(), b.size());
  return b;
}

Input input(uint32_t location, const char* format, uint32_t stride, uint32_t elements, uint32_t seed) {
  Input in;
  auto f = parse_vertex_format(format);
  EXPECT_TRUE(f.ok()) << format;
  in.a.location = location;
  in.a.format = f.ok() ? *f : VertexFormat{};
  in.a.stride = stride;
  in.a.type = base_type(in.a.format);
  in.buffer = buffer_of(in.a.format, stride, elements, seed);
  in.clamp = elements - 1;
  return in;
}

// Location 0 a float vec4, location 1 a uint pair, both per vertex: every
// vertex reads its own element of each, in either key order.
TEST_F(PrologOrder, Float4ThenUint2EveryVertexReadsItsElements) {
  Draw d;
  d.count = 4;
  d.inputs = {input(0, "R32G32B32A32_SFLOAT", 16, 4, 1), input(1, "R32G32_UINT", 8, 4, 2)};
  check(d);
  std::reverse(d.inputs.begin(), d.inputs.end());
  check(d);
}

// A random draw: 1-80 vertices from a first vertex up to 5000, 1-3
// instances from a base instance up to 3; 1-6 attributes at distinct
// random locations, random formats of the table, strides 0 or a few
// elements (overlapping ones too), per-vertex or per-instance with
// divisors 0-5, clamps below or past the range they index.
Draw random_draw(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  Draw d;
  d.count = 1 + pick(80);
  d.instances = 1 + pick(3);
  d.first = pick(4) == 0 ? pick(5000) : pick(6);
  d.base_instance = pick(4);
  std::array<uint32_t, kMaxVertexAttributes> locations{};
  for (uint32_t i = 0; i < locations.size(); ++i) locations[i] = i;
  std::shuffle(locations.begin(), locations.end(), rng);
  const uint32_t n = 1 + pick(6);
  static const std::vector<VertexFormat> formats = word_formats();
  for (uint32_t i = 0; i < n; ++i) {
    Input in;
    in.a.location = locations[i];
    in.a.format = formats[pick(static_cast<uint32_t>(formats.size()))];
    in.a.type = base_type(in.a.format);
    const uint32_t e = in.a.format.element_bytes(), per = in.a.format.layout == Layout::plain ? in.a.format.components : 1;
    in.a.stride = pick(8) == 0 ? 0 : e * (1 + pick(per + 3));
    in.a.per_instance = pick(3) == 0;
    in.a.divisor = pick(6);
    if (!in.a.per_instance) in.a.divisor = 1;
    const uint32_t last = in.a.per_instance ? (d.instances - 1) / std::max(in.a.divisor, 1u) + d.base_instance
                                            : d.first + d.count - 1;
    in.clamp = pick(4) == 0 ? pick(last + 1) : last + pick(3);
    in.buffer = buffer_of(in.a.format, in.a.stride, in.clamp + 1, seed * 16 + i);
    d.inputs.push_back(std::move(in));
  }
  return d;
}

class PrologRandom : public PrologOrder, public ::testing::WithParamInterface<uint32_t> {};

TEST_P(PrologRandom, EveryComponentAsTheReference) { check(random_draw(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Seeds, PrologRandom, ::testing::Range(0u, 64u));

}  // namespace
}  // namespace agx::compiler

namespace agx::compiler {
namespace AGX_UNITY_ID {

using namespace test;

// Strides whose element count does not fit imadd's 8-bit immediate (the
// factor through r7), for a plain format (shifted by 2 first) and a
// bit-packed one (never shifted), next to a stride-0 attribute.
TEST_F(PrologOrder, LargeAndZeroStrides) {
  Draw d;
  d.count = 5;
  d.inputs = {input(0, "R8_UINT", 2 * 514, 5, 3), input(3, "A2B10G10R10_SNORM_PACK32", 4 * 300, 5, 4),
              input(5, "R16G16_SFLOAT", 0, 1, 5)};
  check(d);
}

// The prolog's instructions (disassembled), one mnemonic and its operands a line.
std::vector<std::string> prolog_lines(const std::vector<VertexPrologAttribute>& attrs) {
  VertexPrologKey key;
  key.attributes = attrs;
  key.address_uniform = 0;
  key.clamp_uniform = 32;
  key.base_instance_uniform = 49;
  auto p = compile_vertex_prolog(key);
  EXPECT_TRUE(p.ok()) << p.error().message();
  std::vector<std::string> out;
  if (!p.ok()) return out;
  std::istringstream text(disassemble(p->code));
  for (std::string line; std::getline(text, line);)
    if (!line.empty()) out.push_back(line);
  EXPECT_EQ(out.size(), p->instructions);
  return out;
}

VertexPrologAttribute attribute(uint32_t location, const char* format, uint32_t stride) {
  VertexPrologAttribute a;
  a.location = location;
  a.format = *parse_vertex_format(format);
  a.stride = stride;
  a.type = base_type(a.format);
  return a;
}

bool has(const std::string& line, const char* what) { return line.find(what) != std::string::npos; }

// The code itself: each attribute's index in its own last register,
// strides of 2 and 4 elements as device_load's shift, one `wait` behind
// all the loads, stride 0 as an immediate index with no
// clamp, each float constant loaded once.
TEST(VertexPrologCode, ShiftsOneWaitAndConstantsOnce) {
  auto l = prolog_lines({attribute(0, "R32G32B32A32_SFLOAT", 16), attribute(1, "R32G32_UINT", 8)});
  ASSERT_EQ(l.size(), 7u);
  EXPECT_TRUE(has(l[0], "icmpsel") && has(l[0], "ult, r11, r5, u32, r5, u32")) << l[0];
  EXPECT_TRUE(has(l[1], "device_load") && has(l[1], "r8_r9_r10_r11, u0_u1, r11, unsigned, lsl 2")) << l[1];
  EXPECT_TRUE(has(l[2], "icmpsel") && has(l[2], "ult, r15, r5, u33, r5, u33")) << l[2];
  EXPECT_TRUE(has(l[3], "device_load") && has(l[3], "r12_r13, u2_u3, r15, unsigned, lsl 1")) << l[3];
  EXPECT_TRUE(has(l[4], "wait")) << l[4];
  EXPECT_TRUE(has(l[5], "mov_imm") && has(l[5], "r14, 0,")) << l[5];
  EXPECT_TRUE(has(l[6], "mov_imm") && has(l[6], "r15, 1,")) << l[6];

  l = prolog_lines({attribute(2, "R32_SFLOAT", 0)});
  ASSERT_EQ(l.size(), 5u);
  EXPECT_TRUE(has(l[0], "device_load") && has(l[0], "r16, u4_u5, 0, unsigned")) << l[0];

  // Four components times 1 / (2^31 - 1), clamped to -1: two constants.
  l = prolog_lines({attribute(1, "R32G32B32A32_SNORM", 16), attribute(4, "R32G32_UNORM", 8)});
  size_t loads = 0, waits = 0, constants = 0;
  for (const std::string& s : l) {
    loads += has(s, "device_load");
    waits += has(s, "wait");
    constants += has(s, "mov_imm") && !has(s, "r26,") && !has(s, "r27,");
    if (waits == 0) {
      EXPECT_TRUE(has(s, "icmpsel") || has(s, "device_load")) << s;
    }
  }
  EXPECT_EQ(loads, 2u);
  EXPECT_EQ(waits, 1u);
  EXPECT_EQ(constants, 3u);  // 1 / (2^31 - 1), -1.0, 1 / (2^32 - 1)
}

// r0 (whose low half is the main shader's exec-mask nesting counter) is 0
// when the main shader starts: a prolog that divides the instance ID or
// swaps BGRA through r0 ends by clearing it; one that does not never
// writes it.
TEST(VertexPrologCode, LeavesR0ZeroForTheMainShader) {
  VertexPrologAttribute divided = attribute(0, "R32G32B32A32_SFLOAT", 16);
  divided.per_instance = true;
  divided.divisor = 3;
  for (const auto& attrs : {std::vector{divided}, std::vector{attribute(1, "B8G8R8A8_UNORM", 4)}}) {
    auto l = prolog_lines(attrs);
    ASSERT_FALSE(l.empty());
    EXPECT_TRUE(has(l.back(), "mov_imm") && has(l.back(), "r0, 0,")) << l.back();
  }
  for (const std::string& line : prolog_lines({attribute(0, "R32G32B32A32_SFLOAT", 16), attribute(1, "R8_UINT", 1)}))
    EXPECT_FALSE(has(line, " r0,") || has(line, " r0_") || has(line, " r0l")) << line;
}

// The registers ("r5", "r0_r1", "r8_r9_r10_r11", "r20l") an operand names.
std::vector<unsigned> registers_of(const std::string& operand) {
  std::vector<unsigned> out;
  std::istringstream parts(operand);
  for (std::string p; std::getline(parts, p, '_');)
    if (p.size() > 1 && p[0] == 'r' && std::isdigit(static_cast<unsigned char>(p[1]))) out.push_back(std::stoul(p.substr(1)));
  return out;
}

// Before the `wait`, no instruction writes a register an earlier load
// reads (its index) or writes (its data), for the two-attribute key in
// both orders and the keys of the random draws: one attribute's index
// code can never change what another's load, still in flight, reads or
// writes.
TEST(VertexPrologCode, NoLoadRegisterWrittenBeforeTheWait) {
  std::vector<std::vector<VertexPrologAttribute>> keys = {
      {attribute(0, "R32G32B32A32_SFLOAT", 16), attribute(1, "R32G32_UINT", 8)},
      {attribute(1, "R32G32_UINT", 8), attribute(0, "R32G32B32A32_SFLOAT", 16)}};
  for (uint32_t seed = 0; seed < 64; ++seed) {
    keys.emplace_back();
    for (const Input& in : random_draw(seed).inputs) keys.back().push_back(in.a);
  }
  for (const auto& attrs : keys) {
    std::set<unsigned> loads;
    for (const std::string& line : prolog_lines(attrs)) {
      std::istringstream words(line);
      std::string at, hex, op, rest;
      words >> at >> hex >> op;
      std::getline(words, rest);
      std::vector<std::string> operands;
      std::istringstream list(rest);
      for (std::string o; std::getline(list, o, ',');) operands.push_back(o.substr(o.find_first_not_of(' ')));
      if (op == "wait") break;
      if (op == "device_load") {
        ASSERT_GE(operands.size(), 6u) << line;
        for (size_t i : {3u, 5u})
          for (unsigned r : registers_of(operands[i])) loads.insert(r);
        continue;
      }
      ASSERT_FALSE(operands.empty()) << line;
      for (unsigned r : registers_of(operands[op == "icmpsel" ? 1 : 0]))
        EXPECT_EQ(loads.count(r), 0u) << "r" << r << " written while a load uses it: " << line;
    }
  }
}

}  // namespace
}  // namespace agx::compiler
