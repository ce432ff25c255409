// libFuzzer target: the query JSON parser and the facade verbs that need no snapshot. Every input gives a
// document that is valid JSON with "ok"; errors name a field; every number in the output is finite.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "trainfit/facade/api.h"
#include "trainfit/query/query.h"

namespace {
void check_finite(const nlohmann::json& j) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) std::abort();
  if (j.is_structured())
    for (const auto& v : j) check_finite(v);
}
void check_doc(const std::string& out) {
  const nlohmann::json doc = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("ok") || !doc["ok"].is_boolean()) std::abort();
  if (!doc["ok"].get<bool>() && (!doc.contains("error") || !doc["error"]["message"].is_string() ||
                                 doc["error"]["message"].get<std::string>().empty()))
    std::abort();
  // "internal error" means an exception reached the facade's last-resort handler: a bug, not an answer.
  if (!doc["ok"].get<bool>() && doc["error"]["message"].get<std::string>().rfind("internal error", 0) == 0) std::abort();
  check_finite(doc);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The part parser (each key on its own; the CLI's --hash / --query under its flags): a query or an error, and
  // a part's JSON, parsed whole, gives a query or an error with a message. A whole query is a part too.
  trainfit::Result<trainfit::Query> part = trainfit::parse_query_json_part(text);
  if (!part && part.error().message.empty()) std::abort();
  trainfit::Result<trainfit::Query> finished = part ? trainfit::parse_query_json(trainfit::query_to_json(*part))
                                                     : trainfit::Result<trainfit::Query>(part.error());
  if (part && !finished && finished.error().message.empty()) std::abort();
  trainfit::Result<trainfit::Query> q = trainfit::parse_query_json(text);
  if (!q) {
    if (q.error().message.empty()) std::abort();
    return 0;
  }
  // Parsed whole, the part gives the same query.
  if (!finished || trainfit::query_to_json(*finished, true) != trainfit::query_to_json(*q, true)) std::abort();
  // A parsed query re-serialises to JSON that parses back to the same serialisation.
  const std::string full = trainfit::query_to_json(*q, true);
  trainfit::Result<trainfit::Query> again = trainfit::parse_query_json(full);
  if (!again || trainfit::query_to_json(*again, true) != full) std::abort();
  check_doc(trainfit::api_call("query", text, nullptr));
  check_doc(trainfit::api_call("estimate", text, nullptr));
  return 0;
}
