// trainfit core (internal) — what the pieces of the JSON facade share (api.cpp and the api_*.cpp files): the
// json alias, the two document rules (base/json_doc.h) and the documents one piece builds for another.
#pragma once
#include <string_view>
#include <nlohmann/json.hpp>

#include "base/json_doc.h"
#include "trainfit/catalog/model.h"
#include "trainfit/estimate/planner.h"
#include "trainfit/query/query.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit::api_detail {

using json = nlohmann::json;

using doc::error_doc;
using doc::num;

// ---- estimate and plan documents (api_estimate.cpp) ----
json params_doc(const ParamCounts& p);
// estimate: the memory breakdown for the query's layout, with target.gpu the fit against that GPU.
json estimate_doc(const Query& q, const Snapshot* snapshot);
json plan_doc(const Plan& p);
json plan_result_doc(const PlanResult& r);

// ---- rank (api_rank.cpp) ----
// An offer's availability fact (snapshot.h AccessFact).
json access_doc(const AccessFact& a);
json rank_doc(const Query& q, const Snapshot& s);

// ---- plan / cost of one offer (api_cost.cpp) ----
json offer_doc(const Query& q0, const Snapshot& s, bool with_cost);

// ---- recipe, calibrate, models, hf_config (api_verbs.cpp) ----
json recipe_doc(const Query& q, const Snapshot& s);
json calibrate_doc(const Query& q, const Snapshot& s);
json models_doc();
json hf_config_doc(std::string_view config_text);

// ---- validate (api_validation.cpp) ----
json validate_doc();

}  // namespace trainfit::api_detail
