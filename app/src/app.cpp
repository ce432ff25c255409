// trainfit — the application state and its frame. One App serves the web page and the desktop window.
//
// [SECTION] State: commit, ranking cache, selection
// [SECTION] Query and snapshot (public API)
// [SECTION] Shell hooks: fonts, theme, requests, ui.* verbs (the state as JSON: app_state.cpp)
// [SECTION] Frame: the layout (full and embed)
#include "trainfit/app/app.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app_impl.h"
#include "imgui.h"
#include "trainfit/engine.h"

namespace trainfit {
std::string_view embedded_ui_font();  // app/CMakeLists.txt: DejaVu Sans subset
}

namespace trainfit::app {

namespace {
double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}
}  // namespace

// ------------------------------------------------------------------------------------------------------
// [SECTION] State
void App::Impl::commit() {
  // The draft goes through the same parser as a URL hash: what the core refuses is shown, never ranked.
  std::string name = custom_name;
  if (draft.model_id == "custom" && !name.empty()) draft.model.name = name;
  Result<Query> q = parse_query_json(query_to_json(draft));
  if (!q) {
    query_error = q.error().to_string();
    return;
  }
  query = std::move(q).value();
  query_error.clear();
  ++query_version;
}

std::string App::Impl::adopt(Result<Query> q) {
  // A query from outside (JSON API, link): on error the current query stays and the error is returned.
  if (!q) return query_error = q.error().to_string();
  query = std::move(q).value();
  draft = query;
  query_error.clear();
  scroll_to_selected = true;
  ++query_version;
  return "";
}

const RankRow* App::Impl::selected_row() const {
  if (!rank || selected < 0 || selected >= static_cast<int>(rank->rows.size())) return nullptr;
  return &rank->rows[selected];
}

const Plan* App::Impl::row_plan(const RankRow& r) const {
  if (!rank || r.shape < 0 || r.plan_index < 0 || r.nodes <= 0) return nullptr;
  const ShapePlan& sh = rank->shapes[r.shape];
  if (!sh.ok || r.plan_index >= static_cast<int>(sh.plan().by_nodes.size())) return nullptr;
  return &sh.plan().by_nodes[r.plan_index];
}

void App::Impl::recompute() {
  if (seen_version == query_version) return;
  seen_version = query_version;
  params = count_params(query.model);
  MemoryLayout layout;
  layout.micro_batch = query.train.micro_batch;
  layout.recompute = query.train.recompute == Recompute::automatic ? Recompute::none : query.train.recompute;
  memory = estimate_memory(query.model, query.train, layout);
  if (!has_snapshot) return;

  // Re-rank only when something the ranking reads changed: the selected row (target.offer / target.pricing)
  // and "show rows that do not fit" (filters.show_all) only change what is shown.
  // (Compared as structs, not as their JSON: serialising the query cost ~10 ms of the first frame in the
  // browser's baseline wasm tier.)
  Query k = query;
  k.target.offer.clear();
  k.target.pricing = PricingFilter::any;
  k.filters.show_all = false;
  view_dirty = true;
  if (!rank_query || !(*rank_query == k) || rank_snapshot_version != snapshot_version) {
    rank_query = std::move(k);
    rank_snapshot_version = snapshot_version;
    const double t0 = now_ms();
    // The old ranking goes first: the wasm heap never shrinks, and two 100k-offer rankings alive at once were
    // ~30 MB of its peak (docs/performance.md, "100k offers: where the heap goes").
    rank = Error{"", "ranking"};
    row_text.clear();
    row_text_slot.clear();
    rank = rank_offers(query, snapshot, &plan_cache);
    rank_ms = now_ms() - t0;
    ++rank_count;
    ++rank_version;
    ranked = true;
    // Row texts are formatted when first shown (row_texts): the table shows ~20 of ~1,500 rows, and formatting
    // them all took ~10 ms of the first frame in the browser's baseline wasm tier.
    row_text_slot.assign(rank ? rank->rows.size() : 0, -1);
    oldest_ranked = rank ? oldest_ranked_capture(snapshot, *rank) : std::string();
    detail_key = ~0ull;
    chart_key = ~0ull;
  }
  // The selection follows target.offer; without one, the best row is shown (not written into the query).
  selected = -1;
  if (rank) {
    for (size_t i = 0; i < rank->rows.size() && !query.target.offer.empty(); ++i) {
      const RankRow& r = rank->rows[i];
      if (snapshot.offers[r.offer].id != query.target.offer) continue;
      if (!pricing_admits(query.target.pricing, r.option)) continue;
      selected = static_cast<int>(i);
      break;
    }
    if (selected < 0 && rank->ranked > 0) selected = 0;
  }
}

