// PNG files written and read back through libpng: each of the three
// formats keeps every pixel; bad images and files are clear errors.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "util/png.h"

namespace agx {
namespace AGX_UNITY_ID {

// The test binary's own directory under the system's temporary directory,
// made on first use and removed with everything in it when the process
// exits (ctest runs each test in its own process: nothing is left behind).
const std::filesystem::path& temp_dir() {
  struct Dir {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("agx_png_test_" + std::to_string(::getpid()));
    Dir() { std::filesystem::create_directories(path); }
    ~Dir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Dir dir;
  return dir.path;
}

std::string temp_path(const std::string& name) { return (temp_dir() / name).string(); }

PngImage pattern(PngFormat format, uint32_t w, uint32_t h) {
  PngImage image{w, h, format, {}};
  image.data.resize(size_t(w) * h * png_bytes_per_pixel(format));
  for (size_t i = 0; i < image.data.size(); ++i) image.data[i] = uint8_t(i * 37 + i / 7);
  return image;
}

class PngRoundTrip : public ::testing::TestWithParam<PngFormat> {};

TEST_P(PngRoundTrip, KeepsEveryPixel) {
  const PngImage image = pattern(GetParam(), 13, 7);
  const std::string path = temp_path(std::string("round_") + to_string(GetParam()) + ".png");
  ASSERT_TRUE(write_png(path, image).ok());
  auto back = read_png(path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->width_px, 13u);
  EXPECT_EQ(back->height_px, 7u);
  EXPECT_EQ(back->format, GetParam());
  EXPECT_EQ(back->data, image.data);
}

INSTANTIATE_TEST_SUITE_P(Formats, PngRoundTrip,
                         ::testing::Values(PngFormat::rgba8, PngFormat::grey8, PngFormat::grey16));

// 16-bit grey is stored big-endian: a host value 0x1234 reads back the same
// and the file holds 0x12 then 0x34.
TEST(Png, Grey16KeepsWordValues) {
  PngImage image{2, 1, PngFormat::grey16, {0x34, 0x12, 0xFF, 0x00}};
  const std::string path = temp_path("grey16_words.png");
  ASSERT_TRUE(write_png(path, image).ok());
  auto back = read_png(path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  uint16_t v[2];
  std::memcpy(v, back->data.data(), 4);
  EXPECT_EQ(v[0], 0x1234);
  EXPECT_EQ(v[1], 0x00FF);
}

TEST(Png, BadImagesAreErrors) {
  const std::string path = temp_path("bad.png");
  auto empty = write_png(path, PngImage{0, 4, PngFormat::grey8, {}});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message().find("0x4 pixels"), std::string::npos) << empty.error().message();
  auto short_data = write_png(path, PngImage{4, 4, PngFormat::rgba8, std::vector<uint8_t>(63)});
  ASSERT_FALSE(short_data.ok());
  EXPECT_NE(short_data.error().message().find("63 bytes"), std::string::npos) << short_data.error().message();
  auto dir = write_png("/nonexistent-dir/x.png", pattern(PngFormat::grey8, 2, 2));
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().message().find("/nonexistent-dir/x.png: cannot create"), std::string::npos);
}

TEST(Png, BadFilesAreErrors) {
  auto missing = read_png(temp_path("missing.png"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("cannot open"), std::string::npos) << missing.error().message();
  const std::string text = temp_path("text.png");
  std::ofstream(text) << "not a png at all";
  auto not_png = read_png(text);
  ASSERT_FALSE(not_png.ok());
  EXPECT_NE(not_png.error().message().find("no PNG signature"), std::string::npos) << not_png.error().message();
  // A real PNG cut short: libpng's error comes back as ours.
  const std::string whole = temp_path("whole.png");
  ASSERT_TRUE(write_png(whole, pattern(PngFormat::rgba8, 64, 64)).ok());
  std::ifstream in(whole, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  const std::string cut = temp_path("cut.png");
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  auto truncated = read_png(cut);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().message().find("libpng"), std::string::npos) << truncated.error().message();
}

}  // namespace
}  // namespace agx
