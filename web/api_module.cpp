// trainfit — the JS API's own module (trainfit-api.js + trainfit-api.wasm): the facade's documents, the same as the
// CLI's --format json, for trainfit.call / callText / modelFromHfConfig (web/app.js). The page's first module draws
// the UI and carries no facade documents (nor nlohmann's instantiations for them): this one is loaded when a script
// first asks for trainfit.ready or calls the API, so a visit that only uses the page never downloads it
// (docs/performance.md, "The JS API's own module").
//
// It holds its own copy of the snapshot: web/app.js replays into it, in order, every load and sidecar that the page's
// module accepted (tf_api_load_snapshot*, tf_api_apply_snapshot_text), through the same core loaders with the page
// module's date (tf_api_set_today), so both modules answer on the same prices. Every export catches everything (js_out.h).
#include <emscripten.h>

#include <string>
#include <string_view>

#include "js_out.h"
#include "trainfit/engine.h"

namespace {

struct Held {
  trainfit::Snapshot snapshot;
  bool loaded = false;
  std::string today;  // the page module's date (tf_api_set_today); "" until given: the clock's
};
Held& held() {
  static Held* h = new Held;  // never destroyed (EXIT_RUNTIME=0)
  return *h;
}

trainfit::SnapshotLoadOptions load_options() {
  trainfit::SnapshotLoadOptions opt;
  opt.today = held().today.empty() ? trainfit::utc_date_today() : held().today;  // the page's App's date
  return opt;
}

// A refused snapshot leaves the one held in place, as in the page's module.
std::string adopt(trainfit::Result<trainfit::Snapshot> loaded, std::string_view origin) {
  if (!loaded) return std::string(origin) + ": " + loaded.error().to_string();
  held().snapshot = std::move(loaded).value();
  held().loaded = true;
  return "";
}

}  // namespace

using trainfit::web::guarded;
using trainfit::web::status_json;

extern "C" {

// The facade: `verb` = estimate | plan | rank | cost | recipe | calibrate | validate | models | query | hf_config
// (api.h), on the snapshot held.
EMSCRIPTEN_KEEPALIVE const char* tf_api_call(const char* verb, const char* query_json) {
  return guarded([&] {
    return trainfit::api_call(verb ? verb : "", query_json ? query_json : "", held().loaded ? &held().snapshot : nullptr);
  });
}

EMSCRIPTEN_KEEPALIVE const char* tf_api_load_snapshot(const char* text, const char* origin) {
  return guarded([&] {
    return status_json(adopt(trainfit::load_snapshot(text ? text : "", load_options(), nullptr), origin ? origin : ""));
  });
}
// `size` bytes at `bytes` (the binary form may hold zeros).
EMSCRIPTEN_KEEPALIVE const char* tf_api_load_snapshot_bin(const char* bytes, double size, const char* origin) {
  return guarded([&] {
    const std::string_view data(bytes ? bytes : "", bytes && size > 0 ? static_cast<size_t>(size) : 0);
    return status_json(adopt(trainfit::load_snapshot_binary(data, load_options(), nullptr), origin ? origin : ""));
  });
}
EMSCRIPTEN_KEEPALIVE const char* tf_api_apply_snapshot_text(const char* json) {
  return guarded([&] {
    if (!held().loaded) return status_json("no snapshot is loaded");
    const trainfit::Result<size_t> r = trainfit::apply_snapshot_text(held().snapshot, json ? json : "");
    return status_json(r ? std::string() : "text sidecar refused: " + r.error().to_string());
  });
}
// The date the page's module judges snapshots against (App::today), given before the loads are replayed: a page open
// across midnight UTC then still has both modules flag the same offers as stale.
EMSCRIPTEN_KEEPALIVE const char* tf_api_set_today(const char* date) {
  return guarded([&] {
    const std::string d = date ? date : "";
    if (d.size() != 10 || d[4] != '-' || d[7] != '-') return status_json("today: expected YYYY-MM-DD");
    held().today = d;
    return status_json("");
  });
}

// The `validate` document as the build wrote it (data/validation.json): this module carries no validation tables.
EMSCRIPTEN_KEEPALIVE const char* tf_api_set_validation(const char* json) {
  return guarded([&] {
    std::string why;
    return status_json(trainfit::set_validation_document(json ? json : "", &why) ? std::string() : why);
  });
}

}  // extern "C"
