// trainfit — the results table: one row per offer x pricing option, sortable columns, list clipping (only the
// visible rows are drawn, so 5,000 rows cost what 30 do), rows that do not fit / are filtered shown on demand
// with their reason in a tooltip, selection, and copy as CSV or Markdown.
// The order of the rows (`view`) is rebuilt only when the ranking, the sort column or "show all" change.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "app_impl.h"
#include "imgui_internal.h"  // TableSetColumnSortDirection: follow the "Rank by" combo in the header

namespace trainfit::app {
namespace {

SortKey key_of_column(int col, bool* ok) {
  *ok = true;
  if (col == kColCost) return SortKey::total_cost;
  if (col == kColTime) return SortKey::time;
  if (col == kColPerMtok) return SortKey::usd_per_mtok;
  *ok = false;
  return SortKey::total_cost;
}

double col_value(const App::Impl& s, const RankRow& r, int col) {
  const Offer& o = s.snapshot.offers[r.offer];
  switch (col) {
    case kColGpus: return o.gpu_count;
    case kColVram: return gpu_capacity_bytes(s.snapshot.gpus[o.gpu]);
    case kColTime: return r.wall_s;
    case kColCost: return r.total_usd;
    case kColPrice: return r.price_usd_per_h;
    case kColPerMtok: return r.usd_per_mtok;
    case kColHeadroom: return r.headroom;
    default: return 0;
  }
}

const char* col_text(const App::Impl& s, int ri, int col) {
  const RankRow& r = s.rank->rows[ri];
  const Offer& o = s.snapshot.offers[r.offer];
  switch (col) {
    case kColInstance: return s.row_texts(ri).name;
    case kColProvider: return s.row_texts(ri).seller;
    case kColRegion: return o.region.c_str();
    case kColOption: return pricing_option_name(r.option);
    case kColGpus: return s.row_texts(ri).gpus;
    case kColPlan: return s.row_texts(ri).plan;
    case kColState: return row_state_name(r.state);
    default: return "";
  }
}

// The Flags cell: "!" for a price the snapshot doubts (ranked only with "Show doubtful prices"), then the flag
// codes; hovering it lists each flag's meaning.
void draw_flags_cell(const Offer& o, const RankRow& r) {
  ImGui::TableSetColumnIndex(kColFlags);
  char buf[16];
  const uint32_t doubt = held_back_flags(o, r.option);
  ImGui::TextColored(warn_color(), "%s%s", doubt ? "! " : "", fmt_flags(buf, sizeof buf, o.flags));
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    flag_reasons(o.flags, doubt);
    ImGui::EndTooltip();
  }
}

}  // namespace

void App::Impl::rebuild_view() {
  view_dirty = false;
  view.clear();
  if (!rank) return;
  const bool all = query.filters.show_all;
  for (int i = 0; i < static_cast<int>(rank->rows.size()); ++i)
    if (all || rank->rows[i].state == RowState::ranked) view.push_back(i);
  if (sort_col == kColRank && !sort_desc) return;  // the core's order, as `trainfit rank` prints it
  const bool text = sort_col == kColInstance || sort_col == kColProvider || sort_col == kColRegion ||
                    sort_col == kColOption || sort_col == kColPlan || sort_col == kColState;
  const int col = sort_col;
  const bool desc = sort_desc;
  std::stable_sort(view.begin(), view.end(), [&](int a, int b) {
    const RankRow& ra = rank->rows[a];
    const RankRow& rb = rank->rows[b];
    const bool ka = ra.state == RowState::ranked, kb = rb.state == RowState::ranked;
    if (ka != kb) return ka;  // ranked rows always first
    if (col == kColRank) return desc ? a > b : a < b;
    if (text) {
      const int c = std::strcmp(col_text(*this, a, col), col_text(*this, b, col));
      return desc ? c > 0 : c < 0;
    }
    if (!ka) return false;  // unranked rows have no numbers: keep the core's order
    const double va = col_value(*this, ra, col), vb = col_value(*this, rb, col);
    return desc ? va > vb : va < vb;
  });
}

