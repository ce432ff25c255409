// trainfit — the detail view of the selected row: memory stacked bar against the GPU's VRAM line, the plan
// drawn as nodes x GPUs with TP / PP / DP groups, the step-time breakdown and the job timeline, the cost
// breakdown with billing rounding waste, the pricing options side by side, the planner's runners-up and the
// development-cycle scenario; the launch recipes are ui_launch.cpp's. Everything here is computed once per (ranking,
// selection): update_detail().
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app_impl.h"

namespace trainfit::app {

void App::Impl::update_detail() {
  const uint64_t key = rank_version * 1000003ull + static_cast<uint64_t>(selected + 1);
  if (key == detail_key) return;
  detail_key = key;
  cost = Error{"", "no row selected"};
  row_memory = Error{"", "none"};
  recipe = Error{"", "none"};
  recipe_pending = false;
  recipe_call = ShellCall{};
  runners_up.clear();
  for (auto& c : option_cost) c = Error{"", "none"};
  std::fill(std::begin(option_row), std::end(option_row), -1);
  by_micro_batch = Curve{};
  by_seq_len = Curve{};
  max_mb = max_seq = max_mb_safe = max_seq_safe = 0;
  seq_by_cp.clear();
  const RankRow* r = selected_row();
  if (!r) return;
  if (r->nodes > 0) cost = cost_for(query, snapshot, *rank, *r, r->nodes);
  for (int i = 0; i < static_cast<int>(rank->rows.size()); ++i) {
    const RankRow& o = rank->rows[i];
    if (o.offer != r->offer) continue;
    const size_t k = static_cast<size_t>(o.option);
    option_row[k] = i;
    if (o.option == r->option) option_cost[k] = cost;
    else if (o.nodes > 0) option_cost[k] = cost_for(query, snapshot, *rank, o, o.nodes);
  }
  const Plan* p = row_plan(*r);
  if (!p) return;
  recipe_pending = true;
  if (Result<PlanResult> full = plan_offer_row(query, snapshot, r->offer)) runners_up = std::move(full->runners_up);
  else runners_up = rank->shapes[r->shape].plan().runners_up;
  TrainConfig train = plan_train(query.train, *p);
  row_memory = estimate_memory(query.model, train, p->layout);
  // Memory against micro-batch and sequence length for this GPU and layout (the estimate's inverse questions).
  const GpuSpec& g = snapshot.gpus[snapshot.offers[r->offer].gpu];
  const double cap = gpu_capacity_bytes(g) * 2;
  MemoryLayout l = p->layout;
  for (int64_t mb = 1; mb <= 1024; mb *= 2) {
    l.micro_batch = mb;
    Result<MemoryBreakdown> m = estimate_memory(query.model, train, l);
    if (!m) break;
    by_micro_batch.x.push_back(static_cast<double>(mb));
    by_micro_batch.expected.push_back(m->total);
    by_micro_batch.high.push_back(m->total_high);
    if (m->total_high > cap) break;
  }
  l = p->layout;
  for (int64_t sl = 256; sl <= (int64_t(1) << 20); sl *= 2) {
    train.seq_len = sl;
    Result<MemoryBreakdown> m = estimate_memory(query.model, train, l);
    if (!m) break;
    by_seq_len.x.push_back(static_cast<double>(sl));
    by_seq_len.expected.push_back(m->total);
    by_seq_len.high.push_back(m->total_high);
    if (m->total_high > cap) break;
  }
  train.seq_len = query.train.seq_len;
  const double usable = usable_bytes(gpu_capacity_bytes(g), train.headroom);
  if (Result<int64_t> v = max_micro_batch(query.model, train, p->layout, usable, FitLevel::expected)) max_mb = *v;
  if (Result<int64_t> v = max_seq_len(query.model, train, p->layout, usable, FitLevel::expected)) max_seq = *v;
  if (Result<int64_t> v = max_micro_batch(query.model, train, p->layout, usable, FitLevel::safe)) max_mb_safe = *v;
  if (Result<int64_t> v = max_seq_len(query.model, train, p->layout, usable, FitLevel::safe)) max_seq_safe = *v;
  seq_by_cp = max_seq_len_by_cp(query.model, train, p->layout, usable);
}

void detail_heading(const char* text) {
  ImGui::Spacing();
  ImGui::TextUnformatted(text);
  ImGui::Separator();
}

namespace {

struct Seg {
  const char* name;
  double bytes;
  ImU32 color;
};


// Memory stacked bar: one segment per component, the VRAM line (the driver-reported capacity), the usable
// limit and the band whisker; `label_bytes` is the datasheet figure named beside it.
void memory_bar(const MemoryBreakdown& m, double vram_bytes, double label_bytes, double headroom) {
  // One segment per component of the core's table (memory.h kMemoryComponents), in its order, with a colour each.
  static const ImU32 kColors[] = {
      IM_COL32(66, 135, 245, 255),  IM_COL32(90, 170, 250, 255),  IM_COL32(250, 160, 60, 255),
      IM_COL32(230, 90, 80, 255),   IM_COL32(90, 190, 110, 255),  IM_COL32(60, 160, 140, 255),
      IM_COL32(150, 210, 90, 255),  IM_COL32(180, 120, 230, 255), IM_COL32(210, 150, 230, 255),
      IM_COL32(120, 200, 210, 255), IM_COL32(150, 150, 150, 255), IM_COL32(110, 110, 120, 255),
  };
  static_assert(sizeof kColors / sizeof kColors[0] == kMemoryComponentCount, "one colour per memory component");
  Seg segs[kMemoryComponentCount];
  for (int i = 0; i < kMemoryComponentCount; ++i)
    segs[i] = Seg{kMemoryComponents[i].label, m.*kMemoryComponents[i].bytes, kColors[i]};
  const float fs = ImGui::GetFontSize();
  const float w = ImGui::GetContentRegionAvail().x;
  const float h = fs * 1.6f;
  const double scale_max = std::max({vram_bytes, m.total_high, 1.0}) * 1.04;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("membar", ImVec2(w, h + fs * 1.2f));
  const bool hovered = ImGui::IsItemHovered();
  const float mx = ImGui::GetIO().MousePos.x;
  dl->AddRectFilled(p0, ImVec2(p0.x + w, p0.y + h), ImGui::GetColorU32(ImGuiCol_FrameBg));
  double acc = 0;
  const Seg* hover_seg = nullptr;
  for (const Seg& s : segs) {
    if (!(s.bytes > 0)) continue;
    const float x0 = p0.x + static_cast<float>(acc / scale_max * w);
    acc += s.bytes;
    const float x1 = p0.x + static_cast<float>(acc / scale_max * w);
    dl->AddRectFilled(ImVec2(x0, p0.y), ImVec2(std::max(x1, x0 + 1), p0.y + h), s.color);
    if (hovered && mx >= x0 && mx < x1) hover_seg = &s;
  }
  // Band: expected total with its low / high whisker.
  const float xl = p0.x + static_cast<float>(m.total_low / scale_max * w);
  const float xh = p0.x + static_cast<float>(m.total_high / scale_max * w);
  const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
  dl->AddLine(ImVec2(xl, p0.y + h * 0.5f), ImVec2(xh, p0.y + h * 0.5f), ink, 1.5f);
  dl->AddLine(ImVec2(xl, p0.y + h * 0.25f), ImVec2(xl, p0.y + h * 0.75f), ink, 1.5f);
  dl->AddLine(ImVec2(xh, p0.y + h * 0.25f), ImVec2(xh, p0.y + h * 0.75f), ink, 1.5f);
  // VRAM line and the usable limit (VRAM minus headroom).
  const float xv = p0.x + static_cast<float>(vram_bytes / scale_max * w);
  const float xu = p0.x + static_cast<float>(vram_bytes * (1 - headroom) / scale_max * w);
  dl->AddLine(ImVec2(xv, p0.y - fs * 0.2f), ImVec2(xv, p0.y + h + fs * 0.2f), IM_COL32(235, 60, 60, 255), 2.5f);
  dl->AddLine(ImVec2(xu, p0.y), ImVec2(xu, p0.y + h), IM_COL32(235, 60, 60, 160), 1.0f);
  char b[96];
  std::snprintf(b, sizeof b, "VRAM %.0f GB, %.1f GiB for CUDA", label_bytes / kGB, vram_bytes / kGiB);
  const float tw = ImGui::CalcTextSize(b).x;
  dl->AddText(ImVec2(std::max(p0.x, std::min(xv - tw, p0.x + w - tw)), p0.y + h + fs * 0.1f), ink, b);
  if (hover_seg) ImGui::SetTooltip("%s: %.2f GiB", hover_seg->name, hover_seg->bytes / kGiB);
  else if (hovered) ImGui::SetTooltip("Total %.2f GiB expected (band %.2f - %.2f GiB) against %.1f GiB usable: fits when "
                                      "the band's top is under it, tight when only the expected peak is (may run out "
                                      "of memory), does not fit when the expected peak is over it.",
                                      m.total / kGiB, m.total_low / kGiB, m.total_high / kGiB,
                                      vram_bytes * (1 - headroom) / kGiB);
  // Legend, up to three entries per line (fewer on narrow screens: an entry needs ~10 ems).
  const int legend_cols = std::max(1, std::min(3, static_cast<int>(ImGui::GetContentRegionAvail().x / (fs * 10))));
  if (ImGui::BeginTable("legend", legend_cols, ImGuiTableFlags_SizingStretchSame)) {
    for (const Seg& s : segs) {
      if (!(s.bytes > 0)) continue;
      ImGui::TableNextColumn();
      const ImVec2 c = ImGui::GetCursorScreenPos();
      dl->AddRectFilled(ImVec2(c.x, c.y + fs * 0.2f), ImVec2(c.x + fs * 0.8f, c.y + fs), s.color);
      ImGui::Dummy(ImVec2(fs, fs));
      ImGui::SameLine();
      ImGui::Text("%s %.1f GiB", s.name, s.bytes / kGiB);
    }
    ImGui::EndTable();
  }
  ImGui::Text("Per GPU: %.2f GiB expected, band %.2f - %.2f GiB. Host RAM per node: %.1f GiB.", m.total / kGiB,
              m.total_low / kGiB, m.total_high / kGiB, m.host_ram_per_node_bytes / kGiB);
  if (m.load_sets_peak) ImGui::TextColored(warn_color(), "Peak set while loading: %.2f GiB (16-bit weights before quantization).", m.load_peak / kGiB);
}

// The plan as nodes x GPUs. Rank order follows Megatron-LM's default "tp-cp-ep-dp-pp" (parallel_state.py
// RankGenerator): tensor-parallel ranks are consecutive GPUs of one node, pipeline stages are outermost.
void plan_drawing(const Plan& p) {
  const MemoryLayout& l = p.layout;
  const float fs = ImGui::GetFontSize();
  const int per_node = std::max(1, p.gpus_per_node);
  const float gap = fs * 0.3f, pad = fs * 0.4f;
  // GPU squares shrink so a 16-GPU node still fits the column (never below 1.2 font sizes).
  const float cell = std::max(fs * 1.2f, std::min(fs * 2.4f, (ImGui::GetContentRegionAvail().x - 2 * pad) / per_node - gap));
  const int nodes_drawn = std::min(p.nodes, 16);
  const int used = l.tp * l.pp * l.dp * l.cp;
  const float node_w = per_node * (cell + gap) - gap + 2 * pad;
  const float avail = ImGui::GetContentRegionAvail().x;
  const int per_row = std::max(1, static_cast<int>((avail + gap) / (node_w + fs)));
  const int rows = (nodes_drawn + per_row - 1) / per_row;
  const float node_h = cell + 2 * pad + fs * 1.1f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(avail, rows * (node_h + fs * 0.5f)));
  const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 frame = ImGui::GetColorU32(ImGuiCol_Border);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  int hover_rank = -1;
  for (int n = 0; n < nodes_drawn; ++n) {
    const float nx = o.x + (n % per_row) * (node_w + fs);
    const float ny = o.y + (n / per_row) * (node_h + fs * 0.5f);
    dl->AddRect(ImVec2(nx, ny), ImVec2(nx + node_w, ny + node_h), frame, fs * 0.3f, 0, 1.5f);
    char b[48];
    std::snprintf(b, sizeof b, "node %d", n);
    dl->AddText(ImVec2(nx + pad, ny + pad * 0.5f), ImGui::GetColorU32(ImGuiCol_TextDisabled), b);
    for (int g = 0; g < per_node; ++g) {
      const int rank = n * per_node + g;
      const float gx = nx + pad + g * (cell + gap), gy = ny + pad + fs * 1.1f;
      ImU32 col = IM_COL32(110, 110, 110, 120);
      char lab[16] = "idle";
      if (rank < used) {
        const int dp_i = (rank / (l.tp * l.cp)) % l.dp;
        const int pp_i = rank / (l.tp * l.cp * l.dp);
        const float hue = l.pp > 1 ? static_cast<float>(pp_i) / l.pp : 0.58f;
        float r, gg, bb;
        ImGui::ColorConvertHSVtoRGB(hue, 0.55f, 0.85f, r, gg, bb);
        col = ImGui::ColorConvertFloat4ToU32(ImVec4(r, gg, bb, 1));
        std::snprintf(lab, sizeof lab, "%d", dp_i);
      }
      dl->AddRectFilled(ImVec2(gx, gy), ImVec2(gx + cell, gy + cell), col, fs * 0.2f);
      const ImVec2 ts = ImGui::CalcTextSize(lab);
      dl->AddText(ImVec2(gx + (cell - ts.x) / 2, gy + (cell - ts.y) / 2), IM_COL32(20, 20, 20, 255), lab);
      if (mouse.x >= gx && mouse.x < gx + cell && mouse.y >= gy && mouse.y < gy + cell) hover_rank = rank;
    }
    // One bar under each tensor-parallel group (consecutive GPUs of a node).
    if (l.tp > 1)
      for (int g0 = 0; g0 < per_node; g0 += l.tp) {
        if (n * per_node + g0 >= used) break;
        const float x0 = nx + pad + g0 * (cell + gap);
        const float x1 = nx + pad + std::min(per_node, g0 + l.tp) * (cell + gap) - gap;
        const float y = ny + pad + fs * 1.1f + cell + fs * 0.2f;
        dl->AddLine(ImVec2(x0, y), ImVec2(x1, y), ink, 2.0f);
      }
  }
  if (hover_rank >= 0) {
    if (hover_rank < used)
      ImGui::SetTooltip("GPU rank %d: TP rank %d, pipeline stage %d, data-parallel replica %d", hover_rank,
                        hover_rank % l.tp, hover_rank / (l.tp * l.cp * l.dp), (hover_rank / (l.tp * l.cp)) % l.dp);
    else
      ImGui::SetTooltip("GPU rank %d: idle (billed, not used by this layout)", hover_rank);
  }
  if (p.nodes > nodes_drawn) ImGui::TextDisabled("... and %d more nodes like these", p.nodes - nodes_drawn);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("Colour = pipeline stage; number = data-parallel replica; a bar joins one tensor-parallel group.");
  ImGui::PopStyleColor();
}

void row2(const char* name, const char* value) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::TextUnformatted(name);
  ImGui::TableSetColumnIndex(1);
  ImGui::TextUnformatted(value);
}

