// trainfit — the one-column layout for phones and narrow iframes (is_narrow: below 700 CSS px, or upright
// tablets): the job as one summary line that opens its inputs on demand, the headline, the first offers as
// cards (the full table one tap away), then the views of the selected offer. Every control is at least 44 CSS
// px high (a finger's target: WCAG 2.2 "Target Size (Enhanced)", 2.5.5, and Apple's Human Interface Guidelines),
// and the page scrolls as one column (touch drags scroll: web/main_web.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app_impl.h"
#include "imgui_internal.h"  // ImGuiSelectableFlags_NoPadWithHalfSpacing

namespace trainfit::app {
namespace {

constexpr float kTargetCssPx = 44.0f;  // touch target height
constexpr int kCards = 5;              // offers shown as cards before "all rows"

// Buttons laid out left to right, wrapping to a new line when the next one would not fit.
struct Flow {
  bool first = true;
  bool button(const char* label, float w = 0) {
    const ImGuiStyle& st = ImGui::GetStyle();
    if (w <= 0) w = ImGui::CalcTextSize(label, nullptr, true).x + st.FramePadding.x * 2;
    if (!first) {
      const float right = ImGui::GetItemRectMax().x + st.ItemSpacing.x + w;
      if (right <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) ImGui::SameLine();
    }
    first = false;
    return ImGui::Button(label, ImVec2(w, 0));
  }
};

// A button drawn as pressed while `on` (one choice of a segmented control).
bool toggle(const char* label, bool on, float w) {
  if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
  const bool clicked = ImGui::Button(label, ImVec2(w, 0));
  if (on) ImGui::PopStyleColor();
  return clicked;
}

void draw_top(App::Impl& s) {
  ImGui::TextUnformatted("trainfit");
  ImGui::SameLine();
  ImGui::TextDisabled("which GPU instance to train on");
  if (s.has_snapshot) {
    // The oldest capture date among the prices ranked (the snapshot's oldest before a ranking), not the
    // snapshot's build date: a ranking is as fresh as its oldest price.
    const std::string& date = !s.oldest_ranked.empty() ? s.oldest_ranked
                              : !s.prices.dates.empty() ? s.prices.dates.front().date
                                                        : s.snapshot.created;
    const bool stale = s.prices.stale;
    ImGui::PushStyleColor(ImGuiCol_Text, stale ? warn_color() : ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    // "oldest ranked" as the wide layout says it: the snapshot's own oldest price may be older (and make it stale).
    ImGui::TextWrapped("Prices: %s %s, %zu offers%s", s.oldest_ranked.empty() ? "oldest" : "oldest ranked",
                       date.c_str(), s.snapshot.offers.size(), stale ? " (STALE)" : "");
    ImGui::PopStyleColor();
  }
  Flow f;
  if (s.opts.embed) {
    if (f.button("Open full calculator")) s.request("open_full_app");
    return;
  }
  if (f.button("Copy link")) s.clipboard = std::string("#").append(query_to_hash(s.query));
  if (f.button("Load prices...")) s.request("open_file");
  if (f.button(s.dark ? "Light theme" : "Dark theme")) {
    s.dark = !s.dark;
    s.fonts_dirty = true;
    s.request(s.dark ? "theme:dark" : "theme:light");
  }
}

// The job in one line ("Llama 3.1 8B, lora, 100 M tokens, seq 2048"); a tap opens its inputs below it.
void draw_job(App::Impl& s) {
  char line[256];
  job_line(s, line, sizeof line);
  if (s.opts.embed) {  // the embedding page fixes the job (as in the wide embed layout)
    ImGui::TextWrapped("%s", line);
    return;
  }
  const float w = ImGui::GetContentRegionAvail().x;
  const char* action = s.job_open ? "Done" : "Edit";
  const float action_w = ImGui::CalcTextSize(action).x + ImGui::GetStyle().FramePadding.x * 2;
  ImGui::PushStyleVar(ImGuiStyleVar_ButtonTextAlign, ImVec2(0.0f, 0.5f));
  // The summary itself is the button (the whole line is a target); its text is clipped to the button.
  const float summary_w = std::max(w - action_w - ImGui::GetStyle().ItemSpacing.x, w * 0.5f);
  std::string label = std::string(line) + "##job";
  bool toggled = ImGui::Button(label.c_str(), ImVec2(summary_w, 0));
  mark_last_item("job summary");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", line);
  ImGui::PopStyleVar();
  ImGui::SameLine();
  toggled |= ImGui::Button(s.job_open ? "Done##job" : "Edit##job", ImVec2(action_w, 0));
  if (toggled) s.job_open = !s.job_open;
  if (!s.job_open) return;
  // The inputs flow with the page (imgui 1.86's child windows cannot size themselves to their contents).
  ImGui::Separator();
  draw_job_panel(s);
  draw_constraints_panel(s);
  if (ImGui::Button("Done##job_end", ImVec2(-1, 0))) s.job_open = false;
  ImGui::Separator();
}

// One result as a card: what a person compares first (instance, GPUs, time, total cost) and its flags.
void draw_card(App::Impl& s, int vi) {
  const int ri = s.view[vi];
  const RankRow& r = s.rank->rows[ri];
  const Offer& o = s.snapshot.offers[r.offer];
  const bool ranked = r.state == RowState::ranked;
  const ImGuiStyle& st = ImGui::GetStyle();
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  const float pad = st.FramePadding.x;
  const float w = ImGui::GetContentRegionAvail().x;
  const float h = std::max(line_h * 3 + pad * 1.5f, kTargetCssPx * s.scale);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  char id[32];
  std::snprintf(id, sizeof id, "##card%d", ri);
  ImGui::PushStyleVar(ImGuiStyleVar_SelectableTextAlign, ImVec2(0, 0));
  // (Not padded with half the item spacing: the highlight fills the card's border exactly.)
  if (ImGui::Selectable(id, ri == s.selected, ImGuiSelectableFlags_NoPadWithHalfSpacing, ImVec2(w, h))) s.select_row(ri);
  ImGui::PopStyleVar();
  char card[16];
  std::snprintf(card, sizeof card, "card:%d", vi + 1);
  mark_last_item(card);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 ink = ImGui::GetColorU32(ranked ? ImGuiCol_Text : ImGuiCol_TextDisabled);
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  // The border around what the selectable highlights (its rectangle takes in half the item spacing).
  dl->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), ImGui::GetColorU32(ImGuiCol_Border), st.ChildRounding, 0,
              std::max(1.0f, s.scale));  // 1 CSS px
  const float x = p0.x + pad, right = p0.x + w - pad;
  float y = p0.y + pad * 0.75f;
  char b[192], c[32], t[32];
  // Line 1: rank and instance; the total cost on the right.
  std::snprintf(b, sizeof b, "#%d  %s", vi + 1, s.row_texts(ri).name);
  const char* cost = ranked ? fmt_usd(c, sizeof c, r.total_usd) : row_state_name(r.state);
  const float cost_w = ImGui::CalcTextSize(cost).x;
  dl->PushClipRect(ImVec2(x, p0.y), ImVec2(right - cost_w - pad, p0.y + h), true);
  dl->AddText(ImVec2(x, y), ink, b);
  dl->PopClipRect();
  dl->AddText(ImVec2(right - cost_w, y), ranked ? ink : ImGui::GetColorU32(ImGuiCol_TextDisabled), cost);
  y += line_h;
  // Line 2: GPUs, provider, pricing; the wall-clock time on the right.
  std::snprintf(b, sizeof b, "%s \xC2\xB7 %s \xC2\xB7 %s", s.row_texts(ri).gpus, s.row_texts(ri).seller,
                pricing_option_name(r.option));
  const char* time = ranked ? fmt_duration(t, sizeof t, r.wall_s) : "";
  const float time_w = ImGui::CalcTextSize(time).x;
  dl->PushClipRect(ImVec2(x, p0.y), ImVec2(right - time_w - pad, p0.y + h), true);
  dl->AddText(ImVec2(x, y), dim, b);
  dl->PopClipRect();
  dl->AddText(ImVec2(right - time_w, y), ink, time);
  y += line_h;
  // Line 3: flags (Pareto, the snapshot's data-quality flags) or why it is not ranked.
  std::string flags;
  if (!ranked) {
    flags = r.why_not;
  } else {
    std::snprintf(b, sizeof b, "%s/h, %.0f%% headroom", fmt_usd(c, sizeof c, r.price_usd_per_h), r.headroom * 100);
    flags = b;
    if (r.verdict == FitVerdict::tight) flags += " \xC2\xB7 tight: may run out of memory";
    if (r.pareto) flags += " \xC2\xB7 Pareto";
  }
  for (const auto& f : offer_flag_names(o.flags)) flags += " \xC2\xB7 " + f;
  dl->PushClipRect(ImVec2(x, p0.y), ImVec2(right, p0.y + h), true);
  dl->AddText(ImVec2(x, y), o.flags ? ImGui::ColorConvertFloat4ToU32(warn_color()) : dim, flags.c_str());
  dl->PopClipRect();
}

void draw_results(App::Impl& s) {
  if (!s.rank) return;
  const float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) / 2;
  if (toggle("Cards", !s.table_view, half)) s.table_view = false;
  ImGui::SameLine();
  if (toggle("Table", s.table_view, half)) s.table_view = true;
  if (s.table_view) {
    const float h = ImGui::GetMainViewport()->WorkSize.y * 0.6f;
    ImGui::PushTextWrapPos(-1.0f);  // one line per cell: the list clipper counts rows of one line
    draw_results_table(s, std::max(h, ImGui::GetFontSize() * 12));
    ImGui::PopTextWrapPos();
    return;
  }
  const int n = std::min<int>(kCards, static_cast<int>(s.view.size()));
  for (int vi = 0; vi < n; ++vi) draw_card(s, vi);
  if (static_cast<int>(s.view.size()) > n) {
    char b[64];
    std::snprintf(b, sizeof b, "All %zu rows in the table", s.view.size());
    if (ImGui::Button(b, ImVec2(-1, 0))) s.table_view = true;
  }
}

