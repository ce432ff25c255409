// trainfit core — the facade's documents as nlohmann::json objects, for native callers that render them (the
// CLI's tables): api_call (api.h) is exactly dump(api_call_doc(...)), so a table and --format json show the same
// document, without serialising and parsing ~1,500 ranked rows in between (half of `trainfit rank`'s time).
#pragma once
#include <nlohmann/json.hpp>
#include <string_view>

#include "trainfit/storage/snapshot.h"

namespace trainfit {

nlohmann::json api_call_doc(std::string_view verb, std::string_view query_json, const Snapshot* snapshot);

}  // namespace trainfit