void time_section(const App::Impl& s, const RankRow& r, const Plan& p) {
  detail_heading("Time");
  const StepTime& st = p.step;
  const Seg parts[] = {
      {"compute", st.compute_s, IM_COL32(66, 135, 245, 255)},
      {"recompute", st.recompute_s, IM_COL32(120, 170, 250, 255)},
      {"exposed communication", st.exposed_comm_s, IM_COL32(250, 160, 60, 255)},
      {"pipeline bubble", st.bubble_s, IM_COL32(230, 90, 80, 255)},
      {"optimizer", st.optimizer_s, IM_COL32(90, 190, 110, 255)},
      {"offload", st.offload_s, IM_COL32(180, 120, 230, 255)},
  };
  const float fs = ImGui::GetFontSize();
  const float w = ImGui::GetContentRegionAvail().x;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(w, fs * 1.2f));
  double acc = 0;
  for (const Seg& sg : parts) {
    if (!(sg.bytes > 0) || !(st.total_s > 0)) continue;
    const float x0 = p0.x + static_cast<float>(acc / st.total_s * w);
    acc += sg.bytes;
    const float x1 = p0.x + static_cast<float>(acc / st.total_s * w);
    dl->AddRectFilled(ImVec2(x0, p0.y), ImVec2(std::max(x1, x0 + 1), p0.y + fs), sg.color);
  }
  char b[64], c[64], d[64], e[64];
  if (ImGui::BeginTable("time", 2, ImGuiTableFlags_SizingStretchProp)) {
    for (const Seg& sg : parts) {
      if (!(sg.bytes > 0)) continue;
      std::snprintf(b, sizeof b, "%.3f s/step (%.0f%%)", sg.bytes, st.total_s > 0 ? sg.bytes / st.total_s * 100 : 0);
      row2(sg.name, b);
    }
    char step[128];
    std::snprintf(step, sizeof step, "%.3f s (TP %.3f, PP %.3f, CP %.3f, EP %.3f, DP %.3f exposed)", st.total_s,
                  st.tp_exposed_s, st.pp_exposed_s, st.cp_exposed_s, st.ep_exposed_s, st.dp_exposed_s);
    row2("step", step);
    std::snprintf(b, sizeof b, "%.0f tokens/s, MFU %.0f%%, HFU %.0f%%", p.tokens_per_s, p.mfu * 100, p.hfu * 100);
    row2("throughput", b);
    std::snprintf(b, sizeof b, "%s (band %s - %s)", fmt_duration(c, sizeof c, r.time_s),
                  fmt_duration(d, sizeof d, r.time_low_s), fmt_duration(e, sizeof e, r.time_high_s));
    row2("training", b);
    if (s.cost) {
      const CostBreakdown& k = *s.cost;
      row2("provisioning", fmt_duration(b, sizeof b, k.provision_s));
      row2("dataset staging", fmt_duration(b, sizeof b, k.staging_s));
      if (k.eval_s > 0) row2("evaluation", fmt_duration(b, sizeof b, k.eval_s));
      std::snprintf(b, sizeof b, "%s (%.0f writes, every %s)", fmt_duration(c, sizeof c, k.checkpoint_s), k.checkpoints,
                    fmt_duration(d, sizeof d, k.checkpoint_interval_s));
      row2("checkpoints", b);
      if (k.expected_interruptions > 0) {
        std::snprintf(b, sizeof b, "%s + %s lost work (%.2f interruptions)", fmt_duration(c, sizeof c, k.restart_s),
                      fmt_duration(d, sizeof d, k.lost_work_s), k.expected_interruptions);
        row2("restarts", b);
      }
      row2("wall clock", fmt_duration(b, sizeof b, k.wall_s));
    }
    ImGui::EndTable();
  }
}

