// trainfit — the constraints panel: providers, regions, GPU models, on-demand / spot, VRAM, interconnect,
// nodes, deadline, budget, data-quality filters, ranking key and cost assumptions. All of it lives in the
// query's `filters`, `sort` and `cost` keys, so the URL hash reproduces the ranking.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app_impl.h"

namespace trainfit::app {
namespace {

float field_w() { return ImGui::GetFontSize() * 10.5f; }

// The choices the snapshot offers, listed once per snapshot.
struct Choices {
  uint64_t version = ~0ull;
  std::vector<std::string> providers, provider_names, gpus, gpu_names, regions;
};
const Choices& choices(const App::Impl& s) {
  static Choices c;
  if (c.version == s.snapshot_version) return c;
  c = Choices{};
  c.version = s.snapshot_version;
  for (const Provider& p : s.snapshot.providers) {
    c.providers.push_back(p.id);
    c.provider_names.push_back(p.name.empty() ? p.id : p.name);
  }
  std::vector<bool> used(s.snapshot.gpus.size(), false);
  const SharedStr* last_region = nullptr;  // offers in a row share their region's string: look it up once
  for (const Offer& o : s.snapshot.offers) {
    if (o.gpu >= 0) used[o.gpu] = true;
    if (last_region && o.region.same_copy(*last_region)) continue;
    last_region = &o.region;
    // Region families: the prefix up to the first '-' ("us-", "europe-", "asia-"), as filters.regions matches
    // prefixes.
    const std::string_view region = o.region;
    const std::string_view fam = region.substr(0, region.find('-') == std::string_view::npos ? region.size()
                                                                                             : region.find('-') + 1);
    if (!fam.empty() && std::find(c.regions.begin(), c.regions.end(), fam) == c.regions.end())
      c.regions.emplace_back(fam);
  }
  std::sort(c.regions.begin(), c.regions.end());
  for (size_t i = 0; i < s.snapshot.gpus.size(); ++i)
    if (used[i]) {
      c.gpus.push_back(s.snapshot.gpus[i].id);
      c.gpu_names.push_back(s.snapshot.gpus[i].name);
    }
  return c;
}

bool has(const std::vector<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

// A multi-select combo over the universe `choices(s).*universe_of`; an empty list means "all". The universe is
// looked up only while the combo is open: building it reads every offer (~4 ms of the page's first frame in the
// browser's baseline tier, for a list nobody has opened yet).
bool multi_combo(const char* label, std::vector<std::string>& list, const App::Impl& s,
                 std::vector<std::string> Choices::*universe_of, std::vector<std::string> Choices::*names_of) {
  char preview[64];
  if (list.empty()) std::snprintf(preview, sizeof preview, "All");
  else if (list.size() == 1) std::snprintf(preview, sizeof preview, "%s", list[0].c_str());
  else std::snprintf(preview, sizeof preview, "%zu selected", list.size());
  bool changed = false;
  ImGui::SetNextItemWidth(field_w());
  const bool open = ImGui::BeginCombo(label, preview, ImGuiComboFlags_HeightLarge);
  mark_last_item(label);
  if (open) {
    const Choices& c = choices(s);
    const std::vector<std::string>& universe = c.*universe_of;
    const std::vector<std::string>* names = names_of ? &(c.*names_of) : nullptr;
    if (ImGui::Selectable("All", list.empty(), ImGuiSelectableFlags_DontClosePopups)) {
      list.clear();
      changed = true;
    }
    for (size_t i = 0; i < universe.size(); ++i) {
      const bool on = has(list, universe[i]);
      char item[128];
      std::snprintf(item, sizeof item, "%s %s##%s", on ? "[x]" : "[ ]", names ? (*names)[i].c_str() : universe[i].c_str(),
                    universe[i].c_str());
      if (ImGui::Selectable(item, on, ImGuiSelectableFlags_DontClosePopups)) {
        if (on) list.erase(std::find(list.begin(), list.end(), universe[i]));
        else list.push_back(universe[i]);
        if (list.size() == universe.size()) list.clear();  // everything = no filter
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

bool num(const char* label, double* v, const char* fmt, const char* help = nullptr) {
  ImGui::SetNextItemWidth(field_w());
  ImGui::InputScalar(label, ImGuiDataType_Double, v, nullptr, nullptr, fmt);
  const bool done = ImGui::IsItemDeactivatedAfterEdit();
  if (help) help_marker(help);
  return done;
}
bool num_int(const char* label, int* v, const char* help = nullptr) {
  ImGui::SetNextItemWidth(field_w());
  ImGui::InputScalar(label, ImGuiDataType_S32, v, nullptr, nullptr, "%d");
  const bool done = ImGui::IsItemDeactivatedAfterEdit();
  if (help) help_marker(help);
  return done;
}

const char* interconnect_name(InterconnectFilter f) {
  switch (f) {
    case InterconnectFilter::any: return "any";
    case InterconnectFilter::nvlink: return "NVLink (any)";
    case InterconnectFilter::nvswitch: return "NVSwitch";
    case InterconnectFilter::pcie: return "PCIe only";
  }
  return "?";
}
const char* sort_label(SortKey k) {
  switch (k) {
    case SortKey::total_cost: return "total cost";
    case SortKey::time: return "time to finish";
    case SortKey::usd_per_mtok: return "$ per million tokens";
    case SortKey::cost_under_deadline: return "cost under the deadline";
    case SortKey::dev_cycle: return "dev cycle (K short runs)";
  }
  return "?";
}

// Which rows the table lists: stale / flagged hidden, doubtful prices shown, rows that do not fit shown.
bool draw_row_switches(Filters& f) {
  bool changed = false;
  if (ImGui::Checkbox("Hide stale prices", &f.hide_stale)) changed = true;
  if (ImGui::Checkbox("Hide flagged rows", &f.hide_flagged)) changed = true;
  help_marker("Rows whose price carries a data-quality warning (spot above on-demand, price outlier, unverified "
              "source, incomplete GPU spec).");
  if (ImGui::Checkbox("Show doubtful prices", &f.show_doubtful)) changed = true;
  help_marker("Prices the snapshot itself doubts are held back by default: unverified source rows, spot above "
              "on-demand, and spot prices more than 85% below on-demand. Tick to rank them too (marked with !).");
  if (ImGui::Checkbox("Only what launches now", &f.launchable)) changed = true;
  help_marker("Only offers a new account can launch on demand or spot without a quota request or a reservation "
              "(the snapshot's availability facts, sourced per provider); offers whose terms are not published are "
              "left out too.");
  if (ImGui::Checkbox("Only plans that surely fit", &f.must_fit)) changed = true;
  help_marker("Rank only layouts whose memory band's top is under the GPU's memory (verdict 'fits'); without it, "
              "'tight' plans (expected peak fits, the band's top does not: may run out of memory) are ranked too, "
              "marked.");
  if (ImGui::Checkbox("Show rows that do not fit", &f.show_all)) changed = true;
  help_marker("Also list offers that do not fit the job, are filtered out, held back or cannot run it; hover one "
              "for why.");
  return changed;
}

// The "Rank by" combo. The dev-cycle key needs K runs of T minutes: it starts from 20 x 10 min if none is set.
bool draw_sort_combo(Query& d) {
  bool changed = false;
  ImGui::SetNextItemWidth(field_w());
  const bool sort_open = ImGui::BeginCombo("Rank by", sort_label(d.sort));
  mark_last_item("Rank by");
  if (sort_open) {
    for (SortKey k : {SortKey::total_cost, SortKey::time, SortKey::usd_per_mtok, SortKey::cost_under_deadline,
                      SortKey::dev_cycle})
      if (ImGui::Selectable(sort_label(k), k == d.sort)) {
        d.sort = k;
        if (k == SortKey::dev_cycle && d.cost.dev_runs < 1) d.cost.dev_runs = 20;
        if (k == SortKey::dev_cycle && !(d.cost.dev_run_minutes > 0)) d.cost.dev_run_minutes = 10;
        changed = true;
      }
    ImGui::EndCombo();
  }
  help_marker("Also chooses each offer's node count: the one that serves this key best within the deadline and "
              "budget. Dev cycle: the billed cost of the dev runs set under Cost assumptions (billing increments, "
              "minimums and provisioning per run).");
  return changed;
}

}  // namespace

void draw_constraints_panel(App::Impl& s) {
  Query& d = s.draft;
  Filters& f = d.filters;
  bool changed = false;
  ImGui::SetNextItemOpen(!s.opts.embed, ImGuiCond_Once);
  if (ImGui::CollapsingHeader("Constraints")) {
    if (s.has_snapshot) {
      changed |= multi_combo("Providers", f.providers, s, &Choices::providers, &Choices::provider_names);
      changed |= multi_combo("Regions", f.regions, s, &Choices::regions, nullptr);
      changed |= multi_combo("GPU models", f.gpus, s, &Choices::gpus, &Choices::gpu_names);
    }
    // One entry per pricing filter (query.h PricingFilter: any, then PricingOption's order).
    ImGui::SetNextItemWidth(field_w());
    static const char* const kPricingLabels[] = {"any", pricing_option_name(PricingOption::on_demand),
                                                 pricing_option_name(PricingOption::spot),
                                                 pricing_option_name(PricingOption::reserved)};
    int pricing = static_cast<int>(f.pricing);
    if (ImGui::Combo("Pricing", &pricing, kPricingLabels, IM_ARRAYSIZE(kPricingLabels))) {
      f.pricing = static_cast<PricingFilter>(pricing);
      changed = true;
    }
    help_marker("on-demand: billed by the provider's increments; spot: interruptible, restarts from checkpoints "
                "priced in; reserved: a booking product's whole term (EC2 Capacity Blocks by the day or week, "
                "committed use by the year), the unused tail shown as its idle cost.");
    ImGui::SetNextItemWidth(field_w());
    const bool ic_open = ImGui::BeginCombo("Interconnect", interconnect_name(f.interconnect));
    mark_last_item("Interconnect");
    if (ic_open) {
      for (InterconnectFilter i : {InterconnectFilter::any, InterconnectFilter::nvlink, InterconnectFilter::nvswitch,
                                   InterconnectFilter::pcie})
        if (ImGui::Selectable(interconnect_name(i), i == f.interconnect)) {
          f.interconnect = i;
          changed = true;
        }
      ImGui::EndCombo();
    }
    changed |= num("Min VRAM (GiB)", &f.min_vram_GiB, "%.4g", "Per GPU, in GiB (2^30 bytes), as nvidia-smi reports.");
    changed |= num_int("Max nodes", &f.max_nodes, "Largest cluster of one instance type the planner may use.");
    changed |= num_int("Min GPUs / node", &f.min_gpus);
    changed |= num_int("Max GPUs / node", &f.max_gpus, "0 = no limit.");
    changed |= num("Max $/h", &f.max_usd_per_h, "%.4g", "Per instance; 0 = no limit.");
    changed |= num("Deadline (h)", &f.deadline_h, "%.4g", "Wall-clock hours for the whole job; 0 = none.");
    changed |= num("Budget ($)", &f.budget_usd, "%.6g", "0 = none.");
    changed |= num("Min host RAM (GiB)", &f.min_host_ram_GiB, "%.4g");
    changed |= draw_row_switches(f);
    changed |= draw_sort_combo(d);
  }
  if (ImGui::CollapsingHeader("Cost assumptions")) {
    changed |= num("Spot interruptions /h", &d.cost.spot_interruption_rate_per_h, "%.4g",
                   "Per instance-hour; 0 = the snapshot's figure, or 0.05 (one per 20 h) where it has none.");
    changed |= num("Checkpoint every (s)", &d.cost.checkpoint_interval_s, "%.6g",
                   "0 = the Young/Daly optimum sqrt(2 x write time x MTBF).");
    double eval_pct = d.cost.eval_overhead * 100;
    if (num("Evaluation overhead %", &eval_pct, "%.3g")) {
      d.cost.eval_overhead = eval_pct / 100;
      changed = true;
    }
    changed |= num("Volume (GB)", &d.cost.volume_GB, "%.6g", "Persistent volume kept for the job, in GB (1e9 bytes); "
                   "0 = checkpoint + dataset size.");
    changed |= num("Egress (GB)", &d.cost.egress_GB, "%.6g", "Data taken out at the end, GB (1e9 bytes).");
    changed |= num_int("Dev runs", &d.cost.dev_runs, "Development-cycle scenario: K short runs, each billed on its own (Rank by: dev cycle).");
    changed |= num("Dev run (min)", &d.cost.dev_run_minutes, "%.4g");
  }
  if (changed) s.commit();
}

}  // namespace trainfit::app