const RowText& App::Impl::row_texts(int i) const {
  int& slot = row_text_slot[static_cast<size_t>(i)];
  if (slot >= 0) return row_text[static_cast<size_t>(slot)];
  slot = static_cast<int>(row_text.size());
  RowText& t = row_text.emplace_back();
  const RankRow& r = rank->rows[i];
  const Offer& o = snapshot.offers[r.offer];
  std::snprintf(t.gpus, sizeof t.gpus, "%d x %s", o.gpu_count, snapshot.gpus[o.gpu].name.c_str());
  std::snprintf(t.seller, sizeof t.seller, "%s", offer_seller_text(snapshot, o).c_str());
  std::snprintf(t.name, sizeof t.name, "%s", offer_display_name(snapshot, o).c_str());
  if (const Plan* p = row_plan(r)) {
    std::snprintf(t.plan, sizeof t.plan, "%s", plan_summary(*p).c_str());
  } else {
    std::snprintf(t.plan, sizeof t.plan, "-");
  }
  return t;
}

void App::Impl::select_row(int row) {
  if (!rank || row < 0 || row >= static_cast<int>(rank->rows.size())) return;
  const RankRow& r = rank->rows[row];
  query.target.offer = snapshot.offers[r.offer].id;
  query.target.pricing = pricing_filter_of(r.option);
  draft.target = query.target;
  ++query_version;
  selected = row;
}

// ------------------------------------------------------------------------------------------------------
// [SECTION] Query and snapshot
App::App(AppOptions opts) : impl_(std::make_unique<Impl>()) {
  impl_->opts = opts;
  impl_->dark = opts.dark;
  impl_->today = opts.today.empty() ? utc_date_today() : opts.today;
}
App::~App() = default;

namespace {
// A snapshot loaded from either form becomes the current one; a refused one leaves the current one in place.
// Its warnings are in Snapshot::warnings.
std::string adopt_snapshot(App::Impl& s, Result<Snapshot> loaded, std::string_view origin) {
  if (!loaded) {
    s.snapshot_error = std::string(origin) + ": " + loaded.error().to_string();
    return s.snapshot_error;
  }
  s.snapshot = std::move(loaded).value();
  s.prices = price_dates(s.snapshot);
  s.prices_text = price_dates_text(s.prices);
  s.plan_cache.clear();  // cached plans index the old snapshot's GPUs
  s.has_snapshot = true;
  s.snapshot_origin = std::string(origin);
  s.snapshot_error.clear();
  s.snapshot_text_error.clear();
  ++s.snapshot_version;
  ++s.query_version;  // results depend on the snapshot too
  return "";
}
}  // namespace

std::string App::load_snapshot(std::string_view text, std::string_view origin) {
  // The loader's validation, with today's date so stale captures are flagged (filters.hide_stale).
  SnapshotLoadOptions opt;
  opt.today = impl_->today;
  return adopt_snapshot(*impl_, trainfit::load_snapshot(text, opt, nullptr), origin);
}
std::string App::load_snapshot_binary(std::string_view bytes, std::string_view origin) {
  SnapshotLoadOptions opt;
  opt.today = impl_->today;
  return adopt_snapshot(*impl_, trainfit::load_snapshot_binary(bytes, opt, nullptr), origin);
}
std::string App::apply_snapshot_text(std::string_view sidecar_json) {
  Impl& s = *impl_;
  if (!s.has_snapshot) return "no snapshot is loaded";
  Result<size_t> r = trainfit::apply_snapshot_text(s.snapshot, sidecar_json);
  if (!r) return s.snapshot_text_error = "text sidecar refused: " + r.error().to_string();
  s.snapshot_text_error.clear();
  return "";
}
#ifndef __EMSCRIPTEN__
std::string App::apply_stock_report(std::string_view report_json) {
  Impl& s = *impl_;
  if (!s.has_snapshot) return "no snapshot is loaded";
  Result<StockReport> r = read_stock_report(report_json);
  if (!r) return "stock report refused: " + r.error().to_string();
  apply_stock(s.snapshot, *r);
  s.plan_cache.clear();
  ++s.snapshot_version;
  ++s.query_version;  // the flags change the ranking (launchable) and its flags column
  return "";
}
#endif
bool App::has_snapshot() const { return impl_->has_snapshot; }
const std::string& App::today() const { return impl_->today; }

