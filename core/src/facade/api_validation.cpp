// trainfit core — where the facade's `validate` document comes from (api.h set_validation_provider /
// set_validation_document) and the verb itself.
#include <string>
#include <utility>

#include "facade/api_internal.h"
#include "trainfit/facade/api.h"

namespace trainfit {
namespace api_detail {
namespace {

// validate: the validation report. Its tables (validation.cpp, perf_validation.cpp, reality.cpp, validation_doc.cpp:
// library trainfit_validation) are installed by the programs that carry them (install_validation_tables); the web
// module leaves them out of its first-visit payload and is handed the same document, data/validation.json, when the
// page has fetched it (set_validation_document).
struct ValidationSource {
  std::string (*provider)() = nullptr;  // the tables, where linked in
  std::string document;                 // or the document as fetched (web)
};
ValidationSource& validation_source() {
  static ValidationSource s;
  return s;
}

}  // namespace

json validate_doc() { return json::parse(validation_document()); }

}  // namespace api_detail

using api_detail::json;
using api_detail::validation_source;

std::string validation_document() {
  const api_detail::ValidationSource& v = validation_source();
  if (v.provider) return v.provider();
  if (!v.document.empty()) return v.document;
  return api_detail::error_doc(Error{"verb", "the validation report is not loaded yet (data/validation.json)"}).dump();
}

void set_validation_provider(std::string (*provider)()) { validation_source().provider = provider; }
bool set_validation_document(std::string json_text, std::string* why) {
  // Untrusted like any fetched file: it must parse and be the verb's document (ok, a rows array of objects).
  const json doc = json::parse(json_text, nullptr, false);
  // `ok` must be the boolean true: json::value would throw on {"ok": 1}, and a throw here would end the program.
  bool good = doc.is_object() && doc.contains("ok") && doc["ok"].is_boolean() && doc["ok"].get<bool>() &&
              doc.contains("rows") && doc["rows"].is_array();
  if (good)
    for (const json& r : doc["rows"]) good = good && r.is_object() && r.contains("kind") && r["kind"].is_string();
  if (!good) {
    if (why) *why = "not a validation report (expected {\"ok\": true, \"rows\": [...]})";
    return false;
  }
  validation_source().document = std::move(json_text);
  return true;
}

}  // namespace trainfit
