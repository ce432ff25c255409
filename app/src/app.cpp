// trainfit — the application state and its frame. One App serves the web page and the desktop window.
//
// [SECTION] State
// [SECTION] Query and snapshot
// [SECTION] Frame
#include "trainfit/app/app.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "imgui.h"
#include "trainfit/api.h"
#include "trainfit/memory.h"
#include "trainfit/model.h"
#include "trainfit/query.h"
#include "trainfit/snapshot.h"

namespace trainfit {
std::string_view embedded_ui_font();  // app/CMakeLists.txt: DejaVu Sans subset
}

namespace trainfit::app {

// ------------------------------------------------------------------------------------------------------
// [SECTION] State
struct App::Impl {
  AppOptions opts;
  Query query = default_query();
  uint64_t query_version = 1;
  std::string query_error;      // last rejected query (shown; the previous query stays)
  Snapshot snapshot;
  bool has_snapshot = false;
  std::string snapshot_origin;
  std::string snapshot_error;   // last rejected snapshot
  std::string banner;           // shell-level error
  std::string clipboard;
  uint64_t frames = 0;
  float scale = 1.0f;
  bool fonts_dirty = true;

  // Derived results, recomputed only when the query version changes.
  uint64_t computed_version = 0;
  Result<ParamCounts> params = Error{"", "not computed"};
  Result<MemoryBreakdown> memory = Error{"", "not computed"};