std::string App::set_query_json(std::string_view text) { return impl_->adopt(parse_query_json(text)); }
std::string App::set_query_hash(std::string_view hash) { return impl_->adopt(parse_query_hash(hash)); }
std::string App::query_json() const { return query_to_json(impl_->query); }
std::string App::query_hash() const { return query_to_hash(impl_->query); }
uint64_t App::query_version() const { return impl_->query_version; }

std::string App::results_json() const { return api_call("rank", query_json()); }

std::string App::api_call(std::string_view verb, std::string_view query_json) const {
  if (verb.substr(0, 3) == "ui.") return ui_call(verb, query_json);
  return trainfit::api_call(verb, query_json, impl_->has_snapshot ? &impl_->snapshot : nullptr);
}

std::string App::ui_call(std::string_view verb, std::string_view arg) const {
  Impl& s = *impl_;
  if (verb == "ui.requests") return const_cast<App*>(this)->take_shell_requests();
  if (verb == "ui.theme") {
    if (arg != "dark" && arg != "light")
      return "{\"ok\":false,\"error\":{\"field\":\"theme\",\"message\":\"must be dark or light\"}}";
    const_cast<App*>(this)->set_dark(arg == "dark");
    return "{\"ok\":true}";
  }
  if (verb == "ui.embed") {
    const_cast<App*>(this)->set_embed(arg == "1" || arg == "true");
    return "{\"ok\":true}";
  }
  if (verb == "ui.view") {
    return view_json(s, std::atoi(std::string(arg).c_str()));
  }
  if (verb == "ui.select") {
    s.recompute();
    if (s.view_dirty) s.rebuild_view();
    const int i = std::atoi(std::string(arg).c_str());
    if (i < 0 || i >= static_cast<int>(s.view.size()))
      return "{\"ok\":false,\"error\":{\"field\":\"row\",\"message\":\"no such row in the table\"}}";
    s.select_row(s.view[i]);
    return "{\"ok\":true}";
  }
  if (verb == "ui.call") return shell_call_json(s, arg);
  if (verb == "ui.answer") return answer_shell_call(s, arg);
  return "{\"ok\":false,\"error\":{\"field\":\"verb\",\"message\":\"unknown ui verb\"}}";
}

// ------------------------------------------------------------------------------------------------------
// [SECTION] Shell hooks
uint64_t App::frames() const { return impl_->frames; }
int App::ranked_rows() const { return impl_->rank ? impl_->rank->ranked : -1; }
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
std::string App::take_shell_requests() {
  std::string out = "[";
  for (size_t i = 0; i < impl_->requests.size(); ++i) {
    if (i) out += ",";
    out += '"';  // (piecewise, as in state_json)
    out += json_escape(impl_->requests[i]);
    out += '"';
  }
  impl_->requests.clear();
  return out + "]";
}
void App::set_dark(bool dark) {
  if (impl_->dark == dark) return;
  impl_->dark = dark;
  impl_->fonts_dirty = true;  // the style is rebuilt with the fonts, outside the frame
}
bool App::dark() const { return impl_->dark; }
void App::clear_color(float rgba[4]) const {
  const ImVec4 c = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];  // transparent, colour kept (rebuild_fonts)
  rgba[0] = c.x;
  rgba[1] = c.y;
  rgba[2] = c.z;
  rgba[3] = 1.0f;
}
void App::set_embed(bool embed) { impl_->opts.embed = embed; }
double App::frame_ms() const { return impl_->frame_ms; }
double App::frame_ms_avg() const { return impl_->frame_ms_avg; }