void cost_table(const CostBreakdown& k, const char* id) {
  char b[64], c[64];
  if (!ImGui::BeginTable(id, 2, ImGuiTableFlags_SizingStretchProp)) return;
  std::snprintf(b, sizeof b, "%s/h per instance", fmt_usd(c, sizeof c, k.price_usd_per_h));
  row2("price", b);
  if (k.option == PricingOption::reserved) {
    std::snprintf(b, sizeof b, "%s booked per instance (%.0f booking%s), paid whole",
                  booking_duration_text(k.booked_s).c_str(), k.bookings, k.bookings == 1 ? "" : "s");
    row2("booking", b);
  } else {
    std::snprintf(b, sizeof b, "%.0f s increment, %.0f s minimum", k.increment_s, k.minimum_s);
    row2("billing", b);
  }
  row2("compute", fmt_usd(b, sizeof b, k.compute_usd));
  std::snprintf(b, sizeof b, "%s (%.1f instance-h billed for %.1f used)", fmt_usd(c, sizeof c, k.rounding_waste_usd),
                k.billed_node_s / 3600, k.billable_node_s / 3600);
  row2(k.option == PricingOption::reserved ? "idle tail" : "rounding waste", b);
  if (k.free_preemption_usd > 0) {
    std::snprintf(b, sizeof b, "-%s", fmt_usd(c, sizeof c, k.free_preemption_usd));
    row2("free early preemption", b);
  }
  row2("storage", fmt_usd(b, sizeof b, k.storage_usd));
  row2("egress", fmt_usd(b, sizeof b, k.egress_usd));
  row2("total (expected)", fmt_usd(b, sizeof b, k.total_usd));
  if (k.option == PricingOption::spot) {
    char l[32], h[32];
    std::snprintf(b, sizeof b, "%s - %s (P10 - P90 interruptions)", fmt_usd(l, sizeof l, k.low.total_usd),
                  fmt_usd(h, sizeof h, k.high.total_usd));
    row2("spot band", b);
  }
  ImGui::EndTable();
}

