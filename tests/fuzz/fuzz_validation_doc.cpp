// libFuzzer target: the validation report the web page fetches (data/validation.json) and hands to the module
// (api.h set_validation_document). Any text is refused with a reason, or accepted; once accepted, the `validate`
// verb answers a document that parses, never an internal error, and a refused text leaves it unchanged.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "trainfit/facade/api.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string before = trainfit::api_call("validate", "{}", nullptr);
  std::string why;
  const bool ok = trainfit::set_validation_document(text, &why);
  if (!ok && why.empty()) std::abort();
  const std::string after = trainfit::api_call("validate", "{}", nullptr);
  if (!ok && after != before) std::abort();
  // An accepted document is what `validate` answers: a JSON object with ok true, never an error document (the
  // text itself may say "internal error" anywhere: it is data).
  if (ok) {
    const nlohmann::json doc = nlohmann::json::parse(after, nullptr, false);
    if (!doc.is_object() || !doc.value("ok", false)) std::abort();
  }
  return 0;
}
