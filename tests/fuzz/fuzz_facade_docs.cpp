// libFuzzer target: the facade's documents read back (api.h recipe_from_document, model_from_hf_config_document),
// what the web page's module does with the answers of the JS API's module, which cross the page's JavaScript. Any
// text gives a recipe or a model, or an error with a message: never a throw, a crash or a hang. A model read back is
// one the query parser accepted, so it has a parameter count.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "trainfit/facade/api.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const trainfit::Result<trainfit::Recipe> r = trainfit::recipe_from_document(text);
  if (!r && r.error().message.empty()) std::abort();
  const trainfit::Result<trainfit::ModelSpec> m = trainfit::model_from_hf_config_document(text);
  if (!m && m.error().message.empty()) std::abort();
  if (m && !trainfit::count_params(*m)) std::abort();
  return 0;
}
