// trainfit core — the JSON facade (api.h). Documents are built with nlohmann::json and dumped once, so key
// order is fixed (alphabetical within objects) and the same query gives byte-identical output everywhere.
// This file is the dispatcher (api_call, api_call_doc); the documents are built in the api_*.cpp files.
#include "trainfit/facade/api.h"
#include "trainfit/facade/api_doc.h"

#include <string>
#include <nlohmann/json.hpp>

#include "facade/api_internal.h"
#include "trainfit/query/query.h"

namespace trainfit {

using api_detail::calibrate_doc;
using api_detail::error_doc;
using api_detail::estimate_doc;
using api_detail::hf_config_doc;
using api_detail::json;
using api_detail::models_doc;
using api_detail::offer_doc;
using api_detail::rank_doc;
using api_detail::recipe_doc;
using api_detail::validate_doc;

// Documents are dumped with invalid UTF-8 replaced (U+FFFD) instead of throwing: an error message may quote
// bytes from a hostile query or link, and that must still come back as a readable error document.
static std::string dump_doc(const json& doc) { return doc.dump(-1, ' ', false, json::error_handler_t::replace); }

nlohmann::json api_call_doc(std::string_view verb, std::string_view query_json, const Snapshot* snapshot) {
  try {
    if (verb == "models") return models_doc();
    if (verb == "hf_config") return hf_config_doc(query_json);
    Result<Query> q = parse_query_json(query_json.empty() ? std::string_view("{}") : query_json);
    if (!q) return error_doc(q.error());
    if (verb == "query") return json{{"ok", true}, {"query", json::parse(query_to_json(*q, true))}, {"hash", query_to_hash(*q)}};
    if (verb == "estimate") return estimate_doc(*q, snapshot);
    if (verb == "validate") return validate_doc();
    if (verb == "rank" || verb == "plan" || verb == "cost" || verb == "recipe" || verb == "calibrate") {
      if (!snapshot) return error_doc(Error{"snapshot", "no price snapshot is loaded"});
      if (verb == "rank") return rank_doc(*q, *snapshot);
      if (verb == "recipe") return recipe_doc(*q, *snapshot);
      if (verb == "calibrate") return calibrate_doc(*q, *snapshot);
      return offer_doc(*q, *snapshot, verb == "cost");
    }
    return error_doc(Error{"verb", "unknown verb \"" + std::string(verb) + "\"; expected estimate, plan, rank, cost, calibrate, recipe, validate, models, hf_config or query"});
  } catch (const std::exception& e) {
    return error_doc(Error{"", std::string("internal error: ") + e.what()});
  }
}

std::string api_call(std::string_view verb, std::string_view query_json, const Snapshot* snapshot) {
  try {
    return dump_doc(api_call_doc(verb, query_json, snapshot));
  } catch (const std::exception& e) {  // dump_doc itself replaces bad UTF-8; nothing else should throw here
    return dump_doc(error_doc(Error{"", std::string("internal error: ") + e.what()}));
  }
}

}  // namespace trainfit
