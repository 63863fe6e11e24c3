// The render command's register fields held to Mesa's values: ppp_ctrl
// (0x202), isp_merge_upper_x / _y (1.732051f / width, / height) and
// isp_zls_pixels (the render's size); 0 reads as not set, and any other
// value faults naming the field (docs/gpu.md).
#include "pdm_fixture.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

class PdmFields : public RenderTest {
 protected:
  void SetUp() override {
    target_of("R8G8B8A8_UNORM", 40, 24);
    clear_and_store(0.0f, 1.0f, 0.0f, 1.0f);
  }
  void expect_fault(const std::string& what) {
    auto st = run();
    ASSERT_FALSE(st.ok()) << what;
    EXPECT_NE(st.error().message().find(what), std::string::npos) << st.error().message();
    EXPECT_EQ(last_fault.unit, GpuUnit::pdm);
  }
  void expect_drawn() {
    auto st = run();
    ASSERT_TRUE(st.ok()) << st.error().message();
    EXPECT_EQ(pixel(39, 23), (std::array<uint8_t, 4>{0, 255, 0, 255}));
  }
};

TEST_F(PdmFields, MesasValuesAndZeroRenderTheSame) {
  expect_drawn();  // every field 0
  render.ppp_ctrl = 0x202;
  render.isp_merge_upper_x = f2u(1.732051f / 40.0f);
  render.isp_merge_upper_y = f2u(1.732051f / 24.0f);
  render.isp_zls_pixels = (40 - 1) | (24 - 1) << 15;
  expect_drawn();
}

TEST_F(PdmFields, PppControlOtherThanMesasFaults) {
  render.ppp_ctrl = 0x203;  // OpenGL set as well
  expect_fault("ppp_ctrl 0x203 (OpenGL 1, Enable W Clamp 1, Default point size 0, Fixed point format 1): only "
               "Mesa's 0x202 (or 0) is modelled");
}

TEST_F(PdmFields, MergeBoundsOtherThanMesasFault) {
  render.isp_merge_upper_x = f2u(1.732051f * 40.0f);  // the UAPI comment's formula
  expect_fault("isp_merge_upper_x 0x");
  expect_fault("Mesa sets 0x" + fmt::format("{:08x}", f2u(1.732051f / 40.0f)) + ", 1.732051f / width 40");
  render.isp_merge_upper_x = 0;
  render.isp_merge_upper_y = f2u(1.732051f / 40.0f);  // the width's value
  expect_fault("isp_merge_upper_y");
}

TEST_F(PdmFields, ZlsPixelsOfAnotherSizeOrWithReservedBitsFault) {
  render.isp_zls_pixels = (64 - 1) | (24 - 1) << 15;
  expect_fault("isp_zls_pixels 64x24: a depth / stencil buffer of another size than the render (40x24) is not "
               "modelled");
  render.isp_zls_pixels = (40 - 1) | (24 - 1) << 15 | 1u << 31;
  expect_fault("isp_zls_pixels");
}

}  // namespace
}  // namespace agx::gpu::test
