// Test helper: one SIMD group running assembled code (at kCode) on the
// USC emulator with the texture unit's hook attached, its texture state
// registers in `state`.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "gpu/texture/texture.h"
#include "isa/isa.h"
#include "texture_helpers.h"

namespace agx::gpu::test {

struct TextureMachine {
  static constexpr GpuVa kCode = 0x10000;
  usc::RegionMemory mem;
  TestImage img;
  TextureState state;
  usc::Core core = usc::make_core();

  Status run(const char* text) {
    auto assembled = isa::assemble_program(text, kCode);
    EXPECT_TRUE(assembled.ok()) << (assembled.ok() ? "" : assembled.error().message());
    std::vector<uint8_t> code = assembled.ok() ? *assembled : std::vector<uint8_t>{};
    code.insert(code.end(), {0x88, 0x00});  // stop
    if (mem.regions().count(kCode) == 0) {
      EXPECT_TRUE(mem.map(kCode, code).ok());
    }
    AGX_TRY(usc::Program prog, usc::compile(code, kCode));
    TextureHook hook(mem, state);
    usc::Memories m;
    m.device = &mem;
    m.fixed_function = &hook;
    core.pc = kCode;
    AGX_TRY(usc::StopReason r, usc::run(prog, core, m, usc::RunOptions{}));
    (void)r;
    return {};
  }
};

}  // namespace agx::gpu::test
