// `agx version`: what this build is.
#include <fmt/format.h>

#include "command.h"

namespace AGX_UNITY_ID {

void setup_version(agx::cli::Args& sub) {
  sub.callback([] { fmt::print("agx 0.1 (G13 / M1 profile)\n"); });
}

agx::cli::Command kVersion{"version", "Print the tool's version and GPU profile", setup_version};

}  // namespace AGX_UNITY_ID
