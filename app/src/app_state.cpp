// trainfit — the app's state as JSON (App::state_json, the ui.view verb): what the page's tests and scripts read,
// with numbers written exactly as the JSON facade writes them.
#include <algorithm>
#include <cstdio>
#include <string>

#include "app_impl.h"
#include "imgui.h"
#include "trainfit/app/app.h"
#include "trainfit/engine.h"

namespace trainfit::app {

namespace {
// Numbers written exactly as the JSON facade writes them (api.h json_number), so the UI's figures compare equal
// to `trainfit rank --format json`.
void put_num(std::string& s, const char* key, double v) {
  s += ",\"";
  s += key;
  s += "\":";
  s += json_number(v);
}
}  // namespace

std::string App::state_json() const {
  Impl& s = *impl_;
  s.recompute();
  std::string out = "{\"query\":" + query_json() + ",\"hash\":\"" + json_escape(query_hash()) + "\"";
  put_num(out, "frames", static_cast<double>(s.frames));
  put_num(out, "ui_scale", s.scale);
  put_num(out, "frame_ms", s.frame_ms);
  put_num(out, "frame_ms_avg", s.frame_ms_avg);
  if (ImGui::GetCurrentContext()) {  // input as ImGui saw it last frame (for diagnosing shells and tests)
    const ImGuiIO& io = ImGui::GetIO();
    char b[128];
    std::snprintf(b, sizeof b, ",\"mouse\":{\"x\":%.1f,\"y\":%.1f,\"down\":%s}", io.MousePos.x > -1e30f ? io.MousePos.x : -1.0f,
                  io.MousePos.y > -1e30f ? io.MousePos.y : -1.0f, io.MouseDown[0] ? "true" : "false");
    out += b;
  }
  if (s.params) {
    put_num(out, "params_total", s.params->total);
    put_num(out, "params_active", s.params->active);
  }
  if (s.memory) put_num(out, "memory_total_bytes", s.memory->total);
  char job[256];
  out += ",\"job\":\"" + json_escape(job_line(s, job, sizeof job)) + "\"";
  out += ",\"narrow\":";
  out += s.narrow ? "true" : "false";
  out += ",\"theme\":\"";
  out += s.dark ? "dark" : "light";
  out += "\",\"embed\":";
  out += s.opts.embed ? "true" : "false";
  out += ",\"snapshot\":";
  if (s.has_snapshot) {  // (appended piecewise: "\"" + string trips g++ 12's false -Wrestrict, GCC bug 105329)
    out += '"';
    out += json_escape(s.snapshot.id);
    out += '"';
  } else {
    out += "null";
  }
  out += ",\"snapshot_origin\":\"" + json_escape(s.snapshot_origin) + "\"";
  if (s.has_snapshot) {
    put_num(out, "offers", static_cast<double>(s.snapshot.offers.size()));
    // "complete", "loading" (a lean snapshot before its text sidecar) or the sidecar's refusal.
    out += ",\"snapshot_text\":\"" +
           json_escape(!s.snapshot.text_left_out ? "complete" : s.snapshot_text_error.empty() ? "loading" : s.snapshot_text_error) + "\"";
    out += ",\"prices_captured\":\"" + json_escape(s.prices_text) + "\",\"prices_stale\":";
    out += s.prices.stale ? "true" : "false";
    if (!s.oldest_ranked.empty()) out += ",\"prices_oldest_ranked\":\"" + json_escape(s.oldest_ranked) + "\"";
  }
  // The UI's own cached ranking: tests compare these numbers with `trainfit rank --format json`.
  if (s.rank) {
    put_num(out, "ranked", s.rank->ranked);
    put_num(out, "held_back", s.rank->held_back);
    put_num(out, "rows_total", static_cast<double>(s.rank->rows.size()));
    put_num(out, "rows_shown", static_cast<double>(s.view.size()));
    put_num(out, "rank_ms", s.rank_ms);
    put_num(out, "rank_count", static_cast<double>(s.rank_count));
    // Rows by state, with the rank document's names (api_rank.cpp): what the page's text for screen readers says
    // was held back.
    constexpr int kStates = static_cast<int>(RowState::held_back) + 1;  // the last state (rank.h)
    int by_state[kStates] = {};
    for (const RankRow& r : s.rank->rows) ++by_state[static_cast<int>(r.state)];
    out += ",\"counts\":{";
    for (int k = 0; k < kStates; ++k) {
      if (k) out += ",";
      out += '"';  // (piecewise, as above)
      out += row_state_name(static_cast<RowState>(k));
      out += "\":" + std::to_string(by_state[k]);
    }
    out += "}";
    if (const RankRow* r = s.selected_row()) {
      out += ",\"selected\":{\"offer\":\"" + json_escape(s.snapshot.offers[r->offer].id) + "\",\"option\":\"" +
             pricing_option_name(r->option) + "\",\"state\":\"" + row_state_name(r->state) + "\"";
      put_num(out, "total_usd", r->total_usd);
      put_num(out, "wall_s", r->wall_s);
      put_num(out, "nodes", r->nodes);
      put_num(out, "memory_bytes", r->memory_bytes);  // the row's plan, as ranked
      // The detail view's memory bar: the same plan's breakdown, computed again for the view.
      if (s.row_memory) put_num(out, "detail_memory_bytes", s.row_memory->total);
      out += "}";
    }
  } else if (s.has_snapshot) {
    out += ",\"rank_error\":\"" + json_escape(s.rank.error().to_string()) + "\"";
  }
  const char* tabs[] = {"detail", "chart", "memory", "accuracy", "snapshot"};
  out += ",\"tab\":\"";
  out += tabs[static_cast<int>(s.tab)];
  out += "\",\"errors\":{\"query\":\"" + json_escape(s.query_error) + "\",\"snapshot\":\"" +
         json_escape(s.snapshot_error) + "\",\"banner\":\"" + json_escape(s.banner) + "\"}}";
  return out;
}

// trainfit.view(): the rows the table shows, in its order, with the numbers it prints and each row's
// data-quality flags (for tests and scripts).
// The rows the table shows, in its order, with the numbers it prints (for tests and scripts): at most 200, or
// the number asked for ("3": the first three, what the page's live text reads).
std::string view_json(App::Impl& s, int asked) {
  s.recompute();
  if (s.view_dirty) s.rebuild_view();
  std::string out = "{\"ok\":true,\"rows\":[";
  if (s.rank) {
    const int limit = std::min<int>(static_cast<int>(s.view.size()), asked > 0 ? std::min(asked, 200) : 200);
    for (int i = 0; i < limit; ++i) {
      const RankRow& r = s.rank->rows[s.view[i]];
      const Offer& o = s.snapshot.offers[r.offer];
      if (i) out += ",";
      out += "{\"offer\":\"" + json_escape(o.id) + "\",\"option\":\"" + pricing_option_name(r.option) + "\",\"state\":\"" +
             row_state_name(r.state) + "\"";
      put_num(out, "total_usd", r.total_usd);
      put_num(out, "wall_s", r.wall_s);
      put_num(out, "usd_per_mtok", r.usd_per_mtok);
      put_num(out, "price_usd_per_h", r.price_usd_per_h);
      put_num(out, "nodes", r.nodes);
      if (r.dev_cycle_usd >= 0) put_num(out, "dev_cycle_usd", r.dev_cycle_usd);
      out += ",\"pareto\":";
      out += r.pareto ? "true" : "false";
      out += ",\"flags\":[";
      bool first = true;
      for (const std::string& f : offer_flag_names(o.flags)) {
        out += first ? "\"" : ",\"";
        out += f;
        out += '"';
        first = false;
      }
      out += "]";
      if (!r.why_not.empty()) out += ",\"why_not\":\"" + json_escape(r.why_not) + "\"";
      out += "}";
    }
  }
  out += "],\"shown\":" + std::to_string(s.view.size()) + ",\"sort_column\":" + std::to_string(s.sort_col) +
         ",\"descending\":" + (s.sort_desc ? "true" : "false") + "}";
  return out;
}

}  // namespace trainfit::app
