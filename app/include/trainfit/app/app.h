// trainfit — the shared ImGui application: state, one frame of UI, and the hooks the shells and tests use.
// The web shell (web/main_web.cpp) and the desktop shell (native/main_glfw.cpp) own the window, the GL
// context and the main loop; they call App::frame() between ImGui::NewFrame() and ImGui::Render().
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace trainfit::app {

struct AppOptions {
  bool embed = false;   // compact layout for documentation iframes (?embed=1)
  bool dark = true;
  std::string today;    // ISO date for the snapshot's age ("" = the system clock's UTC date)
};

class App {
 public:
  explicit App(AppOptions opts = {});
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Snapshot: validated by the core loader; on failure the current snapshot is kept and the error is
  // returned (and shown on screen). `origin` says where the data came from (shown to the user).
  std::string load_snapshot(std::string_view json_text, std::string_view origin);
  // The same from the snapshot's compact binary form (core snapshot.h, pack_snapshot): what the web page loads
  // for the bundled snapshot; the same Snapshot and warnings as its JSON.
  std::string load_snapshot_binary(std::string_view bytes, std::string_view origin);
  // The text sidecar of a lean binary snapshot (core snapshot.h, apply_snapshot_text): fills the sources and
  // notes the Snapshot tab shows. A refused sidecar leaves the snapshot as it was and says why on that tab.
  std::string apply_snapshot_text(std::string_view sidecar_json);
#ifndef __EMSCRIPTEN__
  // A live-stock report saved by `trainfit availability --save` (core market/stock.h): its provider's offers
  // without capacity get the no_live_stock flag. The desktop's alone: the page never holds a user's check.
  std::string apply_stock_report(std::string_view report_json);
#endif
  bool has_snapshot() const;
  // The date snapshots are judged against (staleness): AppOptions::today, or the clock's when the App was made. The
  // web page hands it to the JS API's module, so that both modules judge alike.
  const std::string& today() const;

  // The query, in its shared forms. Errors name the field; the current query is kept on error.
  std::string set_query_json(std::string_view json_text);
  std::string set_query_hash(std::string_view hash);
  std::string query_json() const;
  std::string query_hash() const;
  uint64_t query_version() const;     // bumps on every change (the shells sync the URL / saved file on change)

  // The whole visible state as JSON (query, results summary, selection, errors): what the JS API returns.
  std::string state_json() const;
  // The results of the current query as JSON: the same document as `trainfit rank --format json`.
  std::string results_json() const;
  // The core's JSON facade (api.h) on the loaded snapshot, or ui_call for verbs starting with "ui.": what the
  // desktop app and the tests call. The web page's module answers only ui_call (its tf_call); the facade's verbs
  // come from the JS API's own module (web/api_module.cpp), which keeps them out of the first visit.
  std::string api_call(std::string_view verb, std::string_view query_json) const;
  // The UI's verbs: "ui.requests" (take_shell_requests), "ui.theme" ("dark" | "light"), "ui.embed" ("1" | "0"),
  // "ui.view" (rows shown in the table, in order, with their numbers; at most 200, or the count given: "3"),
  // "ui.select" (select the table row at index N of the view), "ui.call" / "ui.answer" (a facade document asked of
  // the shell: make_documents_here). Any other verb is an error document.
  std::string ui_call(std::string_view verb, std::string_view arg) const;

  void frame();                        // draw one frame of UI
  uint64_t frames() const;
  // Rows of the current ranking that fit and pass the filters (-1: no ranking yet). Cheap, for load probes.
  int ranked_rows() const;
  void set_ui_scale(float scale);      // the shells call this when devicePixelRatio / monitor scale changes
  float ui_scale() const;
  bool fonts_dirty() const;            // true after set_ui_scale or a theme change: the shell calls rebuild_fonts
  // Rebuilds the style, and the font atlas when the scale changed (call outside NewFrame/Render). Returns true
  // when the atlas was rebuilt: then the shell re-uploads the font texture.
  bool rebuild_fonts();
  void set_error_banner(std::string message);   // shell-level errors (fetch failures, ...)

  // Clipboard text the UI asked to copy (the web shell forwards it to navigator.clipboard).
  std::string take_clipboard_request();

  // Things only the shell can do, asked for by the UI, as a JSON array of strings, cleared on read:
  // "open_file" (pick a snapshot file), "open_full_app" (embed mode's link out), "theme:dark|light" (remember
  // the theme). The web page reads them through tf_call("ui.requests"); the desktop shell calls this.
  std::string take_shell_requests();
  // Where the Launch section's recipe and a pasted config.json's model come from. The desktop app and the tests turn
  // this on: made here (recipe.h make_recipe, model.h model_from_hf_config). Off (the web page, whose first module
  // carries neither: the JS API's module has them) the App asks the shell for the facade's document: "call:N" in
  // take_shell_requests, the verb and its argument from ui.call (N), the document back through ui.answer ("N\n" +
  // the document).
  void make_documents_here(bool on);

  // View settings that are not part of the query (they do not change any number): theme and embed mode.
  void set_dark(bool dark);
  bool dark() const;
  // The colour the shell clears the framebuffer to before rendering (the theme's window background, RGBA 0..1).
  // The UI's own windows draw no background: the clear is their background (see rebuild_fonts: one full-screen
  // layer less to shade, which halves the frame's raster time under software WebGL).
  void clear_color(float rgba[4]) const;
  void set_embed(bool embed);
  // CPU time of the last App::frame() and its moving average, milliseconds (the UI frame figure scripts/bench reports).
  double frame_ms() const;
  double frame_ms_avg() const;

  struct Impl;  // opaque to users; defined in app/src/app_impl.h for the UI files

 private:
  std::unique_ptr<Impl> impl_;
};

// Scroll the window under the mouse (or the nearest parent that can scroll) by a drag of (dx, dy) framebuffer
// pixels, content following the finger. Call after ImGui::NewFrame (touch screens: web/main_web.cpp).
void drag_scroll(float dx, float dy);

// Widget rectangles recorded through Dear ImGui's test-engine hooks during the last frame, in framebuffer
// pixels: lets tests click a widget by its label. Returns false when no widget had that label.
void record_item_rects(bool on);
bool item_rect(std::string_view label, float* x, float* y, float* w, float* h);
// Widgets that imgui 1.86 does not label through the hooks (combos, custom-drawn items): call right after
// the widget to record its rectangle under `label`.
void mark_last_item(std::string_view label);

}  // namespace trainfit::app
