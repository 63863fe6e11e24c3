// PNG files through libpng's classic interface. libpng reports errors by
// longjmp; the functions that call into it keep no C++ objects with
// destructors alive across those calls (rows are prepared beforehand).
#include "util/png.h"

#include <png.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>

namespace agx {

namespace {

constexpr uint32_t kMaxSide_px = 1u << 24;
constexpr uint64_t kMaxPixels = uint64_t{1} << 28;

struct File {
  std::FILE* f = nullptr;
  ~File() {
    if (f) std::fclose(f);
  }
};

// Error text libpng hands to its error callback, kept for the message.
struct PngError {
  char text[256] = {};
};

void on_error(png_structp png, png_const_charp message) {
  auto* e = static_cast<PngError*>(png_get_error_ptr(png));
  if (e) std::snprintf(e->text, sizeof e->text, "%s", message);
  png_longjmp(png, 1);
}
void on_warning(png_structp, png_const_charp) {}

int color_type(PngFormat format) { return format == PngFormat::rgba8 ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_GRAY; }
int bit_depth(PngFormat format) { return format == PngFormat::grey16 ? 16 : 8; }

// True when libpng completed; false with e->text set otherwise.
bool write_rows(std::FILE* f, const PngImage& image, png_bytep* rows, PngError* e) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, e, on_error, on_warning);
  if (!png) return false;
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, image.width_px, image.height_px, bit_depth(image.format), color_type(image.format),
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (image.format == PngFormat::grey16) png_set_swap(png);  // host little-endian words; PNG is big-endian
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

struct Header {
  png_uint_32 width = 0, height = 0;
  int depth = 0, type = 0, interlace = 0;
};

// Reads the header, then (when `out` has the rows) the pixels.
bool read_header(std::FILE* f, Header* h, PngImage* out, PngError* e) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, e, on_error, on_warning);
  if (!png) return false;
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_init_io(png, f);
  png_set_user_limits(png, kMaxSide_px, kMaxSide_px);
  png_read_info(png, info);
  png_get_IHDR(png, info, &h->width, &h->height, &h->depth, &h->type, &h->interlace, nullptr, nullptr);
  const bool ok_format = (h->type == PNG_COLOR_TYPE_RGBA && h->depth == 8) ||
                         (h->type == PNG_COLOR_TYPE_GRAY && (h->depth == 8 || h->depth == 16));
  if (ok_format && h->interlace == PNG_INTERLACE_NONE && out) {
    if (h->depth == 16) png_set_swap(png);
    const size_t stride = png_get_rowbytes(png, info);
    if (out->data.size() == stride * h->height) {
      for (png_uint_32 y = 0; y < h->height; ++y) png_read_row(png, out->data.data() + stride * y, nullptr);
      png_read_end(png, nullptr);
    } else {
      std::snprintf(e->text, sizeof e->text, "row size %zu does not match the image", stride);
      png_destroy_read_struct(&png, &info, nullptr);
      return false;
    }
  }
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

}  // namespace

uint32_t png_bytes_per_pixel(PngFormat format) {
  switch (format) {
    case PngFormat::rgba8: return 4;
    case PngFormat::grey8: return 1;
    case PngFormat::grey16: return 2;
  }
  return 0;
}

const char* to_string(PngFormat format) {
  switch (format) {
    case PngFormat::rgba8: return "rgba8";
    case PngFormat::grey8: return "grey8";
    case PngFormat::grey16: return "grey16";
  }
  return "?";
}

Status write_png(const std::string& path, const PngImage& image) {
  if (image.width_px == 0 || image.height_px == 0 || image.width_px > kMaxSide_px || image.height_px > kMaxSide_px)
    return Error::invalid_argument("{}: a PNG of {}x{} pixels (1..{} a side)", path, image.width_px, image.height_px,
                                   kMaxSide_px);
  const size_t stride = size_t(image.width_px) * png_bytes_per_pixel(image.format);
  if (image.data.size() != stride * image.height_px)
    return Error::invalid_argument("{}: {} bytes of pixels for a {}x{} {} image ({} expected)", path,
                                   image.data.size(), image.width_px, image.height_px, to_string(image.format),
                                   stride * image.height_px);
  std::vector<png_bytep> rows(image.height_px);
  for (uint32_t y = 0; y < image.height_px; ++y)
    rows[y] = const_cast<png_bytep>(image.data.data() + stride * y);  // libpng only reads them
  File f{std::fopen(path.c_str(), "wb")};
  if (!f.f) return Error::io("{}: cannot create ({})", path, std::strerror(errno));
  PngError e;
  if (!write_rows(f.f, image, rows.data(), &e)) return Error::io("{}: libpng: {}", path, e.text);
  if (std::fflush(f.f) != 0 || std::ferror(f.f)) return Error::io("{}: write failed ({})", path, std::strerror(errno));
  return {};
}

Result<PngImage> read_png(const std::string& path) {
  File f{std::fopen(path.c_str(), "rb")};
  if (!f.f) return Error::io("{}: cannot open ({})", path, std::strerror(errno));
  uint8_t sig[8] = {};
  if (std::fread(sig, 1, 8, f.f) != 8 || png_sig_cmp(sig, 0, 8) != 0)
    return Error::decode("{}: not a PNG file (no PNG signature)", path);
  std::rewind(f.f);
  Header h;
  PngError e;
  if (!read_header(f.f, &h, nullptr, &e)) return Error::decode("{}: libpng: {}", path, e.text);
  PngImage image;
  image.width_px = h.width;
  image.height_px = h.height;
  if (h.type == PNG_COLOR_TYPE_RGBA && h.depth == 8)
    image.format = PngFormat::rgba8;
  else if (h.type == PNG_COLOR_TYPE_GRAY && h.depth == 8)
    image.format = PngFormat::grey8;
  else if (h.type == PNG_COLOR_TYPE_GRAY && h.depth == 16)
    image.format = PngFormat::grey16;
  else
    return Error::unsupported("{}: PNG colour type {} of {} bits (only 8-bit RGBA and 8/16-bit grey)", path, h.type,
                              h.depth);
  if (h.interlace != PNG_INTERLACE_NONE) return Error::unsupported("{}: interlaced PNG", path);
  if (uint64_t(h.width) * h.height > kMaxPixels)
    return Error::limit("{}: {}x{} pixels (at most {} read)", path, h.width, h.height, kMaxPixels);
  image.data.resize(size_t(h.width) * h.height * png_bytes_per_pixel(image.format));
  std::rewind(f.f);
  if (!read_header(f.f, &h, &image, &e)) return Error::decode("{}: libpng: {}", path, e.text);
  return image;
}

}  // namespace agx
