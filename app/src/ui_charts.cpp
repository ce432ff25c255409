// trainfit — charts drawn on ImDrawList (no plotting library: ImPlot needs imgui >= 1.88 for its tables API
// use and would add to the wasm): the cost vs time scatter of every ranked row on log axes with the Pareto
// frontier, hover tooltips and click to select; memory vs micro-batch and vs sequence length for the selected
// row's GPU and layout, against its VRAM line.
#include <algorithm>
#include <iterator>
#include <cmath>
#include <cstdio>

#include "app_impl.h"
#include "trainfit/engine.h"

namespace trainfit::app {
namespace {

struct LogAxis {
  double lo = 0, hi = 1;  // log10 bounds
  void fit(double vmin, double vmax) {
    lo = std::floor(std::log10(vmin) * 4) / 4 - 0.05;
    hi = std::ceil(std::log10(vmax) * 4) / 4 + 0.05;
    if (hi - lo < 0.5) {
      const double m = (hi + lo) / 2;
      lo = m - 0.25;
      hi = m + 0.25;
    }
  }
  float map(double v, float a, float b) const {
    const double t = (std::log10(std::max(v, 1e-12)) - lo) / (hi - lo);
    return static_cast<float>(a + t * (b - a));
  }
};

// Decade ticks plus 2x and 5x when the range spans few decades.
template <class Label>
void log_ticks(const LogAxis& ax, bool horizontal, ImVec2 p0, ImVec2 p1, Label label) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border, 0.6f);
  const ImU32 ink = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const bool fine = ax.hi - ax.lo < 2.5;
  for (int e = static_cast<int>(std::floor(ax.lo)); e <= static_cast<int>(std::ceil(ax.hi)); ++e) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (!fine && m != 1.0) continue;
      const double v = m * std::pow(10.0, e);
      const double lv = std::log10(v);
      if (lv < ax.lo || lv > ax.hi) continue;
      char b[32];
      label(b, sizeof b, v);
      const ImVec2 ts = ImGui::CalcTextSize(b);
      if (horizontal) {
        const float x = ax.map(v, p0.x, p1.x);
        dl->AddLine(ImVec2(x, p0.y), ImVec2(x, p1.y), grid);
        dl->AddText(ImVec2(x - ts.x / 2, p1.y + 2), ink, b);
      } else {
        const float y = ax.map(v, p1.y, p0.y);
        dl->AddLine(ImVec2(p0.x, y), ImVec2(p1.x, y), grid);
        dl->AddText(ImVec2(p0.x - ts.x - 4, y - ts.y / 2), ink, b);
      }
    }
  }
}

const ImU32 kOnDemand = IM_COL32(66, 135, 245, 200);
const ImU32 kSpot = IM_COL32(245, 150, 50, 200);
const ImU32 kReserved = IM_COL32(170, 90, 220, 200);
// One colour per pricing option, in PricingOption's order.
const ImU32 kOptionColour[] = {kOnDemand, kSpot, kReserved};
static_assert(std::size(kOptionColour) == std::size(kPricingOptions), "a colour per pricing option");
const ImU32 kPareto = IM_COL32(40, 200, 90, 255);

}  // namespace