bool App::rebuild_fonts() {
  ImGuiIO& io = ImGui::GetIO();
  // The atlas depends on the scale only: a theme change rebuilds the style and keeps the glyphs (rasterising
  // them is ~10 ms in a browser's baseline wasm tier, and the shell would re-upload the texture).
  const float px = std::round(15.0f * impl_->scale);
  const bool atlas = px != impl_->atlas_px || !io.Fonts->IsBuilt();
  if (atlas) {
    io.Fonts->Clear();
    std::string_view font = embedded_ui_font();
    ImFontConfig cfg;
    cfg.FontDataOwnedByAtlas = false;  // the bytes live in the binary
    cfg.OversampleH = 2;
    io.Fonts->AddFontFromMemoryTTF(const_cast<char*>(font.data()), static_cast<int>(font.size()), px, &cfg,
                                   io.Fonts->GetGlyphRangesDefault());
    io.Fonts->Build();
    impl_->atlas_px = px;
  }
  ImGuiStyle style;
  if (impl_->dark) {
    ImGui::StyleColorsDark(&style);
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.09f, 0.09f, 0.11f, 1.0f);
    style.Colors[ImGuiCol_ChildBg] = ImVec4(0.11f, 0.11f, 0.13f, 1.0f);
  } else {
    ImGui::StyleColorsLight(&style);
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.97f, 0.97f, 0.98f, 1.0f);
    style.Colors[ImGuiCol_ChildBg] = ImVec4(1.0f, 1.0f, 1.0f, 1.0f);
    // Light frames are white on white panels: a border keeps inputs, radio buttons and checkboxes visible.
    style.FrameBorderSize = 1.0f;
  }
  // NOTE(perf): the main window and its children cover the whole canvas. Opaque backgrounds for them are full-
  // screen layers of blended pixels that a software-rendered WebGL canvas (SwiftShader: headless browsers, VMs,
  // machines with a blocklisted GPU) shades one by one: measured 50-65 ms of raster per frame with them,
  // 17-22 ms without (docs/performance.md). The shells clear to WindowBg instead (clear_color), children are
  // told apart by their borders, and popups/tooltips keep their opaque PopupBg. Only the alpha goes: the colour
  // stays in the style for clear_color.
  // Keyboard navigation (on in both shells) outlines the focused widget: amber, apart from every other colour
  // of either theme, so the focus is plain to see.
  style.Colors[ImGuiCol_NavHighlight] = impl_->dark ? ImVec4(1.0f, 0.72f, 0.2f, 1.0f) : ImVec4(0.82f, 0.33f, 0.0f, 1.0f);
  style.Colors[ImGuiCol_WindowBg].w = 0.0f;
  style.Colors[ImGuiCol_ChildBg].w = 0.0f;
  style.WindowRounding = 0.0f;
  style.ChildRounding = 4.0f;
  style.FrameRounding = 3.0f;
  style.ItemSpacing.y = 5.0f;
  style.ScaleAllSizes(impl_->scale);
  ImGui::GetStyle() = style;
  impl_->fonts_dirty = false;
  return atlas;
}

// ------------------------------------------------------------------------------------------------------
// [SECTION] Frame
namespace {

// The header line: what the tool is, the snapshot's age, theme and link. The tagline and the prices' date give
// way to the buttons when the window is too narrow for all of them (nothing overlaps).
void draw_header(App::Impl& s) {
  const float fs = ImGui::GetFontSize();
  const float buttons_x = ImGui::GetWindowContentRegionMax().x - fs * 17.5f;
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  // Whether `text` still fits on this line before the buttons.
  auto fits = [&](const char* text) {
    return ImGui::GetCursorPosX() + gap + ImGui::CalcTextSize(text).x < buttons_x - gap;
  };
  ImGui::TextUnformatted("trainfit");
  static const char* kTagline = "which GPU instance to train on";
  ImGui::SameLine();
  if (fits(kTagline)) ImGui::TextDisabled("%s", kTagline);
  else ImGui::NewLine();
  if (s.has_snapshot) {
    // The capture date(s) of the prices and their age, not the snapshot's build date.
    // A ranking is as fresh as its oldest ranked price: that date is named too.
    char b[240];
    std::snprintf(b, sizeof b, "  Prices captured %.120s%s%s, %zu offers%s%s%s", s.prices_text.c_str(),
                  s.prices.age_days ? ", " : "",
                  s.prices.age_days ? (std::to_string(*s.prices.age_days) + " days ago").c_str() : "",
                  s.snapshot.offers.size(), s.oldest_ranked.empty() ? "" : "; oldest ranked ",
                  s.oldest_ranked.c_str(), s.prices.stale ? " (STALE)" : "");
    ImGui::SameLine();
    if (fits(b)) {
      if (s.prices.stale) ImGui::TextColored(warn_color(), "%s", b);
      else ImGui::TextDisabled("%s", b);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Snapshot %s (built %s) from %s", s.snapshot.id.c_str(), s.snapshot.created.c_str(),
                          s.snapshot_origin.c_str());
    } else {
      ImGui::NewLine();
    }
  }
  ImGui::SameLine(buttons_x);
  if (ImGui::Button(s.dark ? "Light theme" : "Dark theme")) {
    s.dark = !s.dark;
    s.fonts_dirty = true;
    s.request(s.dark ? "theme:dark" : "theme:light");
  }
  ImGui::SameLine();
  if (ImGui::Button("Copy link")) s.clipboard = std::string("#").append(query_to_hash(s.query));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Every input is in the link: it reproduces this ranking.");
  ImGui::SameLine();
  if (ImGui::Button("Load prices...")) s.request("open_file");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Load another snapshot (or drop a .json file on the window).");
}

}  // namespace

