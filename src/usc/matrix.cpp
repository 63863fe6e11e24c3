// simd_matrix_fmadd16/32: being written (see docs/usc.md).
#include "usc/internal.h"

namespace agx::usc::detail {

Result<bool> compile_matrix(const isa::Instr&, Step&) { return false; }

}  // namespace agx::usc::detail