  void recompute() {
    if (computed_version == query_version) return;
    computed_version = query_version;
    params = count_params(query.model);
    MemoryLayout layout;
    layout.micro_batch = query.train.micro_batch;
    layout.recompute = query.train.recompute == Recompute::automatic ? Recompute::none : query.train.recompute;
    memory = estimate_memory(query.model, query.train, layout);
  }
};

App::App(AppOptions opts) : impl_(std::make_unique<Impl>()) { impl_->opts = opts; }
App::~App() = default;

// ------------------------------------------------------------------------------------------------------
// [SECTION] Query and snapshot
std::string App::load_snapshot(std::string_view text, std::string_view origin) {
  Result<Snapshot> loaded = trainfit::load_snapshot(text);
  if (!loaded) {
    impl_->snapshot_error = std::string(origin) + ": " + loaded.error().to_string();
    return impl_->snapshot_error;
  }
  impl_->snapshot = std::move(loaded).value();
  impl_->has_snapshot = true;
  impl_->snapshot_origin = std::string(origin);
  impl_->snapshot_error.clear();
  ++impl_->query_version;  // results depend on the snapshot too
  return "";
}
bool App::has_snapshot() const { return impl_->has_snapshot; }

std::string App::set_query_json(std::string_view text) {
  Result<Query> q = parse_query_json(text);
  if (!q) return impl_->query_error = q.error().to_string();
  impl_->query = std::move(q).value();
  impl_->query_error.clear();
  ++impl_->query_version;
  return "";
}
std::string App::set_query_hash(std::string_view hash) {
  Result<Query> q = parse_query_hash(hash);
  if (!q) return impl_->query_error = q.error().to_string();
  impl_->query = std::move(q).value();
  impl_->query_error.clear();
  ++impl_->query_version;
  return "";
}
std::string App::query_json() const { return query_to_json(impl_->query); }
std::string App::query_hash() const { return query_to_hash(impl_->query); }
uint64_t App::query_version() const { return impl_->query_version; }


std::string App::state_json() const {
  impl_->recompute();
  std::string s = "{\"query\":" + query_json() + ",\"hash\":\"" + json_escape(query_hash()) + "\"";
  char buf[256];
  std::snprintf(buf, sizeof buf, ",\"frames\":%llu,\"ui_scale\":%.3g", static_cast<unsigned long long>(impl_->frames),
                impl_->scale);
  s += buf;
  if (impl_->params) {
    std::snprintf(buf, sizeof buf, ",\"params_total\":%.17g,\"params_active\":%.17g", impl_->params->total,
                  impl_->params->active);
    s += buf;
  }
  if (impl_->memory) {
    std::snprintf(buf, sizeof buf, ",\"memory_total_bytes\":%.17g", impl_->memory->total);
    s += buf;
  }
  s += ",\"snapshot\":";
  s += impl_->has_snapshot ? "\"" + json_escape(impl_->snapshot.id) + "\"" : std::string("null");
  s += ",\"snapshot_origin\":\"" + json_escape(impl_->snapshot_origin) + "\"";
  s += ",\"errors\":{\"query\":\"" + json_escape(impl_->query_error) + "\",\"snapshot\":\"" +
       json_escape(impl_->snapshot_error) + "\",\"banner\":\"" + json_escape(impl_->banner) + "\"}}";
  return s;
}

std::string App::results_json() const { return api_call("rank", query_json()); }
std::string App::api_call(std::string_view verb, std::string_view query_json) const {
  return trainfit::api_call(verb, query_json, impl_->has_snapshot ? &impl_->snapshot : nullptr);
}

uint64_t App::frames() const { return impl_->frames; }
void App::set_ui_scale(float scale) {
  if (!(scale > 0.25f && scale < 8.0f)) scale = 1.0f;
  if (scale == impl_->scale && !impl_->fonts_dirty) return;
  impl_->scale = scale;
  impl_->fonts_dirty = true;
}
float App::ui_scale() const { return impl_->scale; }
bool App::fonts_dirty() const { return impl_->fonts_dirty; }
void App::set_error_banner(std::string message) { impl_->banner = std::move(message); }
std::string App::take_clipboard_request() { return std::exchange(impl_->clipboard, std::string()); }

void App::rebuild_fonts() {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  std::string_view font = embedded_ui_font();
  ImFontConfig cfg;
  cfg.FontDataOwnedByAtlas = false;  // the bytes live in the binary
  cfg.OversampleH = 2;
  const float px = std::round(15.0f * impl_->scale);
  io.Fonts->AddFontFromMemoryTTF(const_cast<char*>(font.data()), static_cast<int>(font.size()), px, &cfg,
                                 io.Fonts->GetGlyphRangesDefault());
  io.Fonts->Build();
  ImGuiStyle style;
  if (impl_->opts.dark) ImGui::StyleColorsDark(&style); else ImGui::StyleColorsLight(&style);
  style.WindowRounding = 4.0f;
  style.FrameRounding = 3.0f;
  style.ScaleAllSizes(impl_->scale);
  ImGui::GetStyle() = style;
  impl_->fonts_dirty = false;
}

// ------------------------------------------------------------------------------------------------------
// [SECTION] Frame
static std::string fmt_count(double v) {
  char b[64];
  if (v >= 1e9) std::snprintf(b, sizeof b, "%.2f B", v / 1e9);
  else if (v >= 1e6) std::snprintf(b, sizeof b, "%.1f M", v / 1e6);
  else std::snprintf(b, sizeof b, "%.0f", v);
  return b;
}

void App::frame() {
  Impl& s = *impl_;
  s.recompute();
  ++s.frames;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::Begin("trainfit", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  ImGui::TextUnformatted("trainfit: which GPU instance to train on");
  ImGui::Separator();

  // Model picker: every preset of the bundled catalog.
  const auto& models = builtin_models();
  const char* current = s.query.model.name.empty() ? s.query.model_id.c_str() : s.query.model.name.c_str();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16);
  const bool model_open = ImGui::BeginCombo("Model", current);
  mark_last_item("Model");  // right after BeginCombo: LastItemData is the combo frame
  if (model_open) {
    for (const auto& m : models) {
      if (ImGui::Selectable(m.name.c_str(), m.id == s.query.model_id)) {
        s.query.model = m;
        s.query.model_id = m.id;
        ++s.query_version;
      }
    }
    ImGui::EndCombo();
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16);
  const bool method_open = ImGui::BeginCombo("Method", to_string(s.query.train.method));
  mark_last_item("Method");
  if (method_open) {
    for (Method m : {Method::full, Method::lora, Method::qlora})
      if (ImGui::Selectable(to_string(m), m == s.query.train.method)) {
        s.query.train.method = m;
        ++s.query_version;
      }
    ImGui::EndCombo();
  }
  if (ImGui::Button("Copy link")) s.clipboard = "#" + query_to_hash(s.query);

  ImGui::Separator();
  if (s.params) {
    ImGui::Text("Parameters: %s total, %s active per token", fmt_count(s.params->total).c_str(),
                fmt_count(s.params->active).c_str());
  } else {
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", s.params.error().to_string().c_str());
  }
  if (s.memory) {
    ImGui::Text("Training memory per GPU: %.2f GiB (%.2f - %.2f GiB)", s.memory->total / kGiB,
                s.memory->total_low / kGiB, s.memory->total_high / kGiB);
  } else {
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", s.memory.error().to_string().c_str());
  }
  if (!s.query_error.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "Query: %s", s.query_error.c_str());
  if (!s.snapshot_error.empty())
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "Snapshot refused: %s", s.snapshot_error.c_str());
  if (!s.banner.empty()) ImGui::TextColored(ImVec4(1, 0.6f, 0.2f, 1), "%s", s.banner.c_str());
  if (s.has_snapshot)
    ImGui::TextDisabled("Prices: snapshot %s (%s), %zu offers", s.snapshot.id.c_str(), s.snapshot_origin.c_str(),
                        s.snapshot.offers.size());
  ImGui::End();
}

}  // namespace trainfit::app
