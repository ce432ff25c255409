// Test helpers: the bundled snapshot, loaded once, and a facade call (api_call) parsed as JSON — what the CLI's
// --format json and the JS API return for the same query.
#pragma once
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>

#include "trainfit/facade/api.h"
#include "trainfit/launch/recipe.h"
#include "trainfit/storage/bundled.h"
#include "trainfit/query/query.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit::test {

inline const Snapshot& bundled_snapshot() {
  static const Snapshot s = *load_snapshot(embedded_snapshot_json());
  return s;
}

// A copy a test may change, and a query parsed from JSON; a load or parse error fails the test with its reason.
inline Snapshot bundled_copy() {
  Result<Snapshot> s = load_snapshot(embedded_snapshot_json());
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().to_string());
  return s.ok() ? std::move(s).value() : Snapshot{};
}

inline Query query_of(const char* json) {
  Result<Query> q = parse_query_json(json);
  EXPECT_TRUE(q.ok()) << (q.ok() ? "" : q.error().to_string());
  return q.ok() ? std::move(q).value() : Query{};
}

// A GPU as data/inputs/gpus.json gives it (through the bundled snapshot, whose GPU rows the importer writes from
// it): tests never type a real GPU's figures (tests/layout/check_gpu_figures.py).
inline GpuSpec gpu(const std::string& id) {
  const int i = bundled_snapshot().find_gpu(id);
  EXPECT_GE(i, 0) << "GPU " << id << " is not in the bundled snapshot";
  return i >= 0 ? bundled_snapshot().gpus[i] : GpuSpec{};
}

inline nlohmann::json facade(const char* verb, const std::string& query) {
  return nlohmann::json::parse(api_call(verb, query, &bundled_snapshot()));
}

// The text of one launch file (RecipeFile::format, e.g. "megatron") of the query's recipe on the bundled snapshot; a
// recipe error fails the test with its reason.
inline std::string recipe_file(const char* query_json, const char* format) {
  Result<Recipe> r = make_recipe(query_of(query_json), bundled_snapshot());
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  std::string text;
  if (r.ok())
    for (const RecipeFile& f : r->files)
      if (f.format == format) text = f.text;
  return text;
}

}  // namespace trainfit::test
