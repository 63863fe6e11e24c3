// Reads the unit's test data: lines of TAB-separated columns, '#' comments.
#pragma once

#include <fstream>
#include <string>
#include <vector>

namespace agx::isa::testing {

inline std::vector<std::vector<std::string>> read_rows(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    size_t start = 0;
    for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
      cols.push_back(line.substr(start, tab - start));
    cols.push_back(line.substr(start));
    rows.push_back(cols);
  }
  return rows;
}

}  // namespace agx::isa::testing
