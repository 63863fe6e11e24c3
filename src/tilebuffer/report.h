// Text and JSON presentation of a tilebuffer layout (the model is
// tilebuffer.h); docs/tilebuffer.md specifies both formats.
#pragma once

#include <string>

#include "tilebuffer/tilebuffer.h"

namespace agx::tilebuffer {

std::string report_text(const Layout& layout);
std::string report_json(const Layout& layout);

}  // namespace agx::tilebuffer