// The offer's pricing options side by side (on-demand, spot, reserved: those it has), each with the node count
// it costs; then which wins, spot's break-even price, and a booking product's terms and where it pays off.
void pricing_options_section(App::Impl& s, const RankRow& row) {
  detail_heading("Pricing options");
  int cols[std::size(kPricingOptions)], n = 0;
  for (int k = 0; k < static_cast<int>(std::size(kPricingOptions)); ++k)
    if (s.option_row[k] >= 0) cols[n++] = k;
  if (n < 2) ImGui::TextDisabled("This offer has only its %s price.", pricing_option_name(row.option));
  if (ImGui::BeginTable("pricing_options", n + 1, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("");
    for (int c = 0; c < n; ++c) ImGui::TableSetupColumn(pricing_option_name(kPricingOptions[cols[c]]));
    ImGui::TableHeadersRow();
    char b[64];
    auto line = [&](const char* name, auto f) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted(name);
      for (int c = 0; c < n; ++c) {
        ImGui::TableSetColumnIndex(c + 1);
        const RankRow& r = s.rank->rows[s.option_row[cols[c]]];
        const Result<CostBreakdown>& k = s.option_cost[cols[c]];
        ImGui::TextUnformatted(k ? f(r, *k) : "-");
      }
    };
    // Each option costs its own plan: the node count the ranking chose for it (they can differ).
    line("plan costed", [&](const RankRow& r, const CostBreakdown&) {
      std::snprintf(b, sizeof b, "%d node%s", r.nodes, r.nodes == 1 ? "" : "s");
      return static_cast<const char*>(b);
    });
    line("price / h", [&](const RankRow&, const CostBreakdown& k) { return fmt_usd(b, sizeof b, k.price_usd_per_h); });
    line("wall clock", [&](const RankRow&, const CostBreakdown& k) { return fmt_duration(b, sizeof b, k.wall_s); });
    line("billed", [&](const RankRow&, const CostBreakdown& k) {
      if (k.option == PricingOption::reserved) return fmt_duration(b, sizeof b, k.booked_s);
      std::snprintf(b, sizeof b, "%.2f interruptions", k.expected_interruptions);
      return static_cast<const char*>(b);
    });
    line("rounding / idle", [&](const RankRow&, const CostBreakdown& k) { return fmt_usd(b, sizeof b, k.rounding_waste_usd); });
    line("total", [&](const RankRow&, const CostBreakdown& k) { return fmt_usd(b, sizeof b, k.total_usd); });
    ImGui::EndTable();
  }
  const Result<CostBreakdown>& sp = s.option_cost[static_cast<size_t>(PricingOption::spot)];
  if (sp && sp->has_break_even) {
    char c[32];
    ImGui::TextWrapped("Spot %s: it breaks even with on-demand at %s/h per instance.",
                       sp->spot_pays_off ? "pays off" : "does not pay off",
                       fmt_usd(c, sizeof c, sp->break_even_spot_usd_per_h));
  }
  const Offer& o = s.snapshot.offers[row.offer];
  const Result<CostBreakdown>& rs = s.option_cost[static_cast<size_t>(PricingOption::reserved)];
  if (const Reservation* r = reservation_of(s.snapshot, o)) {
    const Reservation& rv = *r;
    ImGui::TextWrapped("Reserved: %s (%s, prices of %s): %s.", rv.name.c_str(), rv.provider.c_str(),
                       rv.capture_date.c_str(), reservation_terms_text(rv).c_str());
    if (rs) {
      char a[32], t[32];
      ImGui::TextWrapped("This job books %s per instance (%.0f booking%s) and leaves %s idle (%s).",
                         booking_duration_text(rs->booked_s).c_str(), rs->bookings, rs->bookings == 1 ? "" : "s",
                         fmt_duration(t, sizeof t, rs->booked_s - rs->wall_s), fmt_usd(a, sizeof a, rs->rounding_waste_usd));
    }
    const ReservedVsHourly v = reserved_vs_hourly(o.reserved_usd_per_h, o.price_usd_per_h, rv.terms);
    if (v.comparable && v.price_ratio < 1 && v.term_unpublished) {
      ImGui::TextWrapped("Against on-demand (%.0f%% of its price): with no published minimum term it is cheaper from "
                         "the first hour, a lower bound until the contract's term is known.",
                         v.price_ratio * 100);
    } else if (v.comparable && v.price_ratio < 1) {
      char a[32], w[32];
      ImGui::TextWrapped("Against on-demand (%.0f%% of its price): booking is cheaper for every job over %s of wall "
                         "clock, and from %s on except just past a booking step.",
                         v.price_ratio * 100, fmt_duration(a, sizeof a, v.wins_from_s),
                         fmt_duration(w, sizeof w, v.first_win_s));
      if (rs && rs->wall_s > 0)
        ImGui::TextWrapped("Kept for a job that repeats, the booking pays off if this job runs at least every %s.",
                           fmt_duration(w, sizeof w, rs->wall_s / v.price_ratio));
    } else if (v.comparable) {
      ImGui::TextWrapped("The booked rate is not below on-demand's: it buys certainty of capacity, not a discount.");
    }
    ImGui::TextDisabled("Source: %s", rv.source.c_str());
  }
  for (int c = 0; c < n; ++c)
    if (const Result<CostBreakdown>& k = s.option_cost[cols[c]]; !k && s.rank->rows[s.option_row[cols[c]]].nodes > 0)
      ImGui::TextDisabled("%s: %s", pricing_option_name(kPricingOptions[cols[c]]), k.error().to_string().c_str());
}