namespace {

// The line above the table: the copy buttons, how many rows are shown, and whether times are calibrated.
void draw_results_toolbar(App::Impl& s) {
  if (ImGui::Button("Copy CSV")) s.clipboard = results_text(s, false);
  ImGui::SameLine();
  if (ImGui::Button("Copy Markdown")) s.clipboard = results_text(s, true);
  ImGui::SameLine();
  if (s.rank && s.narrow) {
    ImGui::TextDisabled("%zu rows", s.view.size());
  } else if (s.rank) {
    ImGui::TextDisabled("%zu rows shown%s. Click a row for its detail; hover for why.", s.view.size(),
                        s.query.filters.show_all ? " (incl. rows that do not fit / are filtered)" : "");
  }
  // A calibrated query (calibrate.h): every time and cost below uses the factor fitted to that measured run.
  if (s.rank && s.query.calibration.efficiency_scale > 0) {
    ImGui::SameLine();
    const int gi = s.snapshot.find_gpu(s.query.calibration.gpu);
    ImGui::TextColored(warn_color(), "Times calibrated from %s.",
                       gi >= 0 ? s.snapshot.gpus[gi].name.c_str() : s.query.calibration.gpu.c_str());
  }
}

// The columns (numbers first after the instance's identity) and the header row. Returns the height of a cell.
float draw_results_columns(App::Impl& s) {
  const float fs = ImGui::GetFontSize();
  ImGui::TableSetupScrollFreeze(1, 1);
  // Numbers first after the instance's identity: they are what users compare.
  static const char* kNames[kColCount] = {"#",       "Instance", "Provider", "Region",   "Pricing",  "Flags",
                                          "GPUs",    "Time",     "Total cost", "$/h",    "$/M tok",
                                          "Headroom", "VRAM/GPU", "Plan",     "State"};
  static const float kWidths[kColCount] = {3, 9, 4.5f, 7, 4.8f, 2.8f, 8.5f, 4, 5, 4, 4.2f, 4.8f, 5.2f, 30, 7};
  for (int c = 0; c < kColCount; ++c) {
    ImGuiTableColumnFlags cf = c == kColFlags ? ImGuiTableColumnFlags_NoSort : 0;
    if (c == kColRank) cf |= ImGuiTableColumnFlags_DefaultSort;
    if (c == kColVram || c == kColHeadroom) cf |= ImGuiTableColumnFlags_PreferSortDescending;
    // Narrow screens: the numbers people compare come right after the instance (the provider, region, pricing
    // and GPUs are on the cards and in the detail); the rest is a horizontal drag away.
    if (s.narrow && (c == kColProvider || c == kColRegion || c == kColOption || c == kColGpus))
      cf |= ImGuiTableColumnFlags_Disabled;
    ImGui::TableSetupColumn(kNames[c], cf, fs * kWidths[c]);
  }
  // Headers one by one instead of TableHeadersRow(): imgui 1.86 gives table headers no test-engine info, so
  // each is recorded by label ("header:Total cost") for the UI tests' real clicks.
  // Narrow screens (touch): rows and headers a frame high (44 CSS px there, ui_narrow.cpp), text centred in them.
  const bool tall = s.narrow;
  const float cell_h = tall ? ImGui::GetFrameHeight() : ImGui::GetTextLineHeight();
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers, tall ? cell_h : 0.0f);
  for (int c = 0; c < kColCount; ++c) {
    if (!ImGui::TableSetColumnIndex(c)) continue;
    ImGui::TableHeader(kNames[c]);
    if (ImGui::GetCurrentContext()->TestEngineHookItems) mark_last_item(std::string("header:") + kNames[c]);
  }

  return cell_h;
}

// The table's sort specs: a click on a column header re-sorts the view, and on cost, time or $/M tokens re-ranks.
void sync_results_sort(App::Impl& s) {
  // The "Rank by" combo changed the core's order: show it as the "#" column's order.
  const int qsort = static_cast<int>(s.query.sort);
  if (s.synced_sort != qsort) {
    if (s.synced_sort >= 0) ImGui::TableSetColumnSortDirection(kColRank, ImGuiSortDirection_Ascending, false);
    s.synced_sort = qsort;
  }
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs()) {
    if (specs->SpecsDirty && specs->SpecsCount > 0) {
      const ImGuiTableColumnSortSpecs& sp = specs->Specs[0];
      s.sort_col = sp.ColumnIndex;
      s.sort_desc = sp.SortDirection == ImGuiSortDirection_Descending;
      bool maps = false;
      const SortKey k = key_of_column(s.sort_col, &maps);
      if (maps && !s.sort_desc && k != s.query.sort &&
          !(k == SortKey::total_cost && s.query.sort == SortKey::cost_under_deadline)) {
        // Cost, time and $/M tokens also choose each offer's node count: re-rank by that key (in the hash).
        s.draft.sort = k;
        s.synced_sort = static_cast<int>(k);
        s.commit();
      }
      s.view_dirty = true;
      specs->SpecsDirty = false;
    }
  }
}

