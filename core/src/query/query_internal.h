// trainfit core — what the query model's pieces share: the enum name tables, the key table's entries, and the
// stages every reader and writer goes through (apply a value, finish and check a query, the written-key set).
// Internal to the core: not installed with trainfit/*.h.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>
#include <nlohmann/json.hpp>

#include "trainfit/query/query.h"

namespace trainfit::query_detail {

using json = nlohmann::json;

// ---- enum names ----
// The same strings are used in JSON, hashes, CLI flags and UI combos: the job's enums are named in catalog/names.h,
// the query's own here.
using trainfit::EnumName;
using trainfit::enum_name;
using trainfit::enum_value;
inline constexpr EnumName<SortKey> kSortKeys[] = {{SortKey::total_cost, "cost"},
                                           {SortKey::time, "time"},
                                           {SortKey::usd_per_mtok, "usd_per_mtok"},
                                           {SortKey::cost_under_deadline, "cost_under_deadline"},
                                           {SortKey::dev_cycle, "dev_cycle"}};
inline constexpr EnumName<PricingFilter> kPricings[] = {
    {PricingFilter::any, "any"}, {PricingFilter::on_demand, "on-demand"}, {PricingFilter::spot, "spot"},
    {PricingFilter::reserved, "reserved"}};
inline constexpr EnumName<InterconnectFilter> kInterconnects[] = {{InterconnectFilter::any, "any"},
                                                           {InterconnectFilter::nvlink, "nvlink"},
                                                           {InterconnectFilter::nvswitch, "nvswitch"},
                                                           {InterconnectFilter::pcie, "pcie"}};

template <class E, size_t N>
std::string enum_choices(const EnumName<E> (&table)[N]) {
  std::string s;
  for (const auto& e : table) {
    if (!s.empty()) s += ", ";
    s += e.name;
  }
  return s;
}

// ---- the key table ----
// Each key: its path, its type, its range, how to read it from and write it into a Query (query_keys.cpp).
enum class Kind { integer, number, boolean, text, list };

struct Key {
  const char* path;
  Kind kind;
  double min, max;  // for integer / number
  std::function<json(const Query&)> get;
  // Returns an empty string on success, else the problem (the caller prefixes the key).
  std::function<std::string(Query&, const json&)> set;
  // An architecture knob: an inline model writes it only when it differs from its family's default.
  bool knob = false;
};

// Every query key, in the order keys are applied and written (that order is part of the link format).
const std::vector<Key>& keys();
const Key* find_key(std::string_view path);

// Type- and range-check one value, then store it. `v` is already the right JSON kind for Kind::text etc.
// Returns an empty string on success, else the problem (the caller prefixes the key).
std::string apply_value(Query& q, const Key& k, const json& v);

// ---- stages shared by the readers and writers ----
// The shortest text that round-trips, with a compact exponent ("7e9", not "7e+09") (query.cpp).
std::string fmt_num(double v);

// The last step of both parsers: derive what is derived, then the cross-field checks (query_check.cpp).
Result<Query> finish(Query q);

// A query whose model is `a`'s family defaults (what model.arch alone implies) (query.cpp).
const Query& family_query(Arch a);

// The set of keys written for a query: the ones that differ from the default (or all, when full).
// `model.*` keys are only written for inline models; `parallel.*` only when the layout is manual.
template <class Emit>
void for_each_written(const Query& q, bool full, Emit emit) {
  static const Query d = default_query();
  const bool inline_model = q.model_id == "custom";
  for (const auto& k : keys()) {
    std::string_view path = k.path;
    const bool is_model_field = path.rfind("model.", 0) == 0;
    if (path == "model") {
      if (inline_model) continue;
    } else if (is_model_field) {
      if (!inline_model) continue;
      if (q.model.arch == Arch::params_only && path != "model.params" && path != "model.arch" && path != "model.name")
        continue;
      if (q.model.arch != Arch::params_only && path == "model.params") continue;
      json v = k.get(q);  // inline models are written whole: they must reproduce exactly
      // A knob at its family's default is implied by model.arch: links and short JSON leave it out.
      if (!full && k.knob && v == k.get(family_query(q.model.arch))) continue;
      if (v.is_number() && v.get<double>() < k.min) continue;  // 0 = "derive it" (num_kv_heads): the default
      emit(k, v);
      continue;
    }
    if (path == "parallel") continue;  // implied by parallel.* keys; see query_to_json / query_to_hash
    if (path.rfind("parallel.", 0) == 0 && q.train.parallel.automatic) continue;
    json v = k.get(q);
    if (!full && v == k.get(d)) continue;
    // Below the key's range is only ever an internal "use the documented default" sentinel (overhead_GiB,
    // fragmentation = -1): the parser would reject it, so leave it out and let parsing restore the default.
    if (v.is_number() && v.get<double>() < k.min) continue;
    emit(k, v);
  }
}

}  // namespace trainfit::query_detail