// The views of the selected offer: one button each (they wrap; tabs would be too small for a finger), then
// the view. Charts get a screen-high frame of their own; the detail flows with the page.
void draw_views(App::Impl& s) {
  struct V { const char* label; Tab tab; };
  static const V views[] = {{"Detail", Tab::detail}, {"Cost vs time", Tab::chart}, {"Memory curves", Tab::memory},
                            {"Accuracy", Tab::accuracy}, {"Snapshot", Tab::snapshot}};
  ImGui::Separator();
  Flow f;
  for (const V& v : views) {
    const bool on = s.tab == v.tab;
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (f.button(v.label)) s.tab = v.tab;
    if (on) ImGui::PopStyleColor();
  }
  s.want_tab = false;
  if (s.tab == Tab::detail) {
    draw_tab_body(s, s.tab);
    return;
  }
  const float h = std::max(ImGui::GetMainViewport()->WorkSize.y * 0.75f, ImGui::GetFontSize() * 20);
  ImGui::BeginChild("view_body", ImVec2(0, h), false);
  draw_tab_body(s, s.tab);
  ImGui::EndChild();
}

}  // namespace

const char* job_line(const App::Impl& s, char* buf, size_t n) {
  char tok[32];
  const Query& q = s.query;
  std::snprintf(buf, n, "%s, %s, %s tokens, seq %lld", q.model.name.empty() ? q.model_id.c_str() : q.model.name.c_str(),
                to_string(q.train.method), fmt_count(tok, sizeof tok, s.rank ? s.rank->useful_tokens : q.dataset.tokens),
                static_cast<long long>(q.train.seq_len));
  return buf;
}