// The development-cycle scenario (K runs of T minutes) on this row's offer, option and node count.
void dev_cycle_section(App::Impl& s, const RankRow& row) {
  const RankRow* r = &row;
  const Offer& o = s.snapshot.offers[r->offer];
  if (s.query.cost.dev_runs > 0 && s.query.cost.dev_run_minutes > 0) {
    detail_heading("Development cycle");
    const Provider& pr = seller_of(s.snapshot, o);  // the marketplace's billing for a resold row (billing.h)
    const DevCycleInput in = dev_cycle_input(s.query, pr, o, r->option, r->nodes);
    if (Result<DevCycleCost> dc = dev_cycle_cost(in, billing_rule_for(pr, o.instance_type))) {
      char a[32], b[32], c[32];
      ImGui::TextWrapped("%d runs of %.0f min: %s under this provider's billing, %s with per-second billing "
                         "(rounding adds %s, %.0f%%).",
                         in.runs, s.query.cost.dev_run_minutes, fmt_usd(a, sizeof a, dc->cost_usd),
                         fmt_usd(b, sizeof b, dc->per_second_cost_usd), fmt_usd(c, sizeof c, dc->rounding_waste_usd),
                         dc->waste_fraction * 100);
    } else {
      ImGui::TextColored(error_color(), "%s", dc.error().to_string().c_str());
    }
  }
}

