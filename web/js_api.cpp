// trainfit — the page module's exports: plain C functions, JSON text in and out (called with Module.ccall by
// web/app.js, which builds the public JS API, README "Embedding and the JS API", over them). The facade's documents
// (trainfit.call) are the JS API's own module's (web/api_module.cpp), loaded on first use: this module answers
// the UI's verbs only. Every function catches everything (js_out.h): a bad input returns an error JSON, the module
// never aborts.
#include <emscripten.h>

#include <cstdio>
#include <string>

#include "imgui.h"
#include "trainfit/engine.h"
#include "trainfit/app/app.h"
#include "js_out.h"
#include "web_shell.h"

namespace trainfit::web {
trainfit::app::App& app() {
  // It asks the page for the Launch section's recipe and a pasted config.json's model (App::make_documents_here is
  // not called): the JS API's module answers (web/app.js answerCall); this one carries neither writer nor reader.
  static trainfit::app::App* a = new trainfit::app::App(trainfit::app::AppOptions{});  // never destroyed (EXIT_RUNTIME=0)
  return *a;
}
}  // namespace trainfit::web

using trainfit::web::guarded;
using trainfit::web::status_json;

extern "C" {

// The visible state: query, hash, headline results, errors, frame count.
EMSCRIPTEN_KEEPALIVE const char* tf_state() { return guarded([] { return trainfit::web::app().state_json(); }); }

// Replace the query (JSON text or URL hash). On error the current query stays and the error is returned.
EMSCRIPTEN_KEEPALIVE const char* tf_set_query(const char* json) {
  return guarded([&] { return status_json(trainfit::web::app().set_query_json(json ? json : "")); });
}
EMSCRIPTEN_KEEPALIVE const char* tf_set_hash(const char* hash) {
  return guarded([&] { return status_json(trainfit::web::app().set_query_hash(hash ? hash : "")); });
}
EMSCRIPTEN_KEEPALIVE const char* tf_query() { return guarded([] { return trainfit::web::app().query_json(); }); }

// Load a snapshot's text; refused snapshots leave the current one in place.
EMSCRIPTEN_KEEPALIVE const char* tf_load_snapshot(const char* text, const char* origin) {
  return guarded([&] { return status_json(trainfit::web::app().load_snapshot(text ? text : "", origin ? origin : "")); });
}
// The same from the compact binary form (data/snapshot.bin, what the page loads for the bundled snapshot):
// `size` bytes at `bytes` (binary: they may hold zeros).
EMSCRIPTEN_KEEPALIVE const char* tf_load_snapshot_bin(const char* bytes, double size, const char* origin) {
  return guarded([&] {
    const std::string_view data(bytes ? bytes : "", bytes && size > 0 ? static_cast<size_t>(size) : 0);
    return status_json(trainfit::web::app().load_snapshot_binary(data, origin ? origin : ""));
  });
}
// The text sidecar of the lean bundled snapshot (data/snapshot-text.json), applied after the first frame.
EMSCRIPTEN_KEEPALIVE const char* tf_apply_snapshot_text(const char* json) {
  return guarded([&] { return status_json(trainfit::web::app().apply_snapshot_text(json ? json : "")); });
}
// The validation report (data/validation.json, the `validate` document as the build wrote it) for the Accuracy tab,
// fetched after the first frame: the module carries no validation tables (api.h set_validation_document). A refused
// document changes nothing.
EMSCRIPTEN_KEEPALIVE const char* tf_set_validation(const char* json) {
  return guarded([&] {
    std::string why;
    return status_json(trainfit::set_validation_document(json ? json : "", &why) ? std::string() : why);
  });
}
EMSCRIPTEN_KEEPALIVE const char* tf_set_banner(const char* message) {
  return guarded([&] {
    trainfit::web::app().set_error_banner(message ? message : "");
    return std::string("{\"ok\":true}");
  });
}

// The UI's verbs (App::ui_call: ui.view, ui.select, ui.theme, ui.embed, ui.requests, ui.call, ui.answer).
EMSCRIPTEN_KEEPALIVE const char* tf_call(const char* verb, const char* arg) {
  return guarded([&] { return trainfit::web::app().ui_call(verb ? verb : "", arg ? arg : ""); });
}

// The date the module judges snapshots against (App::today), for the JS API's module (web/app.js loadApi).
EMSCRIPTEN_KEEPALIVE const char* tf_today() { return guarded([] { return trainfit::web::app().today(); }); }

EMSCRIPTEN_KEEPALIVE double tf_frames() { return static_cast<double>(trainfit::web::shell_frames()); }
EMSCRIPTEN_KEEPALIVE double tf_drawn_frames() { return static_cast<double>(trainfit::web::drawn_frames()); }
// Ranked rows of the UI's current ranking (-1 before the first): what the load benchmark's probe polls every
// animation frame, so that it does not build tf_state's JSON on the critical path it measures.
EMSCRIPTEN_KEEPALIVE double tf_ranked() { return trainfit::web::app().ranked_rows(); }

// Test hooks (also handy for docs authors): where a widget is, in CSS pixels, by its label.
EMSCRIPTEN_KEEPALIVE void tf_record_items(int on) { trainfit::app::record_item_rects(on != 0); }
EMSCRIPTEN_KEEPALIVE const char* tf_item_rect(const char* label) {
  return guarded([&] {
    float x, y, w, h;
    if (!label || !trainfit::app::item_rect(label, &x, &y, &w, &h)) return std::string("null");
    const float s = trainfit::web::app().ui_scale();  // framebuffer px -> CSS px
    char buf[160];
    std::snprintf(buf, sizeof buf, "{\"x\":%.1f,\"y\":%.1f,\"w\":%.1f,\"h\":%.1f}", x / s, y / s, w / s, h / s);
    return std::string(buf);
  });
}

// Clipboard paste from the page's `paste` listener (GLFW's clipboard is a stub in emscripten 3.1.6).
EMSCRIPTEN_KEEPALIVE void tf_paste(const char* text) {
  if (text && ImGui::GetCurrentContext()) ImGui::GetIO().AddInputCharactersUTF8(text);
}

}  // extern "C"