// The headline, in words: what the job is, whether it fits anywhere, the best offer.
void draw_headline(App::Impl& s) {
  if (!s.rank) return;
  char c[32], t[32];
  const RankRow* best = nullptr;
  for (int ri : s.view)
    if (s.rank->rows[ri].state == RowState::ranked) {
      best = &s.rank->rows[ri];
      break;
    }
  if (!best) {
    ImGui::PushStyleColor(ImGuiCol_Text, warn_color());
    ImGui::TextWrapped("No offer fits this job and passes the filters (%zu offer x pricing rows checked).", s.rank->rows.size());
    ImGui::PopStyleColor();
  } else {
    const Offer& o = s.snapshot.offers[best->offer];
    ImGui::TextWrapped("Fits on %d of %zu offer x pricing rows. Best: %s (%s), %s, %s.", s.rank->ranked, s.rank->rows.size(),
                       offer_display_name(s.snapshot, o).c_str(), offer_seller_text(s.snapshot, o).c_str(),
                       fmt_duration(t, sizeof t, best->wall_s), fmt_usd(c, sizeof c, best->total_usd));
  }
  mark_last_item("headline");
}

void draw_narrow(App::Impl& s) {
  // Touch-size targets: every frame (buttons, fields, tabs) at least 44 CSS px high; table rows are a frame
  // high too (draw_results_table).
  const float fs = ImGui::GetFontSize();
  const float pad_y = std::ceil(std::max(0.0f, kTargetCssPx * s.scale - fs) / 2);
  const ImGuiStyle& st = ImGui::GetStyle();
  ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(std::max(st.FramePadding.x, 10 * s.scale), pad_y));
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(8 * s.scale, 8 * s.scale));
  ImGui::PushTextWrapPos(0.0f);  // every text wraps at the screen's edge (not in table cells: draw_results)
  draw_top(s);
  draw_job(s);
  draw_messages(s);
  if (!s.has_snapshot) ImGui::TextDisabled("Loading prices...");
  draw_headline(s);
  draw_results(s);
  draw_views(s);
  ImGui::PopTextWrapPos();
  ImGui::PopStyleVar(2);
}

}  // namespace trainfit::app
