// The --batch line protocols and the JSON value conventions of
// docs/cmdstream.md.
#include <gtest/gtest.h>

#include "cmdstream/cmdstream.h"

namespace agx::cmdstream {
namespace AGX_UNITY_ID {

TEST(Batch, PackLines) {
  EXPECT_EQ(batch_pack_line(R"({"struct": "CDM Launch Word 0", "fields": {"Mode": "Indirect local"}})"),
            R"({"hex":"00000010"})");  // Indirect local (2) at bit 27
  // Logical values: a minus(1) Width is the width, a groups count the count.
  EXPECT_EQ(batch_pack_line(R"({"struct": "CR ISP ZLS Pixels", "fields": {"X": 1, "Y": 2}})"),
            R"({"hex":"00800000"})");  // X stores 0, Y stores 1 at bit 15
  EXPECT_EQ(batch_pack_line(R"({"struct": "USC Registers", "fields": {"Register count": 256}})"),
            R"({"hex":"8d000000"})");  // 32 groups of 8: stored as 0
  EXPECT_EQ(batch_pack_line(R"({"struct": "USC Registers", "fields": {"Register count": 9}})"),
            R"({"hex":"8d020000"})");  // rounded up to 2 groups
  EXPECT_EQ(batch_pack_line(R"({"struct": "USC Registers", "fields": {"Tag": "Registers"}})"),
            R"({"hex":"8d000000"})");  // an exact field may be given
}

TEST(Batch, PackErrorsNeverThrow) {
  for (const char* line :
       {"", "[]", "{", R"({"struct": 5, "fields": {}})", R"({"struct": "Texture"})",
        R"({"struct": "Texture", "fields": [1]})", R"({"struct": "Texture", "fields": {"Width": "x"}})",
        R"({"struct": "Texture", "fields": {"Width": 1e30}})", R"({"struct": "Texture", "fields": {"Width": null}})",
        "\xff\xfe"}) {
    std::string out = batch_pack_line(line);
    EXPECT_EQ(out.rfind("{\"error\":", 0), 0u) << line << " -> " << out;
  }
  EXPECT_EQ(batch_pack_line(R"({"struct": "USC Shader", "fields": {"Tag": "Texture"}})"),
            R"j({"error":"USC Shader: field 'Tag' (8 bits at bit 0): must be exactly Shader (13), got 221"})j");
  EXPECT_EQ(batch_pack_line(R"({"struct": "Texture", "fields": {"Width": 16385}})"),
            R"j({"error":"Texture: field 'Width' (14 bits at bit 28): 16385 does not fit (largest 16384)"})j");
}

TEST(Batch, UnpackLines) {
  EXPECT_EQ(batch_unpack_line(R"({"struct": "CR ISP ZLS Pixels", "hex": "00800000"})"),
            R"({"fields":{"X":1,"Y":2}})");
  EXPECT_EQ(batch_unpack_line(R"({"struct": "Sparse block", "hex": "ffffffff"})"),
            R"({"fields":{"Address":1099511611392,"Unknown":true,"Enabled":true},"unknown_bits":"0000003c"})");
  EXPECT_EQ(batch_unpack_line(R"({"struct": "Sampler", "hex": "6000402000000000"})"),
            R"({"fields":{"Minimum LOD":1.5,"Maximum LOD":0.0,"Maximum anisotropy":16,"Magnify":"Nearest",)"
            R"("Minify":"Nearest","Mip filter":"None","Wrap S":"Repeat","Wrap T":"Clamp to edge",)"
            R"("Wrap R":"Clamp to edge","Pixel coordinates":false,"Compare func":"Lequal",)"
            R"("Compare enable":false,"Border colour":"Transparent black","Seamful cube maps":false}})");
  // An unnamed enum value is a number; a wrong exact value still decodes.
  EXPECT_EQ(batch_unpack_line(R"({"struct": "CDM Stream Return", "hex": "000000a000000000"})"),
            R"({"fields":{"Block Type":5}})");
  for (const char* line : {R"({"struct": "Texture", "hex": "00"})", R"({"struct": "Texture", "hex": 5})",
                           R"({"struct": "Nope", "hex": "00"})", "garbage"}) {
    std::string out = batch_unpack_line(line);
    EXPECT_EQ(out.rfind("{\"error\":", 0), 0u) << line << " -> " << out;
  }
}

TEST(Batch, FloatsAsNumbersAndNonFiniteAsStrings) {
  EXPECT_EQ(batch_unpack_line(R"({"struct": "W Clamp", "hex": "0000c07f"})"), R"({"fields":{"W Clamp":"nan"}})");
  EXPECT_EQ(batch_unpack_line(R"({"struct": "W Clamp", "hex": "000080ff"})"), R"({"fields":{"W Clamp":"-inf"}})");
  EXPECT_EQ(batch_pack_line(R"({"struct": "W Clamp", "fields": {"W Clamp": "inf"}})"), R"({"hex":"0000807f"})");
  EXPECT_EQ(batch_pack_line(R"({"struct": "W Clamp", "fields": {"W Clamp": -2.5}})"), R"({"hex":"000020c0"})");
  EXPECT_EQ(batch_pack_line(R"({"struct": "W Clamp", "fields": {"W Clamp": 1e300}})"),
            R"({"error":"W Clamp: field 'W Clamp': 1e+300 is out of the float range"})");
}

}  // namespace
}  // namespace agx::cmdstream
