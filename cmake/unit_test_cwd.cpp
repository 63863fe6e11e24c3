// Linked into every agx_<unit>_tests binary (cmake/agx_options.cmake): unit
// tests read their data as tests/... relative to the unit folder, which CTest
// makes the working directory. This does the same when the binary is run by
// hand from anywhere, before any test starts.
#include <unistd.h>

namespace {
[[maybe_unused]] const int kInUnitFolder = ::chdir(AGX_UNIT_SOURCE_DIR);
}  // namespace
