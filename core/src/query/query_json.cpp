// trainfit core — the query's JSON form: the reader (objects applied in key-table order, a syntax error reported
// near the key it follows) and the writer (only the keys that differ from the default, unless full).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

#include "base/json_reader.h"
#include "query/query_internal.h"

namespace trainfit {
namespace query_detail {
namespace {

// The order in which keys are applied matters for one thing: a preset `model` must be applied before
// inline `model.*` overrides. JSON objects are applied in key-table order, not text order, for that reason.
// The query's nested objects (the key table's "group.key" paths), in the order they are applied.
constexpr const char* kGroups[] = {"model", "parallel", "moe", "dataset", "filters", "cost", "target", "calibration"};

bool is_group(std::string_view path) {
  for (const char* g : kGroups)
    if (path == g) return true;
  return false;
}

std::string apply_object(Query& q, const json& obj, const std::string& prefix, std::string* bad_field) {
  // Check every key first, so a typo is reported even when another field is also wrong.
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (prefix.empty() && is_group(path)) {
      if (it.value().is_object()) continue;
      if (!find_key(path)) {
        *bad_field = path;
        return "must be an object";
      }
      continue;
    }
    if (!find_key(path)) {
      *bad_field = path;
      return "unknown key";
    }
  }
  // Apply in key-table order, not text order: a preset `model` must be applied before anything that
  // depends on it, whatever order the user wrote the keys in.
  for (const auto& k : keys()) {
    std::string_view path = k.path;
    if (!prefix.empty()) {
      if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0 || path[prefix.size()] != '.')
        continue;
      path.remove_prefix(prefix.size() + 1);
    }
    if (path.find('.') != std::string_view::npos) continue;  // visited through its group
    auto it = obj.find(std::string(path));
    if (it == obj.end() || it->is_object()) continue;
    std::string e = apply_value(q, k, *it);
    if (!e.empty()) {
      *bad_field = k.path;
      return e;
    }
  }
  if (!prefix.empty()) return "";
  for (const char* group : kGroups) {
    auto it = obj.find(group);
    if (it == obj.end() || !it->is_object()) continue;
    const std::string sub = group;
    if (sub == "model") {
      // Inline model: an empty custom spec, filled from the object.
      q.model = ModelSpec{};
      q.model.id = "custom";
      q.model.name = "Custom model";
      q.model_id = "custom";
    }
    if (sub == "parallel") q.train.parallel.automatic = false;
    std::string e = apply_object(q, *it, sub, bad_field);
    if (!e.empty()) return e;
    if (sub == "model" && q.model.params > 0 && q.model.hidden_size == 0) q.model.arch = Arch::params_only;
  }
  return "";
}

json exact_number(double d) {
  if (d == std::floor(d) && std::fabs(d) < 9e15) return json(static_cast<int64_t>(d));
  return json(d);
}

// Where and why a query is not JSON, so `{"seq_len": NaN}` is reported as a problem near seq_len rather than
// a bare "invalid": nlohmann's reason and position, plus the last key read before that position.
std::string json_syntax_problem(std::string_view text) {
  size_t at = text.size();
  std::string why;
  try {
    [[maybe_unused]] const json j = json::parse(text.begin(), text.end());  // throws the parse_error to read
  } catch (const json::parse_error& e) {
    at = std::min<size_t>(e.byte, text.size());
    why = e.what();
    const size_t p = why.find("parse error at ");
    if (p != std::string::npos) why = why.substr(p + 15);  // drop "[json.exception.parse_error.101] "
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (why.size() > 160) why = why.substr(0, 157) + "...";
  // Last `"name":` before the error (string-aware scan; the text is at most 1 MiB).
  std::string key;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] != '"') continue;
    const size_t start = ++i;
    while (i < at && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
    if (i >= at) break;
    size_t j = i + 1;
    while (j < at && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) ++j;
    if (j < at && text[j] == ':') key = std::string(text.substr(start, std::min<size_t>(i - start, 64)));
  }
  std::string out;
  if (!key.empty()) out += " after key \"" + key + "\"";
  if (!why.empty()) out += " (" + why + ")";
  return out;
}

}  // namespace
}  // namespace query_detail

using namespace query_detail;

namespace {
Result<Query> parse_json(std::string_view text, bool whole) {
  if (text.size() > (1u << 20)) return Error{"", "query is too large (the limit is 1 MiB)"};
  // A query nests three levels at most; refuse deep documents before nlohmann builds a tree of them
  // (a megabyte of '[' took seconds to build and tear down in a Debug build).
  if (jsonr::json_nesting_exceeds(text, 16)) return Error{"", "query is nested too deeply (the limit is 16 levels)"};
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Error{"", "query is not valid JSON" + json_syntax_problem(text)};
  if (!doc.is_object()) return Error{"", "query must be a JSON object"};
  Query q = default_query();
  std::string field;
  try {
    std::string e = apply_object(q, doc, "", &field);
    if (!e.empty()) return Error{field, e};
  } catch (const std::exception& ex) {
    return Error{field, std::string("invalid value: ") + ex.what()};
  }
  if (!whole) return q;
  return finish(std::move(q));
}
}  // namespace

Result<Query> parse_query_json(std::string_view text) { return parse_json(text, true); }
Result<Query> parse_query_json_part(std::string_view text) { return parse_json(text, false); }

std::string query_to_json(const Query& q, bool full) {
  json out = json::object();
  for_each_written(q, full, [&](const Key& k, const json& v) {
    json* node = &out;
    std::string_view path = k.path;
    size_t dot;
    while ((dot = path.find('.')) != std::string_view::npos) {
      node = &(*node)[std::string(path.substr(0, dot))];
      path.remove_prefix(dot + 1);
    }
    (*node)[std::string(path)] = v.is_number() ? exact_number(v.get<double>()) : v;
  });
  if (!q.train.parallel.automatic && !out.contains("parallel")) out["parallel"] = "manual";
  if (q.train.parallel.automatic && full) out["parallel"] = "auto";
  return out.dump();
}

}  // namespace trainfit
