// trainfit core — the JSON facade: one entry point that the CLI (--format json), the web page's JS API and
// the UI's exports share, so every surface computes the same numbers from the same query.
// Every document is {"ok": true, ...} or {"ok": false, "error": {"field": ..., "message": ...}}.
#pragma once
#include <string>
#include <string_view>

#include "trainfit/base/json_text.h"  // json_number, json_escape: for documents built by hand
#include "trainfit/catalog/model.h"
#include "trainfit/launch/recipe.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {

// verb: "estimate" | "plan" | "rank" | "cost" | "calibrate" | "recipe" | "validate" | "models" | "query" | "hf_config".
// `query_json` is a query document (query.h); `snapshot` may be null for verbs that need no prices.
// "hf_config" takes a Hugging Face config.json instead and returns {"ok", "model" (the query's model object with
// every knob derived), "params"}.
std::string api_call(std::string_view verb, std::string_view query_json, const Snapshot* snapshot);

// Where the `validate` verb's document comes from. Programs that link the validation tables (library
// trainfit_validation: the CLI, the desktop app, the tests, the benchmarks) call install_validation_tables()
// (validation.h) once; the web module, which leaves the tables out of its first-visit payload, hands over the same
// document as the build wrote it (data/validation.json) once the page has fetched it. Before either, `validate`
// answers an error naming the file.
void set_validation_provider(std::string (*provider)());
// Refuses (false, `why` set) a document that is not the validate verb's: the report already held stays.
bool set_validation_document(std::string json_text, std::string* why);
// The `validate` verb's document as text, from whichever source is set (an error document naming the file before
// either): what api_call("validate") parses. The UI's Accuracy tab reads it here, without the verb dispatcher, so
// that the web page's first module carries no facade documents (the JS API's module, web/api_module.cpp, does).
std::string validation_document();

// Documents read back, for a shell that holds only the document (the web page's module: the JS API's module writes
// them). Untrusted text: anything that is not the verb's document is an Error (an error document's own field and
// message), never a throw. The recipe: the fields `recipe` prints (the plan and the numbers it was written from are
// not read back). The model: `hf_config`'s model, through the query parser's checks.
Result<Recipe> recipe_from_document(std::string_view text);
Result<ModelSpec> model_from_hf_config_document(std::string_view text);

}  // namespace trainfit