// Measured: the step time (and peak memory) the launched job printed; "Calibrate" fits the model to it and
// re-ranks every offer with the calibrated query (kept in the URL hash).
void measured_section(App::Impl& s, const RankRow& r) {
  detail_heading("Measured");
  const Calibration& cur = s.query.calibration;
  if (cur.efficiency_scale > 0) {
    const int gi = s.snapshot.find_gpu(cur.gpu);
    ImGui::TextColored(warn_color(), "Every offer is ranked calibrated from %s (efficiency x %.3f, measured %.3g s/step on %s).",
                       gi >= 0 ? s.snapshot.gpus[gi].name.c_str() : cur.gpu.c_str(), cur.efficiency_scale,
                       cur.step_time_s > 0 ? cur.step_time_s : 0.0, cur.offer.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("Clear calibration")) {
      Query q = s.query;
      q.calibration = Calibration{};
      q.train.fragmentation = -1;
      s.adopt(q);
      s.calibration = Error{"", "none"};
      return;
    }
  }
  ImGui::TextDisabled("Launched this plan? Enter what its first minutes printed, or paste the log line.");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  ImGui::InputDouble("s / step", &s.measured_step_s, 0, 0, "%.3f");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  ImGui::InputDouble("peak GiB (max_memory_reserved)", &s.measured_peak_GiB, 0, 0, "%.1f");
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##measured_text", "or paste: step_time_s=1.84 peak_GiB=61.2", s.measured_text,
                           sizeof s.measured_text);
  if (ImGui::Button("Calibrate")) {
    Query q = s.query;
    q.calibration = Calibration{};
    q.calibration.offer = s.snapshot.offers[r.offer].id;
    q.calibration.nodes = r.nodes;
    q.calibration.step_time_s = s.measured_step_s > 0 ? s.measured_step_s : 0;
    q.calibration.peak_GiB = s.measured_peak_GiB > 0 ? s.measured_peak_GiB : 0;
    s.calibration_error.clear();
    if (s.measured_text[0]) {
      Result<MeasuredRun> m = parse_measured_run(s.measured_text);
      if (!m) s.calibration_error = m.error().to_string();
      else {
        q.calibration.step_time_s = m->step_time_s;
        q.calibration.tokens_per_s = m->step_time_s > 0 ? 0 : m->tokens_per_s;
        if (m->peak_GiB > 0) q.calibration.peak_GiB = m->peak_GiB;
      }
    }
    if (s.calibration_error.empty()) {
      s.calibration = calibrate(q, s.snapshot);
      if (s.calibration) s.adopt(s.calibration->query);
      else s.calibration_error = s.calibration.error().to_string();
    }
  }
  if (!s.calibration_error.empty()) ImGui::TextColored(error_color(), "%s", s.calibration_error.c_str());
  if (!s.calibration) return;
  const CalibrationResult& c = *s.calibration;
  if (ImGui::BeginTable("measured_vs_estimated", 4, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("");
    ImGui::TableSetupColumn("measured");
    ImGui::TableSetupColumn("estimated");
    ImGui::TableSetupColumn("calibrated");
    ImGui::TableHeadersRow();
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted("s / step");
    ImGui::TableSetColumnIndex(1);
    ImGui::Text("%.3f", c.measured_step_s);
    ImGui::TableSetColumnIndex(2);
    ImGui::Text("%.3f", c.estimated_step_s);
    ImGui::TableSetColumnIndex(3);
    ImGui::Text("%.3f", c.calibrated_step_s);
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted("efficiency");
    ImGui::TableSetColumnIndex(2);
    ImGui::Text("%.1f%%", c.efficiency_before * 100);
    ImGui::TableSetColumnIndex(3);
    ImGui::Text("%.1f%%", c.efficiency_after * 100);
    if (c.measured_peak_GiB > 0) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted("reserved GiB / GPU");
      ImGui::TableSetColumnIndex(1);
      ImGui::Text("%.2f", c.measured_peak_GiB);
      ImGui::TableSetColumnIndex(2);
      ImGui::Text("%.2f", c.estimated_reserved_GiB);
      ImGui::TableSetColumnIndex(3);
      ImGui::Text("reserve %.3g -> %.3g", c.fragmentation_before, c.fragmentation_after);
    }
    ImGui::EndTable();
  }
  ImGui::TextDisabled("Measured on %s (%s), %s.", c.offer.c_str(), c.gpu_name.c_str(), plan_summary(c.plan).c_str());
}

}  // namespace

