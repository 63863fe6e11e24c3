// Lookups over the tables of tables.h.
#include "cmdstream/tables.h"

#include <algorithm>
#include <cctype>

namespace agx::cmdstream {
namespace {

bool same_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

template <class T, size_t N>
const T* find_by_name(const T* const (&all)[N], std::string_view name) {
  for (const T* t : all)
    if (t->name == name) return t;
  for (const T* t : all)
    if (same_ignoring_case(t->name, name)) return t;
  return nullptr;
}

}  // namespace

const StructDesc* find_struct(std::string_view name) { return find_by_name(kAllStructs, name); }
const EnumDesc* find_enum(std::string_view name) { return find_by_name(kAllEnums, name); }

}  // namespace agx::cmdstream