void draw_cost_time_chart(App::Impl& s) {
  if (!s.rank || s.rank->ranked == 0) {
    ImGui::TextDisabled("No offer fits the job and the filters: nothing to plot.");
    return;
  }
  const RankResult& rr = *s.rank;
  if (s.chart_key != s.rank_version) {
    s.chart_key = s.rank_version;
    double t0 = 1e300, t1 = 0, c0 = 1e300, c1 = 0;
    s.pareto.clear();
    for (int i = 0; i < rr.ranked; ++i) {
      const RankRow& r = rr.rows[i];
      if (!(r.wall_s > 0) || !(r.total_usd > 0)) continue;
      t0 = std::min(t0, r.wall_s / 3600), t1 = std::max(t1, r.wall_s / 3600);
      c0 = std::min(c0, r.total_usd), c1 = std::max(c1, r.total_usd);
      if (r.pareto) s.pareto.push_back(i);
    }
    std::sort(s.pareto.begin(), s.pareto.end(), [&](int a, int b) { return rr.rows[a].wall_s < rr.rows[b].wall_s; });
    s.t_min = t0 < 1e300 ? t0 : 1, s.t_max = t1 > 0 ? t1 : 10, s.c_min = c0 < 1e300 ? c0 : 1, s.c_max = c1 > 0 ? c1 : 10;
  }
  LogAxis ax, ay;
  ax.fit(s.t_min, s.t_max);
  ay.fit(s.c_min, s.c_max);

  const float fs = ImGui::GetFontSize();
  ImGui::TextDisabled("Each dot is a ranked offer (blue on-demand, orange spot, purple reserved); green: the Pareto frontier, where "
                      "nothing is both faster and cheaper. Click a dot to select it.");
  ImVec2 size = ImGui::GetContentRegionAvail();
  size.y = std::max(size.y - fs * 0.5f, fs * 10);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("cost-time chart", size);
  mark_last_item("cost-time chart");
  const bool hovered = ImGui::IsItemHovered();
  const bool clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
  const ImVec2 p0(o.x + fs * 5, o.y + fs * 0.5f), p1(o.x + size.x - fs, o.y + size.y - fs * 2.5f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(o, ImVec2(o.x + size.x, o.y + size.y), true);
  dl->AddRectFilled(p0, p1, ImGui::GetColorU32(ImGuiCol_FrameBg, 0.5f));
  log_ticks(ax, true, p0, p1, [](char* b, size_t n, double h) {
    if (h < 1) std::snprintf(b, n, "%.0f min", h * 60);
    else if (h < 48) std::snprintf(b, n, "%g h", h);
    else std::snprintf(b, n, "%g d", h / 24);
  });
  log_ticks(ay, false, p0, p1, [](char* b, size_t n, double usd) { fmt_usd(b, n, usd); });
  const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
  dl->AddText(ImVec2((p0.x + p1.x) / 2 - fs * 6, p1.y + fs * 1.2f), ink, "wall-clock time (log)");
  dl->AddText(ImVec2(o.x, o.y), ink, "total cost (log)");

  const float rad = std::max(2.0f, fs * 0.22f);
  const ImVec2 m = ImGui::GetIO().MousePos;
  int nearest = -1;
  float best = fs * fs * 0.5f;
  // One dot per pixel and colour: at 100k offers most dots land on a pixel already drawn, and each costs ~450
  // bytes of vertices and indices a frame in the draw list (tens of MB of wasm heap, which never shrinks:
  // docs/performance.md, "100k offers: where the heap goes"). The first dot of a pixel is drawn where it is.
  const int cols = std::max(1, static_cast<int>(p1.x - p0.x) + 1), rows = std::max(1, static_cast<int>(p1.y - p0.y) + 1);
  static std::vector<uint8_t> drawn;  // per pixel: bit k set once option k is drawn
  drawn.assign(static_cast<size_t>(cols) * static_cast<size_t>(rows), 0);
  for (int i = 0; i < rr.ranked; ++i) {
    const RankRow& r = rr.rows[i];
    if (!(r.wall_s > 0) || !(r.total_usd > 0)) continue;
    const ImVec2 c(ax.map(r.wall_s / 3600, p0.x, p1.x), ay.map(r.total_usd, p1.y, p0.y));
    if (std::isnan(c.x) || std::isnan(c.y)) continue;  // (a degenerate axis: nothing to place)
    const float fx = std::clamp(c.x - p0.x, 0.0f, static_cast<float>(cols - 1));
    const float fy = std::clamp(c.y - p0.y, 0.0f, static_cast<float>(rows - 1));
    const uint8_t bit = static_cast<uint8_t>(1u << static_cast<int>(r.option));
    uint8_t& cell = drawn[static_cast<size_t>(fy) * static_cast<size_t>(cols) + static_cast<size_t>(fx)];
    if (!(cell & bit)) {
      cell |= bit;
      dl->AddCircleFilled(c, rad, kOptionColour[static_cast<int>(r.option)], 8);
    }
    if (hovered) {
      const float d2 = (c.x - m.x) * (c.x - m.x) + (c.y - m.y) * (c.y - m.y);
      if (d2 < best) best = d2, nearest = i;
    }
  }
  // The frontier as a step line through its points, then the points on top.
  for (size_t k = 1; k < s.pareto.size(); ++k) {
    const RankRow& a = rr.rows[s.pareto[k - 1]];
    const RankRow& b = rr.rows[s.pareto[k]];
    dl->AddLine(ImVec2(ax.map(a.wall_s / 3600, p0.x, p1.x), ay.map(a.total_usd, p1.y, p0.y)),
                ImVec2(ax.map(b.wall_s / 3600, p0.x, p1.x), ay.map(b.total_usd, p1.y, p0.y)), kPareto, 2.0f);
  }
  for (int i : s.pareto) {
    const RankRow& r = rr.rows[i];
    dl->AddCircle(ImVec2(ax.map(r.wall_s / 3600, p0.x, p1.x), ay.map(r.total_usd, p1.y, p0.y)), rad * 1.8f, kPareto, 12, 2.0f);
  }
  if (const RankRow* sel = s.selected_row(); sel && sel->state == RowState::ranked) {
    const ImVec2 c(ax.map(sel->wall_s / 3600, p0.x, p1.x), ay.map(sel->total_usd, p1.y, p0.y));
    dl->AddCircle(c, rad * 3, ink, 16, 2.0f);
  }
  dl->PopClipRect();
  if (nearest >= 0) {
    const RankRow& r = rr.rows[nearest];
    char t[32], c[32];
    ImGui::BeginTooltip();
    ImGui::Text("%s (%s)", s.snapshot.offers[r.offer].id.c_str(), pricing_option_name(r.option));
    ImGui::Text("%s, %s, %s", fmt_duration(t, sizeof t, r.wall_s), fmt_usd(c, sizeof c, r.total_usd), s.row_texts(nearest).plan);
    if (r.pareto) ImGui::TextUnformatted("Pareto frontier");
    ImGui::EndTooltip();
    if (clicked) {
      s.select_row(nearest);
      s.scroll_to_selected = true;
    }
  }
}

namespace {

void curve_chart(const char* id, const Curve& c, const char* xlabel, double vram, double usable, double current,
                 ImVec2 size) {
  const float fs = ImGui::GetFontSize();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, size);
  const bool hovered = ImGui::IsItemHovered();
  if (c.x.size() < 2) {
    ImGui::GetWindowDrawList()->AddText(o, ImGui::GetColorU32(ImGuiCol_TextDisabled), "not enough points");
    return;
  }
  const ImVec2 p0(o.x + fs * 4.5f, o.y + fs * 1.4f), p1(o.x + size.x - fs * 0.5f, o.y + size.y - fs * 2.4f);
  double ymax = vram * 1.15;
  for (double v : c.high) ymax = std::max(ymax, std::min(v, vram * 2.2));
  const double lx0 = std::log2(c.x.front()), lx1 = std::log2(c.x.back());
  auto X = [&](double x) { return static_cast<float>(p0.x + (std::log2(x) - lx0) / (lx1 - lx0) * (p1.x - p0.x)); };
  auto Y = [&](double b) { return static_cast<float>(p1.y - std::min(b, ymax) / ymax * (p1.y - p0.y)); };
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text), dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border, 0.6f);
  dl->AddRectFilled(p0, p1, ImGui::GetColorU32(ImGuiCol_FrameBg, 0.5f));
  char b[48];
  const double step_gib = ymax / kGiB > 200 ? 50 : ymax / kGiB > 80 ? 20 : ymax / kGiB > 30 ? 10 : 5;
  for (double gib = 0; gib * kGiB <= ymax; gib += step_gib) {
    const float y = Y(gib * kGiB);
    dl->AddLine(ImVec2(p0.x, y), ImVec2(p1.x, y), grid);
    std::snprintf(b, sizeof b, "%.0f GiB", gib);
    dl->AddText(ImVec2(o.x, y - fs * 0.5f), dim, b);
  }
  for (double x : c.x) {
    std::snprintf(b, sizeof b, "%.0f", x);
    const float tx = X(x);
    dl->AddLine(ImVec2(tx, p0.y), ImVec2(tx, p1.y), grid);
    dl->AddText(ImVec2(tx - ImGui::CalcTextSize(b).x / 2, p1.y + 2), dim, b);
  }
  dl->AddText(ImVec2((p0.x + p1.x) / 2 - ImGui::CalcTextSize(xlabel).x / 2, p1.y + fs * 1.2f), ink, xlabel);
  dl->AddLine(ImVec2(p0.x, Y(vram)), ImVec2(p1.x, Y(vram)), IM_COL32(235, 60, 60, 255), 2.0f);
  dl->AddLine(ImVec2(p0.x, Y(usable)), ImVec2(p1.x, Y(usable)), IM_COL32(235, 60, 60, 140), 1.0f);
  std::snprintf(b, sizeof b, "VRAM %.1f GiB", vram / kGiB);
  dl->AddText(ImVec2(p1.x - ImGui::CalcTextSize(b).x - 4, Y(vram) - fs * 1.1f), IM_COL32(235, 60, 60, 255), b);
  if (current > 0 && current >= c.x.front() && current <= c.x.back())
    dl->AddLine(ImVec2(X(current), p0.y), ImVec2(X(current), p1.y), ink, 1.0f);
  for (size_t i = 1; i < c.x.size(); ++i) {
    dl->AddLine(ImVec2(X(c.x[i - 1]), Y(c.high[i - 1])), ImVec2(X(c.x[i]), Y(c.high[i])), IM_COL32(245, 150, 50, 255), 1.5f);
    dl->AddLine(ImVec2(X(c.x[i - 1]), Y(c.expected[i - 1])), ImVec2(X(c.x[i]), Y(c.expected[i])), IM_COL32(66, 135, 245, 255), 2.5f);
  }
  dl->AddText(ImVec2(p0.x, o.y), ink, id);
  if (hovered) {
    const float mx = ImGui::GetIO().MousePos.x;
    size_t k = 0;
    for (size_t i = 1; i < c.x.size(); ++i)
      if (std::fabs(X(c.x[i]) - mx) < std::fabs(X(c.x[k]) - mx)) k = i;
    ImGui::SetTooltip("%s %.0f: %.2f GiB expected, %.2f GiB band high (VRAM %.2f GiB)", xlabel, c.x[k],
                      c.expected[k] / kGiB, c.high[k] / kGiB, vram / kGiB);
  }
}

}  // namespace

