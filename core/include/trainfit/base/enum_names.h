// trainfit core — an enum's spellings as one table of {value, name} rows, read both ways (enum_name to print,
// enum_value to parse), so that what is written and what is read back cannot disagree. The job's enums are named in
// catalog/names.h, the snapshot's in storage/snapshot.cpp, the query's in query/query_internal.h.
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace trainfit {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

template <class E, size_t N>
constexpr const char* enum_name(const EnumName<E> (&table)[N], E v, const char* unknown = "?") {
  for (const auto& e : table)
    if (e.value == v) return e.name;
  return unknown;
}

template <class E, size_t N>
constexpr std::optional<E> enum_value(const EnumName<E> (&table)[N], std::string_view name) {
  for (const auto& e : table)
    if (name == e.name) return e.value;
  return std::nullopt;
}

}  // namespace trainfit
