// trainfit — the trust views: Accuracy (every published reference, our estimate, the error, from the same
// `validate` document the CLI prints (api.h validation_document), plus the uncertainty band of the selected estimate) and Snapshot (date,
// sources, per-provider capture dates and billing rules, staleness, loading another snapshot).
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "app_impl.h"
#include "trainfit/engine.h"

namespace trainfit::app {
namespace {

void load_validation(App::Impl& s) {
  s.validation_loaded = true;
  try {
    const nlohmann::json doc = nlohmann::json::parse(trainfit::validation_document());
    if (!doc.value("ok", false)) {
      s.validation_error = doc.contains("error") ? doc["error"].value("message", "validation failed") : "validation failed";
      // The web module fetches the report after its first frame (api.h set_validation_document): ask again.
      if (doc.contains("error") && doc["error"].value("field", "") == "verb") s.validation_loaded = false;
      return;
    }
    s.validation_error.clear();
    for (const auto& r : doc["rows"]) {
      ValRow v;
      v.kind = r.value("kind", "");
      v.name = r.value("name", "");
      v.source = r.value("source", "");
      v.metric = r.value("metric", "");
      v.note = r.value("note", "");
      auto num = [&](const char* k) { return r.contains(k) && r[k].is_number() ? r[k].get<double>() : 0.0; };
      v.published = num("published");
      v.estimate = num("estimate");
      v.rel_error = num("rel_error");
      v.tolerance = num("tolerance");
      v.pass = r.value("pass", true);
      s.validation.push_back(std::move(v));
    }
  } catch (const std::exception& e) {
    s.validation_error = e.what();
  }
}

}  // namespace

void draw_accuracy(App::Impl& s) {
  if (!s.validation_loaded) load_validation(s);
  s.update_detail();
  ImGui::TextWrapped("How far to trust the numbers: each estimate carries a band derived from the errors against "
                     "published references below. Fit verdicts: 'fits' when the band's top is under the GPU's memory, "
                     "'tight' when only the expected peak is (may run out of memory), 'does not fit' otherwise.");
  if (const RankRow* r = s.selected_row(); r && r->state == RowState::ranked) {
    char a[32], b[32], c[32];
    ImGui::Text("Selected: %s (%s)", s.snapshot.offers[r->offer].id.c_str(), pricing_option_name(r->option));
    ImGui::BulletText("Memory per GPU: %.2f GiB expected, band up to %.2f GiB", r->memory_bytes / kGiB,
                      r->memory_high_bytes / kGiB);
    if (s.row_memory)
      ImGui::BulletText("Memory band: %.2f - %.2f GiB (factors %.2f - %.2f of the estimate)", s.row_memory->total_low / kGiB,
                        s.row_memory->total_high / kGiB, kBandLowFactor, kBandHighFactor);
    ImGui::BulletText("Training time: %s, band %s - %s (-%.0f%% / +%.0f%%)", fmt_duration(a, sizeof a, r->time_s),
                      fmt_duration(b, sizeof b, r->time_low_s), fmt_duration(c, sizeof c, r->time_high_s),
                      time_band(s.query.model).low * 100, time_band(s.query.model).high * 100);
    ImGui::BulletText("Total cost: %s, band %s - %s", fmt_usd(a, sizeof a, r->total_usd),
                      fmt_usd(b, sizeof b, r->total_low_usd), fmt_usd(c, sizeof c, r->total_high_usd));
  }
  if (!s.validation_error.empty()) {
    ImGui::TextColored(error_color(), "Validation report unavailable: %s", s.validation_error.c_str());
    return;
  }
  int pass = 0;
  for (const ValRow& v : s.validation) pass += v.pass;
  ImGui::Text("Validation report: %d references, %d within their tolerance.", static_cast<int>(s.validation.size()), pass);
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersV |
                                ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("validation", 7, flags, ImVec2(0, 0))) return;
  const float fs = ImGui::GetFontSize();
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("kind", 0, fs * 4);
  ImGui::TableSetupColumn("reference", 0, fs * 18);
  ImGui::TableSetupColumn("metric", 0, fs * 11);
  ImGui::TableSetupColumn("published", 0, fs * 6);
  ImGui::TableSetupColumn("ours", 0, fs * 6);
  ImGui::TableSetupColumn("error", 0, fs * 5);
  ImGui::TableSetupColumn("source", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  ImGuiListClipper clip;
  clip.Begin(static_cast<int>(s.validation.size()));
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const ValRow& v = s.validation[i];
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted(v.kind.c_str());
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(v.name.c_str());
      if (ImGui::IsItemHovered() && !v.note.empty()) ImGui::SetTooltip("%s", v.note.c_str());
      ImGui::TableSetColumnIndex(2);
      ImGui::TextUnformatted(v.metric.c_str());
      ImGui::TableSetColumnIndex(3);
      ImGui::Text("%.4g", v.published);
      ImGui::TableSetColumnIndex(4);
      ImGui::Text("%.4g", v.estimate);
      ImGui::TableSetColumnIndex(5);
      if (v.pass) ImGui::Text("%+.1f%%", v.rel_error * 100);
      else ImGui::TextColored(error_color(), "%+.1f%%", v.rel_error * 100);
      ImGui::TableSetColumnIndex(6);
      ImGui::TextUnformatted(v.source.c_str());
    }
  ImGui::EndTable();
}