void draw_detail(App::Impl& s) {
  s.update_detail();
  const RankRow* r = s.selected_row();
  if (!r) {
    ImGui::TextDisabled(s.has_snapshot ? "Select a row of the table to see its detail." : "Loading prices...");
    return;
  }
  const Offer& o = s.snapshot.offers[r->offer];
  const GpuSpec& g = s.snapshot.gpus[o.gpu];
  const std::string name = offer_display_name(s.snapshot, o);
  ImGui::Text("%s, %s", name == o.instance_type ? o.id.c_str() : name.c_str(), pricing_option_name(r->option));
  char hw[512];
  if (name == o.instance_type)
    std::snprintf(hw, sizeof hw, "(%d x %s, %s, %s)", o.gpu_count, g.name.c_str(), link_class_name(o.intra_link),
                  net_kind_name(o.inter_net));
  else  // a marketplace row shown under a readable name: its raw id stays in the detail
    std::snprintf(hw, sizeof hw, "(%s; %s, %s)", o.id.c_str(), link_class_name(o.intra_link),
                  net_kind_name(o.inter_net));
  // Beside the name where it fits; else on a line of its own (a phone's width wrapped it word by word).
  ImGui::SameLine();
  if (ImGui::CalcTextSize(hw).x > ImGui::GetContentRegionAvail().x) ImGui::NewLine();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", hw);
  ImGui::PopStyleColor();
  if (o.via >= 0)  // a marketplace row: who runs it, who sells it, whose billing applies
    ImGui::TextWrapped("%s via %s: run by %s, sold and billed by %s (its billing rules apply).",
                       s.snapshot.providers[o.provider].id.c_str(), s.snapshot.providers[o.via].id.c_str(),
                       s.snapshot.providers[o.provider].name.c_str(), s.snapshot.providers[o.via].name.c_str());
  {
    // How a new account gets it (availability fact, sourced and dated).
    // The line reads the lean snapshot only (how, quota, largest cluster, date), so it does not change when the
    // text sidecar arrives after the first frame; the detail and source it brings are in the tooltip.
    const AccessFact& a = access_fact(s.snapshot, o);
    ImGui::TextWrapped("Access: %s%s%s%s%s%s (as of %s)", access_label(a.how), a.quota.empty() ? "" : ", quota ",
                       a.quota.c_str(), a.max_cluster.empty() ? "" : "; largest cluster: ", a.max_cluster.c_str(), "",
                       a.date.empty() ? "unknown" : a.date.c_str());
    ImGui::SameLine();  // always drawn, so the layout stays put when the sidecar fills the tooltip in
    const std::string tip = s.snapshot.text_left_out ? std::string("The details and source load with the snapshot's text.")
                            : a.detail.empty() && a.source.empty()
                                ? std::string("Nothing published was found on how this provider's GPUs are obtained.")
                                : a.detail + (a.detail.empty() ? "" : "\n") + "Source: " + (a.source.empty() ? "-" : a.source);
    help_marker(tip.c_str());
  }
  if (!r->why_not.empty()) warn_wrapped("Why not: %s", r->why_not.c_str());
  if (o.flags) {
    ImGui::TextColored(warn_color(), "%s", held_back_flags(o, r->option) ? "! Doubtful price. Data-quality flags:"
                                                                          : "Data-quality flags:");
    flag_reasons(o.flags, held_back_flags(o, r->option));
  }
  const Plan* p = s.row_plan(*r);
  if (!p) {
    const ShapePlan* sh = r->shape >= 0 ? &s.rank->shapes[r->shape] : nullptr;
    if (sh && sh->ok && !sh->plan().fits) {
      ImGui::TextWrapped("No layout fits: %s", sh->plan().why_not.c_str());
      if (sh->plan().shortfall_bytes > 0) ImGui::Text("Short by %.1f GiB per GPU.", sh->plan().shortfall_bytes / kGiB);
    }
    return;
  }
  ImGui::TextWrapped("Plan: %s (%s)", plan_summary(*p).c_str(), topology_name(p->topology));

  // Two columns side by side; one under the other in the narrow layout.
  const bool cols = !s.narrow;
  if (cols) {
    if (!ImGui::BeginTable("detail_cols", 2, ImGuiTableFlags_SizingStretchSame | ImGuiTableFlags_BordersInnerV)) return;
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
  }
  detail_heading("Memory per GPU");
  if (s.row_memory) {
    memory_bar(*s.row_memory, gpu_capacity_bytes(g), g.memory_bytes, s.query.train.headroom);
    const FitVerdict v = fit_verdict(*s.row_memory, usable_bytes(gpu_capacity_bytes(g), s.query.train.headroom));
    if (v == FitVerdict::tight)
      ImGui::TextColored(warn_color(), "Tight: may run out of memory (the band is +%.0f%%).",
                         (kBandHighFactor - 1.0) * 100.0);
    else
      ImGui::TextUnformatted(v == FitVerdict::fits ? "Fits, band included." : "Does not fit.");
  }
  else ImGui::TextColored(error_color(), "%s", s.row_memory.error().to_string().c_str());
  detail_heading("Layout");
  plan_drawing(*p);
  const ShapePlan& sh = s.rank->shapes[r->shape];
  if (!s.runners_up.empty()) {
    detail_heading("Runners-up");
    for (const Plan& ru : s.runners_up) {
      char t[32];
      // Wrapped, with the reason under it: a runner-up's layout and why it lost run past a detail column's width.
      ImGui::Bullet();
      ImGui::TextWrapped("%s: %s", plan_summary(ru).c_str(), fmt_duration(t, sizeof t, ru.step.total_s > 0 && ru.tokens_per_s > 0
                                                                                        ? sh.plan().tokens.processed / ru.tokens_per_s
                                                                                        : -1));
      if (!ru.why.empty()) {
        ImGui::Indent();
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", ru.why.c_str());
        ImGui::PopStyleColor();
        ImGui::Unindent();
      }
    }
  }
  for (const Warning& w : sh.plan().warnings) warn_wrapped("%s", w.message.c_str());
  if (sh.plan().data.storage_bound)
    ImGui::TextColored(warn_color(), "Storage bound: training needs %.0f MB/s per node, the volume gives %.0f MB/s.",
                       sh.plan().data.needed_Bps / 1e6, sh.plan().data.storage_Bps / 1e6);

  if (cols) ImGui::TableSetColumnIndex(1);
  time_section(s, *r, *p);
  detail_heading("Cost");
  if (s.cost) cost_table(*s.cost, "cost");
  else ImGui::TextColored(error_color(), "%s", s.cost.error().to_string().c_str());
  pricing_options_section(s, *r);
  dev_cycle_section(s, *r);
  if (cols) ImGui::EndTable();
  draw_launch(s);
  measured_section(s, *r);
}

}  // namespace trainfit::app
