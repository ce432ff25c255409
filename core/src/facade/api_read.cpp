// trainfit core — the facade's documents read back (api.h recipe_from_document, model_from_hf_config_document): what
// a shell that holds only a document turns into the values it shows. The web page's module carries neither the
// recipe writers nor the config.json reader; the JS API's module answers it with these documents. The text is
// untrusted (it crossed the page's JavaScript): anything that is not the verb's document is an Error, never a throw.
#include <string>

#include "facade/api_internal.h"
#include "trainfit/facade/api.h"
#include "trainfit/launch/recipe.h"
#include "trainfit/market/billing.h"

namespace trainfit {
namespace {

using api_detail::json;

std::string str(const json& o, const char* k) { return o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : ""; }

// A document's verdict: nullopt-like empty Error message for {"ok": true, ...}; else the error it carries.
bool is_ok(const json& d) { return d.is_object() && d.contains("ok") && d["ok"] == true; }
Error error_of(const json& d, const char* what) {
  if (!d.is_object()) return Error{"", std::string(what) + " is not a JSON object"};
  const json e = d.contains("error") && d["error"].is_object() ? d["error"] : json::object();
  const std::string message = str(e, "message");  // absent, not a string or empty: say what failed
  return Error{str(e, "field"), message.empty() ? std::string(what) + " reports a failure" : message};
}

}  // namespace

Result<Recipe> recipe_from_document(std::string_view text) {
  const json d = json::parse(text, nullptr, false);
  if (!is_ok(d)) return error_of(d, "the recipe document");
  Recipe r;
  r.offer = str(d, "offer");
  r.provider = str(d, "provider");
  r.instance_type = str(d, "instance_type");
  r.region = str(d, "region");
  r.gpu = str(d, "gpu");
  r.accelerators = str(d, "accelerators");
  for (PricingOption o : kPricingOptions)
    if (str(d, "option") == pricing_option_name(o)) r.option = o;
  r.nodes = d.contains("nodes") && d["nodes"].is_number_integer() ? d["nodes"].get<int>() : 1;
  for (const char* k : {"notes", "placeholders"}) {
    if (!d.contains(k) || !d[k].is_array()) continue;
    for (const json& n : d[k])
      if (n.is_string()) (k[0] == 'n' ? r.notes : r.placeholders).push_back(n.get<std::string>());
  }
  if (d.contains("files") && d["files"].is_array())
    for (const json& f : d["files"])
      if (f.is_object())
        r.files.push_back(RecipeFile{str(f, "format"), str(f, "filename"), str(f, "text"),
                                     !f.contains("applies") || f["applies"] == true, str(f, "why")});
  return r;
}

// The model is the query's model object: read back through the query parser (its checks included), as the JS API's
// setHfConfig puts it into a query.
Result<ModelSpec> model_from_hf_config_document(std::string_view text) {
  const json d = json::parse(text, nullptr, false);
  if (!is_ok(d)) return error_of(d, "the config.json reader's document");
  if (!d.contains("model") || !d["model"].is_object()) return Error{"hf_config", "the reader's document has no model"};
  Result<Query> q = parse_query_json(json{{"model", d["model"]}}.dump());
  if (!q) return q.error();
  return q->model;
}

}  // namespace trainfit