void draw_memory_curves(App::Impl& s) {
  s.update_detail();
  const RankRow* r = s.selected_row();
  const Plan* p = r ? s.row_plan(*r) : nullptr;
  if (!p) {
    ImGui::TextDisabled("Select a row that fits to see how its memory grows with micro-batch and sequence length.");
    return;
  }
  const GpuSpec& g = s.snapshot.gpus[s.snapshot.offers[r->offer].gpu];
  ImGui::Text("%s with the layout of the selected plan (TP %d, PP %d, ZeRO-%d). Blue: expected; orange: band high "
              "(what fit is judged on).", g.name.c_str(), p->layout.tp, p->layout.pp, p->layout.zero);
  ImGui::Text("Largest micro-batch: %lld expected, %lld safe (band included) at seq %lld.  Longest sequence at "
              "micro-batch %lld: %lld expected, %lld safe tokens.",
              static_cast<long long>(s.max_mb), static_cast<long long>(s.max_mb_safe),
              static_cast<long long>(s.query.train.seq_len), static_cast<long long>(p->layout.micro_batch),
              static_cast<long long>(s.max_seq), static_cast<long long>(s.max_seq_safe));
  if (!s.seq_by_cp.empty()) {
    // The plan's own scheme where it splits the sequence already, else the job's (memory.h max_seq_len_by_cp).
    const CpScheme own = layout_cp_scheme(p->layout, s.query.train);
    std::string line = std::string("With context parallelism (") + to_string(own) + "):";
    for (const CpReach& c : s.seq_by_cp) {
      char b[112];
      std::snprintf(b, sizeof b, " CP %d on %lld GPUs%s%s %lld / %lld;", c.cp, static_cast<long long>(c.gpus),
                    c.scheme != own ? ", " : "", c.scheme != own ? to_string(c.scheme) : "",
                    static_cast<long long>(c.max_seq_len), static_cast<long long>(c.max_seq_len_safe));
      line += b;
    }
    line += " longest sequence, expected / safe tokens.";
    ImGui::TextWrapped("%s", line.c_str());
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float fs = ImGui::GetFontSize();
  // Side by side; one under the other in the narrow layout.
  const ImVec2 size = s.narrow ? ImVec2(avail.x, std::max((avail.y - fs) / 2, fs * 12))
                               : ImVec2((avail.x - fs) / 2, std::max(avail.y - fs * 0.5f, fs * 10));
  const double usable = usable_bytes(gpu_capacity_bytes(g), s.query.train.headroom);
  curve_chart("memory vs micro-batch", s.by_micro_batch, "micro-batch", gpu_capacity_bytes(g), usable,
              static_cast<double>(p->layout.micro_batch), size);
  if (!s.narrow) ImGui::SameLine();
  curve_chart("memory vs sequence length", s.by_seq_len, "sequence length", gpu_capacity_bytes(g), usable,
              static_cast<double>(s.query.train.seq_len), size);
}

}  // namespace trainfit::app
