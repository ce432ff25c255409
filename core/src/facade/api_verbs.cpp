// trainfit core — the facade's recipe, calibrate, models and hf_config documents (api.h).
#include <string>
#include <utility>

#include "facade/api_internal.h"
#include "trainfit/catalog/model.h"
#include "trainfit/estimate/planner.h"
#include "trainfit/launch/calibrate.h"
#include "trainfit/launch/recipe.h"
#include "trainfit/market/billing.h"
#include "trainfit/query/query.h"

namespace trainfit::api_detail {

// recipe: the launch files of one offer's plan (recipe.h), with the numbers they were written from.
json recipe_doc(const Query& q, const Snapshot& s) {
  Result<Recipe> r = make_recipe(q, s);
  if (!r) return error_doc(r.error());
  json files = json::array();
  for (const RecipeFile& f : r->files) {
    json d{{"format", f.format}, {"filename", f.filename}, {"applies", f.applies}, {"text", f.text}};
    if (!f.why.empty()) d["why"] = f.why;
    files.push_back(d);
  }
  json d{{"ok", true},
              {"matched", true},
              {"snapshot", s.id},
              {"offer", r->offer},
              {"provider", r->provider},
              {"instance_type", r->instance_type},
              {"region", r->region},
              {"gpu", r->gpu},
              {"accelerators", r->accelerators},
              {"option", pricing_option_name(r->option)},
              {"nodes", r->nodes},
              {"gpus_per_node", r->gpus_per_node},
              {"nproc_per_node", r->nproc_per_node},
              {"plan", plan_doc(r->plan)},
              {"precision", r->precision},
              {"engine", r->engine},
              {"steps", num(r->steps)},
              {"checkpoint_interval_s", num(r->checkpoint_interval_s)},
              {"save_interval_steps", r->save_interval_steps},
              {"disk_size_GB", num(r->disk_size_GB)},
              {"files", files},
              {"placeholders", r->placeholders},
              {"notes", r->notes}};
  if (!r->via.empty()) d["via"] = r->via;  // the marketplace that sells it (and whose catalog is launched)
  return d;
}

// calibrate: one measured run against the uncalibrated estimate, the fitted factors, and the calibrated query
// (what the caller ranks with next; its hash carries the calibration).
json calibrate_doc(const Query& q, const Snapshot& s) {
  Result<CalibrationResult> r = calibrate(q, s);
  if (!r) return error_doc(r.error());
  json memory = nullptr;
  if (r->measured_peak_GiB > 0)
    memory = {{"measured_peak_GiB", num(r->measured_peak_GiB)},
              {"estimated_reserved_GiB", num(r->estimated_reserved_GiB)},
              {"fragmentation_before", num(r->fragmentation_before)},
              {"fragmentation_after", num(r->fragmentation_after)}};
  return json{{"ok", true},
              {"matched", true},
              {"offer", r->offer},
              {"gpu", r->gpu},
              {"gpu_name", r->gpu_name},
              {"nodes", r->nodes},
              {"plan", plan_summary(r->plan)},
              {"measured_step_s", num(r->measured_step_s)},
              {"estimated_step_s", num(r->estimated_step_s)},
              {"calibrated_step_s", num(r->calibrated_step_s)},
              {"efficiency_scale", num(r->efficiency_scale)},
              {"efficiency_before", num(r->efficiency_before)},
              {"efficiency_after", num(r->efficiency_after)},
              {"memory", memory},
              {"query", json::parse(query_to_json(r->query))},
              {"hash", query_to_hash(r->query)}};
}

json models_doc() {
  json list = json::array();
  for (const auto& m : builtin_models()) {
    Result<ParamCounts> p = count_params(m);
    list.push_back({{"id", m.id},
                    {"name", m.name},
                    {"hf_id", m.hf_id},
                    {"arch", to_string(m.arch)},
                    {"params_total", p ? num(p->total) : json(nullptr)},
                    {"params_active", p ? num(p->active) : json(nullptr)}});
  }
  return json{{"ok", true}, {"models", list}};
}

// hf_config: a Hugging Face config.json (the input text) as the query's model object, every knob derived
// (model_from_hf_config), with its parameter counts. Every surface puts `model` into its query as is.
json hf_config_doc(std::string_view config_text) {
  Result<ModelSpec> m = model_from_hf_config(config_text);
  if (!m) return error_doc(m.error());
  Result<ParamCounts> p = count_params(*m);
  if (!p) return error_doc(p.error());
  Query q = default_query();
  q.model = std::move(m).value();
  q.model_id = "custom";
  json model = json::parse(query_to_json(q)).value("model", json::object());
  return json{{"ok", true}, {"model", model}, {"params", params_doc(*p)}, {"matched", true}};
}

}  // namespace trainfit::api_detail