// One row of the table: the "#" selectable (with its tooltip) and each column's text.
void draw_result_row(App::Impl& s, int vi, bool tall, float cell_h) {
  char buf[64];
  const int ri = s.view[vi];
  const RankRow& r = s.rank->rows[ri];
  const Offer& o = s.snapshot.offers[r.offer];
  const bool ranked = r.state == RowState::ranked;
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  if (!ranked) ImGui::PushStyleColor(ImGuiCol_Text, state_color(r.state, s.dark));
  std::snprintf(buf, sizeof buf, "#%d##row%d", vi + 1, ri);
  // (A tall selectable centres its label itself: AlignTextToFramePadding would move the whole selectable.)
  if (tall) ImGui::PushStyleVar(ImGuiStyleVar_SelectableTextAlign, ImVec2(0.0f, 0.5f));
  if (ImGui::Selectable(buf, ri == s.selected, ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap,
                        ImVec2(0, tall ? cell_h : 0.0f)))
    s.select_row(ri);
  if (tall) ImGui::PopStyleVar();
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::Text("%s (%s)", o.id.c_str(), pricing_option_name(r.option));
    if (!r.why_not.empty()) ImGui::Text("Why not: %s", r.why_not.c_str());
    else if (const Plan* p = s.row_plan(r)) ImGui::TextUnformatted(plan_summary(*p).c_str());
    if (r.pareto) ImGui::TextUnformatted("On the time/cost Pareto frontier: nothing is both faster and cheaper.");
    if (o.flags) {
      ImGui::TextUnformatted("Data-quality flags:");
      flag_reasons(o.flags, held_back_flags(o, r.option));
    }
    ImGui::EndTooltip();
  }
  auto cell = [tall](int col, const char* text) {
    ImGui::TableSetColumnIndex(col);
    if (tall) ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(text);
  };
  cell(kColInstance, s.row_texts(ri).name);
  cell(kColProvider, s.row_texts(ri).seller);
  cell(kColRegion, o.region.c_str());
  cell(kColOption, pricing_option_name(r.option));
  if (o.flags) draw_flags_cell(o, r);
  cell(kColGpus, s.row_texts(ri).gpus);
  cell(kColVram, fmt_bytes_gib(buf, sizeof buf, gpu_capacity_bytes(s.snapshot.gpus[o.gpu])));
  cell(kColPlan, s.row_texts(ri).plan);
  if (ranked) {
    cell(kColTime, fmt_duration(buf, sizeof buf, r.wall_s));
    cell(kColCost, fmt_usd(buf, sizeof buf, r.total_usd));
  }
  cell(kColPrice, fmt_usd(buf, sizeof buf, r.price_usd_per_h));
  if (ranked) {
    cell(kColPerMtok, fmt_usd(buf, sizeof buf, r.usd_per_mtok));
    std::snprintf(buf, sizeof buf, "%.0f%%", r.headroom * 100);
    cell(kColHeadroom, buf);
  }
  if (ranked && r.verdict == FitVerdict::tight) {
    ImGui::TableSetColumnIndex(kColState);
    if (tall) ImGui::AlignTextToFramePadding();
    ImGui::TextColored(warn_color(), r.pareto ? "tight, Pareto" : "tight");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("May run out of memory: the expected peak fits, the band's top (+%.0f%%) does not.",
                        (kBandHighFactor - 1.0) * 100.0);
  } else {
    cell(kColState, ranked ? (r.pareto ? "fits, Pareto" : "fits") : row_state_name(r.state));
  }
  if (!ranked) ImGui::PopStyleColor();
}

}  // namespace

