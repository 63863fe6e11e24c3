// The printed IR of a function as lines, for tests that compare a pass's
// output with the IR it must produce.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir.h"

namespace agx::compiler::test {

inline std::vector<std::string> lines(const Function& f) {
  std::vector<std::string> out;
  std::string text = print(f), cur;
  for (char c : text) {
    if (c == '\n') { out.push_back(cur); cur.clear(); } else { cur += c; }
  }
  return out;
}

}  // namespace agx::compiler::test
