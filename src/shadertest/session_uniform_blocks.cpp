// `uniform TYPE NAME VALUES` of a uniform block member: the values go to the
// block's buffer at the member's offset (element i of an array at
// offset + i x the array stride), matrices column by column at the matrix
// stride, or row by row when the member is row-major, as
// X11Libre/mirror.fdo.piglit tests/shaders/shader_runner.c set_ubo_uniform
// writes them (the file lists matrices in column-major order either way).
#include <algorithm>
#include <cstring>

#include "shadertest/session.h"

namespace agx::shadertest {

// The block's buffer: zero-filled GL_UNIFORM_BLOCK_DATA_SIZE bytes, made
// when the program needs it (shader_runner's setup_ubos).
Result<runtime::Buffer*> Session::uniform_buffer(const runtime::UniformBlock& block) {
  auto it = ubos_.find(block.binding);
  if (it != ubos_.end()) return it->second.get();
  AGX_TRY(auto buffer, device_.create_buffer(std::max<uint32_t>(block.size_B, 16),
                                             fmt::format("uniform block {}", block.name)));
  runtime::Buffer* out = buffer.get();
  ubos_[block.binding] = std::move(buffer);
  return out;
}

Status Session::set_block_member(const CmdUniform& u, const runtime::MemberAt& found) {
  runtime::MemberAt at = found;
  if (block_data_.array_index != 0) {
    // `ubo array index N`: the same member of block element "B[N]" (an
    // array of blocks is one block per element, the member lookup finds
    // element 0's).
    const std::string& first = found.block->name;
    const bool array = first.size() > 3 && first.compare(first.size() - 3, 3, "[0]") == 0;
    const std::string want = array ? fmt::format("{}[{}]", first.substr(0, first.size() - 3), block_data_.array_index) : "";
    auto b = std::find_if(uniform_blocks_.begin(), uniform_blocks_.end(), [&](const runtime::UniformBlock& x) { return array && x.name == want; });
    if (b == uniform_blocks_.end())
      return Error::invalid_argument("uniform {}: 'ubo array index {}' but block {} has no such element", u.name,
                                     block_data_.array_index, first);
    at.block = &*b;
  }
  AGX_TRY(runtime::Buffer* ubo, uniform_buffer(*at.block));
  const runtime::BlockMember& m = *at.member;
  uint8_t* base = ubo->host().data();
  const size_t size_B = ubo->size_B();
  if (u.type.columns > 1) {
    if (m.matrix_stride_B == 0)
      return Error::invalid_argument("uniform {}: a {} value for a member that is not a matrix", u.name, u.type.name);
    const uint32_t cols = u.type.columns, rows = u.type.rows;
    if (u.data.size() != size_t(cols) * rows * 4)
      return Error::unsupported("uniform {}: {} matrices are not supported in uniform blocks", u.name, u.type.name);
    for (uint32_t c = 0; c < cols; ++c)
      for (uint32_t r = 0; r < rows; ++r) {
        const uint64_t at_B = at.offset_B + uint64_t(m.row_major ? r : c) * m.matrix_stride_B + 4 * (m.row_major ? c : r);
        if (at_B + 4 > size_B) return Error::invalid_argument("uniform {}: past the end of block {}", u.name, at.block->name);
        std::memcpy(base + at_B, u.data.data() + (size_t(c) * rows + r) * 4, 4);
      }
    return {};
  }
  if (at.offset_B + u.data.size() > size_B)
    return Error::invalid_argument("uniform {}: {} bytes at offset {} are past the end of block {} ({} bytes)", u.name,
                                   u.data.size(), at.offset_B, at.block->name, size_B);
  std::memcpy(base + at.offset_B, u.data.data(), u.data.size());
  return {};
}

}  // namespace agx::shadertest
