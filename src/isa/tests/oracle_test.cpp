// Disassembly against texts produced by running dougallj/applegpu itself
// (tests/data/applegpu_oracle.tsv; its header says how they were made).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>

#include "isa/isa.h"
#include "isa/tests/data_file.h"
#include "util/hex.h"

namespace agx::isa {
namespace AGX_UNITY_ID {

constexpr std::string_view kRaises = "!raises ";

// Rows whose encoding the project takes from Mesa (docs/isa.md): applegpu's
// mnemonic -> ours; the operands print as applegpu prints them. (applegpu's
// TODO.ld/st_tile row already printed ld_tile/st_tile.)
std::string with_our_mnemonic(std::string text) {
  constexpr std::pair<std::string_view, std::string_view> kRenamed[] = {{"TODO.ldcf", "ldcf"}};
  for (auto [applegpu, ours] : kRenamed)
    if (text.starts_with(applegpu) && text.size() > 16 && text[applegpu.size()] == ' ') {
      std::string m(ours);
      m.resize(16, ' ');
      return m + text.substr(16);
    }
  return text;
}

// applegpu.disassemble_bytes looks at up to 12 bytes, zero beyond the input.
std::vector<uint8_t> padded(std::vector<uint8_t> bytes) {
  if (bytes.size() < 12) bytes.resize(12, 0);
  return bytes;
}

TEST(Oracle, ApplegpuTextsForEveryReachableInstruction) {
  auto rows = testing::read_rows("tests/data/applegpu_oracle.tsv");
  ASSERT_GT(rows.size(), 800u);
  std::vector<bool> seen(kOpcodeCount);
  size_t texts = 0, raises = 0;
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 2u);
    auto bytes = parse_hex(r[0]);
    ASSERT_TRUE(bytes.ok()) << r[0];
    auto in = decode(padded(*bytes));
    if (std::string_view(r[1]).starts_with(kRaises)) {
      // applegpu raises on these: we must report an error, not print text.
      EXPECT_FALSE(in.ok()) << r[0] << " decodes as: " << disassemble(*in, std::nullopt);
      ++raises;
      continue;
    }
    ASSERT_TRUE(in.ok()) << r[0] << ": " << in.error().message();
    EXPECT_EQ(disassemble(*in, std::nullopt), with_our_mnemonic(r[1])) << r[0];
    seen[static_cast<size_t>(in->op)] = true;
    ++texts;
  }
  EXPECT_GT(texts, 600u);
  EXPECT_GT(raises, 100u);
  std::string missing;
  for (size_t i = 0; i < kOpcodeCount; ++i)
    if (!seen[i]) missing += std::string(op_info(static_cast<Opcode>(i)).id) + " ";
  // Rows that an earlier row always shadows never match first, in applegpu too;
  // applegpu printed no ld_tile (its TODO.ld/st_tile samples all had load 0):
  // tests/mesa_test.cpp checks ld_tile against Mesa's encodings.
  EXPECT_EQ(missing, "ld_tile stack_get_ptr todo_stack_adjust todo_unk51 todo_stack_adjust2 ");
}

}  // namespace
}  // namespace agx::isa