void draw_snapshot_info(App::Impl& s) {
  if (!s.snapshot_error.empty())
    ImGui::TextColored(error_color(), "Refused: %s. The current snapshot stays in use.", s.snapshot_error.c_str());
  if (ImGui::Button("Load another snapshot...")) s.request("open_file");
  ImGui::SameLine();
  ImGui::TextDisabled("or drop a snapshot .json file on the window; it is validated like the bundled one.");
  if (!s.has_snapshot) {
    ImGui::TextDisabled("Loading prices...");
    return;
  }
  const Snapshot& sn = s.snapshot;
  const auto age = days_between(sn.created, s.today);
  ImGui::Text("Snapshot %s, created %s (%s), schema %d, %s.", sn.id.c_str(), sn.created.c_str(),
              age ? (std::to_string(*age) + " days old").c_str() : "age unknown", sn.schema_version, sn.currency.c_str());
  ImGui::Text("From: %s.  %zu GPUs, %zu providers, %zu offers, %zu validation warnings kept as row flags.",
              s.snapshot_origin.c_str(), sn.gpus.size(), sn.providers.size(), sn.offers.size(), sn.warnings.size());
  ImGui::Text("Prices captured %s%s.", s.prices_text.c_str(),
              s.prices.age_days ? (", " + std::to_string(*s.prices.age_days) + " days ago").c_str() : "");
  if (s.prices.stale)
    ImGui::TextColored(warn_color(), "Stale: some prices were captured over %.0f days ago; providers change prices often. "
                       "Refresh them with %s, or load a newer snapshot, before deciding.", sn.stale_after_days,
                       kRefreshPricesCommand);
  // A lean snapshot (the page's first load) has its sources and notes in a sidecar fetched after the first frame.
  if (sn.text_left_out && s.snapshot_text_error.empty())
    ImGui::TextDisabled("Sources and notes loading...");
  else if (sn.text_left_out)
    ImGui::TextColored(warn_color(), "Sources and notes not loaded (%s); the prices and figures are complete.",
                       s.snapshot_text_error.c_str());
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersV | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_Resizable;
  if (ImGui::BeginTable("providers", 6, flags)) {
    const float fs = ImGui::GetFontSize();
    ImGui::TableSetupColumn("provider", 0, fs * 7);
    ImGui::TableSetupColumn("captured", 0, fs * 6);
    ImGui::TableSetupColumn("age", 0, fs * 4);
    ImGui::TableSetupColumn("billing", 0, fs * 11);
    ImGui::TableSetupColumn("spot", 0, fs * 9);
    ImGui::TableSetupColumn("catalog source", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (const Provider& p : sn.providers) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted(p.name.empty() ? p.id.c_str() : p.name.c_str());
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(p.capture_date.c_str());
      ImGui::TableSetColumnIndex(2);
      const auto a = days_between(p.capture_date, s.today);
      if (a && *a > 90) ImGui::TextColored(warn_color(), "%d d", *a);
      else if (a) ImGui::Text("%d d", *a);
      ImGui::TableSetColumnIndex(3);
      ImGui::Text("%.0f s incr., %.0f s min.%s", p.billing.increment_s, p.billing.minimum_s,
                  p.billing_exceptions.empty() ? "" : " (+ exceptions)");
      if (ImGui::IsItemHovered() && !p.billing.source.empty()) ImGui::SetTooltip("%s", p.billing.source.c_str());
      ImGui::TableSetColumnIndex(4);
      // Unknowns say so (null in the snapshot): a pricing kind or a notice that is not published.
      if (p.spot.available && p.spot.notice_s >= 0)
        ImGui::Text("%s, %.0f s notice", p.spot.pricing.empty() ? "kind unknown" : p.spot.pricing.c_str(), p.spot.notice_s);
      else if (p.spot.available)
        ImGui::Text("%s, notice unknown", p.spot.pricing.empty() ? "kind unknown" : p.spot.pricing.c_str());
      else ImGui::TextDisabled("none");
      if (ImGui::IsItemHovered() && !p.spot.source.empty()) ImGui::SetTooltip("%s", p.spot.source.c_str());
      ImGui::TableSetColumnIndex(5);
      if (sn.text_left_out) ImGui::TextDisabled("%s", s.snapshot_text_error.empty() ? "loading..." : "not loaded");
      else ImGui::TextUnformatted(p.catalog_source.c_str());
    }
    ImGui::EndTable();
  }
  if (!sn.sources.empty()) {
    ImGui::Spacing();
    ImGui::TextUnformatted("Sources");
    for (const SourceRef& r : sn.sources)
      ImGui::BulletText("%s: %s (%s)", r.id.c_str(), r.address.c_str(), r.capture_date.c_str());
  }
}

}  // namespace trainfit::app
