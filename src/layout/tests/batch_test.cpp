// `agx layout --batch`: columns, order, errors that keep going.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "layout/layout.h"

namespace agx::layout {
namespace AGX_UNITY_ID {

using testing::HasSubstr;

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

TEST(Batch, RowsInOrderWithResults) {
  auto out = run_batch(
      "format,width,height,depth,levels,samples,tiling\n"
      "R8G8B8A8_UNORM,8,7,1,4,1,gpu\n"
      "R8G8B8A8_UNORM,64,64,1,1,4,gpu_compressed\r\n"
      "\n"
      "R8_UNORM,81946,1,1,1,1,linear\n");
  ASSERT_TRUE(out.ok()) << out.error().message();
  auto lines = lines_of(*out);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], kBatchOutputHeader);
  EXPECT_EQ(lines[1], "R8G8B8A8_UNORM,8,7,1,4,1,gpu,640,0,640,0;256;384;512,");
  EXPECT_EQ(lines[2], "R8G8B8A8_UNORM,64,64,1,1,4,gpu_compressed,66048,65536,65536,0,");
  EXPECT_EQ(lines[3], "R8_UNORM,81946,1,1,1,1,linear,82048,0,82048,0,");
}

TEST(Batch, BadRowsKeepTheirInputAndTheRestStillPrint) {
  auto out = run_batch(
      "tiling,format,width,height,depth,levels,samples,mipmapped_z\n"
      "gpu,R8G8B8A8_UNROM,8,8,1,1,1,0\n"
      "linear,R8_UNORM,8,8,1,2,1,0\n"
      "gpu,R8_UNORM,x,8,1,1,1,0\n"
      "gpu,R8_UNORM,8,8\n"
      "gpu,R32_FLOAT,32,16,64,4,1,1\n"
      "gpu,\"R8_UNORM,8,8,1,1,1,0\n");
  ASSERT_TRUE(out.ok()) << out.error().message();
  auto lines = lines_of(*out);
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_THAT(lines[1], HasSubstr("R8G8B8A8_UNROM,8,8,1,1,1,gpu,,,,,\"line 2: unknown format"));
  EXPECT_THAT(lines[1], HasSubstr("R8G8B8A8_UNORM"));
  EXPECT_THAT(lines[2],
              HasSubstr("R8_UNORM,8,8,1,2,1,linear,,,,,line 3: linear images cannot be mipmapped"));
  EXPECT_THAT(lines[3], HasSubstr("line 4: width 'x' is not a decimal number"));
  EXPECT_THAT(lines[4], HasSubstr("line 5: expected 8 fields, found 4"));
  EXPECT_THAT(lines[5], HasSubstr("R32_FLOAT,32,16,64,4,1,gpu,204800,0,3200,"));
  EXPECT_THAT(lines[6], HasSubstr("line 7: unterminated quoted field"));
}

TEST(Batch, HeaderProblemsAreErrors) {
  EXPECT_FALSE(run_batch("").ok());
  EXPECT_FALSE(run_batch("format,width,height,depth,levels,samples\n").ok());
  EXPECT_FALSE(run_batch("format,width,height,depth,levels,samples,tiling,widht\n").ok());
  EXPECT_FALSE(run_batch("format,format,width,height,depth,levels,samples,tiling\n").ok());
  auto ok = run_batch("format,width,height,depth,levels,samples,tiling\n");
  ASSERT_TRUE(ok.ok());
  std::string header(kBatchOutputHeader);
  header += '\n';
  EXPECT_EQ(*ok, header);
}

TEST(Batch, QuotedFields) {
  auto f = split_csv_line("a,\"b,c\",\"d\"\"e\",");
  ASSERT_TRUE(f.ok());
  EXPECT_THAT(*f, testing::ElementsAre("a", "b,c", "d\"e", ""));
}

}  // namespace
}  // namespace agx::layout