void draw_messages(App::Impl& s) {
  if (!s.query_error.empty()) ImGui::TextColored(error_color(), "Input refused: %s (the previous inputs stay in use)", s.query_error.c_str());
  if (!s.snapshot_error.empty()) {
    ImGui::TextColored(error_color(), "Snapshot refused: %s", s.snapshot_error.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("(kept: %s)", s.has_snapshot ? s.snapshot.id.c_str() : "none");
    ImGui::SameLine();
    if (ImGui::SmallButton("Dismiss")) s.snapshot_error.clear();
  }
  if (!s.banner.empty()) ImGui::TextColored(warn_color(), "%s", s.banner.c_str());
  if (s.has_snapshot && s.prices.stale)
    ImGui::TextColored(warn_color(), "Stale prices: captured %s, over %.0f days before today (%s). Providers change "
                       "prices often; refresh them with %s, or load a newer snapshot.", s.prices_text.c_str(),
                       s.snapshot.stale_after_days, s.today.c_str(), kRefreshPricesCommand);
  if (s.has_snapshot && !s.rank) ImGui::TextColored(error_color(), "%s", s.rank.error().to_string().c_str());
}

namespace {
// How many rows are held back for a doubtful price and why (the flags, counted), one click from showing them.
void draw_held_back_note(App::Impl& s) {
  if (s.rank->held_back == 0 && !s.query.filters.show_doubtful) return;
  ImGui::SameLine();
  if (s.query.filters.show_doubtful) {
    ImGui::TextColored(warn_color(), " |  doubtful prices ranked (marked !)");
    ImGui::SameLine();
    if (ImGui::SmallButton("Hold them back")) {
      s.draft.filters.show_doubtful = false;
      s.commit();
    }
    return;
  }
  if (s.held_back_version != s.rank_version) {
    s.held_back_version = s.rank_version;
    std::string& why = s.held_back_why;
    why.clear();
    for (OfferFlag f : kAllOfferFlagBits) {
      int n = 0;
      for (const RankRow& r : s.rank->rows)
        n += r.state == RowState::held_back && (held_back_flags(s.snapshot.offers[r.offer], r.option) & f);
      if (n > 0) why += (why.empty() ? "" : ", ") + std::to_string(n) + " " + offer_flag_name(f);
    }
  }
  ImGui::TextColored(warn_color(), " |  %d held back for a doubtful price (%s)", s.rank->held_back,
                     s.held_back_why.c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("Show them")) {
    s.draft.filters.show_doubtful = true;
    s.commit();
  }
}

void draw_result_summary(App::Impl& s) {
  char a[32], b[32];
  if (s.params)
    ImGui::Text("%s: %s params (%s active)", s.query.model.name.empty() ? s.query.model_id.c_str() : s.query.model.name.c_str(),
                fmt_count(a, sizeof a, s.params->total), fmt_count(b, sizeof b, s.params->active));
  else
    ImGui::TextColored(error_color(), "%s", s.params.error().to_string().c_str());
  if (s.rank) {
    ImGui::SameLine();
    ImGui::TextDisabled(" |  %d of %zu offer x pricing rows fit and pass the filters  |  ranked in %.1f ms", s.rank->ranked,
                        s.rank->rows.size(), s.rank_ms);
    mark_last_item("headline");
    draw_held_back_note(s);
  }
}
}  // namespace

bool is_narrow(float css_w, float css_h) { return css_w < 700 || (css_w < 820 && css_h > css_w); }

void draw_tab_body(App::Impl& s, Tab tab) {
  switch (tab) {
    case Tab::detail: draw_detail(s); break;
    case Tab::chart: draw_cost_time_chart(s); break;
    case Tab::memory: draw_memory_curves(s); break;
    case Tab::accuracy: draw_accuracy(s); break;
    case Tab::snapshot: draw_snapshot_info(s); break;
  }
}

void draw_tabs(App::Impl& s) {
  if (!ImGui::BeginTabBar("views")) return;
  struct T { const char* label; Tab tab; };
  const T tabs[] = {{"Detail", Tab::detail}, {"Cost vs time", Tab::chart}, {"Memory curves", Tab::memory},
                    {"Accuracy", Tab::accuracy}, {"Snapshot", Tab::snapshot}};
  for (const T& t : tabs) {
    ImGuiTabItemFlags flags = (s.want_tab && s.tab == t.tab) ? ImGuiTabItemFlags_SetSelected : 0;
    if (ImGui::BeginTabItem(t.label, nullptr, flags)) {
      if (!s.want_tab) s.tab = t.tab;
      ImGui::BeginChild("tab_body", ImVec2(0, 0), false);
      draw_tab_body(s, t.tab);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
  }
  s.want_tab = false;
  ImGui::EndTabBar();
}

void App::frame() {
  Impl& s = *impl_;
  const double t0 = now_ms();
  s.recompute();
  if (s.view_dirty) s.rebuild_view();
  ++s.frames;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::Begin("trainfit", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  const float fs = ImGui::GetFontSize();
  const bool narrow = is_narrow(vp->WorkSize.x / s.scale, vp->WorkSize.y / s.scale);
  if (narrow != s.narrow) s.want_tab = true;  // the other layout's view switcher shows the same view
  s.narrow = narrow;

  if (narrow) {
    draw_narrow(s);
  } else if (s.opts.embed) {
    // Compact: the job is fixed by the embedding page's hash; a link opens the full calculator.
    char a[32];
    ImGui::Text("%s, %s, %s tokens, seq %lld", s.query.model.name.c_str(), to_string(s.query.train.method),
                fmt_count(a, sizeof a, s.rank ? s.rank->useful_tokens : s.query.dataset.tokens),
                static_cast<long long>(s.query.train.seq_len));
    ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - fs * 14);
    if (ImGui::Button("Open full calculator")) s.request("open_full_app");
    draw_messages(s);
    if (!s.has_snapshot) ImGui::TextDisabled("Loading prices...");
    const float avail = ImGui::GetContentRegionAvail().y;
    draw_results_table(s, std::max(fs * 8, avail * 0.5f));
    draw_tabs(s);
  } else {
    draw_header(s);
    ImGui::Separator();
    // Left: the job and the constraints. Right: the ranking and the views of the selected row.
    const float left_w = std::min(fs * 23, ImGui::GetContentRegionAvail().x * 0.4f);
    ImGui::BeginChild("inputs", ImVec2(left_w, 0), true);
    draw_job_panel(s);
    draw_constraints_panel(s);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("outputs", ImVec2(0, 0), false);
    draw_result_summary(s);
    draw_messages(s);
    if (!s.has_snapshot) ImGui::TextDisabled("Loading prices...");
    const float avail = ImGui::GetContentRegionAvail().y;
    draw_results_table(s, std::max(fs * 8, avail * 0.45f));
    draw_tabs(s);
    ImGui::EndChild();
  }
  ImGui::End();
  s.frame_ms = now_ms() - t0;
  s.frame_ms_avg = s.frames <= 1 ? s.frame_ms : s.frame_ms_avg * 0.9 + s.frame_ms * 0.1;
}

}  // namespace trainfit::app
