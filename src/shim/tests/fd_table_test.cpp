// The descriptor and mapping records, without real descriptors or mappings.
#include "shim/fd_table.h"

#include <gtest/gtest.h>

namespace agx::shim {
namespace {

std::shared_ptr<kmd::File> new_file() { return kmd::open_file(kmd::default_device()); }

TEST(FdTable, InsertFindErase) {
  FdTable& t = FdTable::instance();
  const size_t before = t.size();
  auto open = std::make_shared<OpenNode>(OpenNode{&render_node(), new_file()});
  t.insert(100001, open);
  t.insert(100002, open);  // a dup shares the open
  EXPECT_EQ(t.size(), before + 2);
  EXPECT_EQ(t.find(100001), open);
  EXPECT_EQ(t.erase(100001), open);
  EXPECT_EQ(t.find(100001), nullptr);
  EXPECT_EQ(t.find(100002), open);
  EXPECT_EQ(t.erase(100003), nullptr);
  EXPECT_EQ(t.erase_range(100000, 100010).size(), 1u);
  EXPECT_EQ(t.size(), before);
}

TEST(FdTable, ReinsertReplacesAStaleEntry) {
  FdTable& t = FdTable::instance();
  auto a = std::make_shared<OpenNode>(OpenNode{&render_node(), new_file()});
  auto b = std::make_shared<OpenNode>(OpenNode{&render_node(), new_file()});
  t.insert(100020, a);
  t.insert(100020, b);
  EXPECT_EQ(t.find(100020), b);
  EXPECT_EQ(a.use_count(), 1);
  t.erase(100020);
}

TEST(FdTable, SplitsARangeIntoMappingsAndGaps) {
  FdTable& t = FdTable::instance();
  auto f = new_file();
  const uintptr_t base = uintptr_t{1} << 44;  // never a real mapping here
  t.add_mapping(reinterpret_cast<void*>(base + 0x1000), 0x2000, f);
  t.add_mapping(reinterpret_cast<void*>(base + 0x5000), 0x1000, f);
  auto pieces = t.split_range(base, 0x7000);
  ASSERT_EQ(pieces.size(), 5u);
  EXPECT_EQ(pieces[0].start, base);
  EXPECT_EQ(pieces[0].file, nullptr);
  EXPECT_EQ(pieces[1].start, base + 0x1000);
  EXPECT_EQ(pieces[1].length_B, 0x2000u);
  EXPECT_EQ(pieces[1].file, f);
  EXPECT_EQ(pieces[2].length_B, 0x2000u);
  EXPECT_EQ(pieces[2].file, nullptr);
  EXPECT_EQ(pieces[3].start, base + 0x5000);
  EXPECT_EQ(pieces[4].start, base + 0x6000);
  // Cut the middle page out of the first mapping: head and tail remain.
  t.remove_mapping_range(base + 0x1800, 0x800);
  pieces = t.split_range(base + 0x1000, 0x2000);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0].length_B, 0x800u);
  EXPECT_EQ(pieces[0].file, f);
  EXPECT_EQ(pieces[1].start, base + 0x1800);
  EXPECT_EQ(pieces[1].file, nullptr);
  EXPECT_EQ(pieces[2].start, base + 0x2000);
  EXPECT_EQ(pieces[2].length_B, 0x1000u);
  EXPECT_EQ(pieces[2].file, f);
  t.remove_mapping_range(base, 0x7000);
  pieces.clear();
  EXPECT_FALSE(t.has_mappings());
  EXPECT_EQ(f.use_count(), 1);
}

}  // namespace
}  // namespace agx::shim
