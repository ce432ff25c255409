// Test helpers: the bundled snapshot, loaded once, and a facade call (api_call) parsed as JSON — what the CLI's
// --format json and the JS API return for the same query.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "trainfit/api.h"
#include "trainfit/bundled.h"
#include "trainfit/snapshot.h"

namespace trainfit::test {

inline const Snapshot& bundled_snapshot() {
  static const Snapshot s = *load_snapshot(embedded_snapshot_json());
  return s;
}

inline nlohmann::json facade(const char* verb, const std::string& query) {
  return nlohmann::json::parse(api_call(verb, query, &bundled_snapshot()));
}

}  // namespace trainfit::test