void draw_results_table(App::Impl& s, float height) {
  draw_results_toolbar(s);
  if (!s.rank) return;

  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX | ImGuiTableFlags_Resizable |
                                ImGuiTableFlags_Hideable | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersV |
                                ImGuiTableFlags_BordersOuter | ImGuiTableFlags_Sortable |
                                ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("results", kColCount, flags, ImVec2(0, height))) return;
  const float cell_h = draw_results_columns(s);
  const bool tall = s.narrow;
  sync_results_sort(s);
  if (s.view_dirty) s.rebuild_view();

  const float row_h = cell_h + ImGui::GetStyle().CellPadding.y * 2;
  // Keep the selected row visible when the selection came from elsewhere (chart click, hash).
  if (s.scroll_to_selected) {
    s.scroll_to_selected = false;
    for (size_t vi = 0; vi < s.view.size(); ++vi)
      if (s.view[vi] == s.selected) {
        ImGui::SetScrollY(std::max(0.0f, static_cast<float>(vi) * row_h - height * 0.3f));
        break;
      }
  }
  ImGuiListClipper clip;
  clip.Begin(static_cast<int>(s.view.size()), row_h);
  while (clip.Step())
    for (int vi = clip.DisplayStart; vi < clip.DisplayEnd; ++vi) draw_result_row(s, vi, tall, cell_h);
  ImGui::EndTable();
}

// The shown rows, in the table's order, with the offer id and the reasons (the CLI's CSV and Markdown come from the
// core's writer, facade/table_text.h, which costs the first-visit payload ~6 KB gzip: the page keeps this one).
std::string results_text(const App::Impl& s, bool markdown) {
  std::string out;
  if (!s.rank) return out;
  static const char* kHead[] = {"rank", "offer", "instance", "provider", "region", "pricing", "gpus", "vram_GiB",
                                "nodes", "plan", "wall_h", "total_usd", "usd_per_h", "usd_per_mtok", "headroom",
                                "state", "verdict", "flags", "why_not"};
  const int n = sizeof kHead / sizeof kHead[0];
  auto cell = [&](const std::string& v, bool last) {
    if (markdown) {
      std::string t = v;
      for (char& c : t)
        if (c == '|') c = '/';
      out += t;
      out += last ? " |\n" : " | ";
    } else {
      const bool quote = v.find_first_of(",\"\n") != std::string::npos;
      if (quote) {
        out += '"';
        for (char c : v) {
          if (c == '"') out += '"';
          out += c;
        }
        out += '"';
      } else {
        out += v;
      }
      out += last ? "\n" : ",";
    }
  };
  if (markdown) out += "| ";
  for (int i = 0; i < n; ++i) cell(kHead[i], i == n - 1);
  if (markdown) {
    out += "|";
    for (int i = 0; i < n; ++i) out += "---|";
    out += "\n";
  }
  char b[64];
  auto numtxt = [&](double v) {
    std::snprintf(b, sizeof b, "%.6g", v);
    return std::string(b);
  };
  for (size_t vi = 0; vi < s.view.size(); ++vi) {
    const int ri = s.view[vi];
    const RankRow& r = s.rank->rows[ri];
    const Offer& o = s.snapshot.offers[r.offer];
    const bool ranked = r.state == RowState::ranked;
    if (markdown) out += "| ";
    cell(std::to_string(vi + 1), false);
    cell(o.id, false);
    cell(s.row_texts(ri).name, false);
    cell(s.row_texts(ri).seller, false);
    cell(o.region, false);
    cell(pricing_option_name(r.option), false);
    cell(s.row_texts(ri).gpus, false);
    cell(numtxt(gpu_capacity_bytes(s.snapshot.gpus[o.gpu]) / kGiB), false);
    cell(std::to_string(r.nodes), false);
    cell(s.row_texts(ri).plan, false);
    cell(ranked ? numtxt(r.wall_s / 3600) : "", false);
    cell(ranked ? numtxt(r.total_usd) : "", false);
    cell(numtxt(r.price_usd_per_h), false);
    cell(ranked ? numtxt(r.usd_per_mtok) : "", false);
    cell(ranked ? numtxt(r.headroom) : "", false);
    cell(row_state_name(r.state), false);
    cell(ranked ? to_string(r.verdict) : (r.state == RowState::does_not_fit ? "no_fit" : ""), false);
    std::string flags;
    for (const std::string& f : offer_flag_names(o.flags)) flags += (flags.empty() ? "" : " ") + f;
    cell(flags, false);
    cell(r.why_not, true);
  }
  return out;
}

}  // namespace trainfit::app
