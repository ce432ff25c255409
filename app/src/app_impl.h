// trainfit — the application's private state, shared by the UI files (app.cpp owns it; ui_*.cpp draw it).
// Rule for every ui_*.cpp: widgets edit `draft`; commit() validates the draft through the same parser the URL
// hash and the JS API use, so a value the core would refuse never reaches the ranking (it is shown instead).
// Derived results are recomputed only when their inputs change (query version, snapshot version, selection).
#pragma once
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "imgui.h"
#include "trainfit/app/app.h"
#include "trainfit/engine.h"

namespace trainfit::app {

// Result table columns, in display order.
enum Col : int {
  kColRank, kColInstance, kColProvider, kColRegion, kColOption, kColFlags, kColGpus, kColTime, kColCost, kColPrice, kColPerMtok,
  kColHeadroom, kColVram, kColPlan, kColState, kColCount
};

// Text of one result row that is not already a C string in the snapshot: formatted the first time the row is
// shown after a ranking (App::Impl::row_texts) and kept, so the table does not allocate while it draws (the
// UI frame budget, docs/performance.md).
struct RowText {
  char name[96] = "";  // offer_display_name: "8x RTX 6000 Ada Generation 48 GB, 80 vCPU, 480 GiB RAM" for a marketplace row
  char gpus[48] = "";  // "8 x H100 SXM" (empty until formatted: App::Impl::row_texts)
  char plan[192] = "";  // plan_summary: the same text as the CLI's plan column and the JSON documents
  char seller[64] = "";  // "massedcompute via shadeform" (a marketplace row), else the provider id
};

// One validation row for the Accuracy view (from the `validate` document, api.h validation_document).
struct ValRow {
  std::string kind, name, source, metric, note;
  double published = 0, estimate = 0, rel_error = 0, tolerance = 0;
  bool pass = true;
};

// A point series for the memory curves.
struct Curve {
  std::vector<double> x, expected, high;
};

enum class Tab { detail, chart, memory, accuracy, snapshot };

struct App::Impl {
  AppOptions opts;
  Query query = default_query();  // committed: what the ranking and the hash show
  Query draft = query;            // what the widgets edit
  uint64_t query_version = 1;
  std::string query_error;        // the draft (or a hash / JSON) the core refused; the previous query stays
  Snapshot snapshot;
  bool has_snapshot = false;
  uint64_t snapshot_version = 0;
  std::string snapshot_origin;
  std::string snapshot_error;     // last refused snapshot (the current one stays)
  std::string snapshot_text_error;  // why a lean snapshot's text sidecar was refused ("" = none refused)
  std::string banner;             // shell-level error
  std::string clipboard;
  std::vector<std::string> requests;  // for the shell: "open_file", "open_full_app", "theme:dark", ...
  uint64_t frames = 0;
  float scale = 1.0f;
  bool fonts_dirty = true;
  float atlas_px = 0;  // font size the current atlas was built at (0: none yet)
  bool dark = true;
  std::string today;              // ISO date, for the snapshot's age
  PriceDates prices;              // when the current snapshot's prices were captured (set with the snapshot)
  std::string prices_text;        // price_dates_text(prices)
  std::string oldest_ranked;      // oldest_ranked_capture of the current ranking ("" = none ranked)

  // ---- ranking cache: re-ranked only when the query (minus view-only keys) or the snapshot changes
  uint64_t seen_version = 0;
  std::optional<Query> rank_query;  // the query (selection-independent part) the ranking was made for
  uint64_t rank_snapshot_version = 0;
  Result<ParamCounts> params = Error{"", "not computed"};
  Result<MemoryBreakdown> memory = Error{"", "not computed"};  // one GPU, no sharding: the headline figure
  bool ranked = false;
  Result<RankResult> rank = Error{"", "no snapshot loaded yet"};
  PlanCache plan_cache;  // plans per (job, instance shape): filter, sort and cost changes plan nothing
  double rank_ms = 0;
  uint64_t rank_count = 0;        // how many times the ranking ran (tests pin the cache with it)
  uint64_t rank_version = 0;      // bumps with each new ranking
  // The held-back rows counted by flag ("3 stale, 1 price_outlier"), for the ranking of held_back_version: the
  // count runs over every row and flag, so once per ranking, not in every frame's headline.
  std::string held_back_why;
  uint64_t held_back_version = ~0ull;
  // Row texts formatted so far (a deque: references stay valid as it grows), and each ranked row's place in it
  // (-1 = not formatted yet): 4 bytes per row instead of a 112-byte RowText each (17 MB at 100k offers).
  // Read them through row_texts().
  mutable std::deque<RowText> row_text;
  mutable std::vector<int> row_text_slot;
  std::vector<int> view;          // rows shown, in display order (indices into rank->rows)
  bool view_dirty = true;
  int sort_col = kColRank;        // kColRank = the core's order (the query's `sort` key)
  bool sort_desc = false;
  int synced_sort = -1;           // query.sort the table header last showed
  bool scroll_to_selected = false; // the selection came from outside the table (chart, hash): bring it into view
  int selected = -1;              // index into rank->rows
  Tab tab = Tab::detail;
  bool want_tab = false;

  // ---- narrow layout (phones, narrow iframes: ui_narrow.cpp)
  bool narrow = false;            // this frame is laid out in one column (App::frame decides from the width)
  bool job_open = false;          // narrow: the job's inputs are open under its summary line
  bool table_view = false;        // narrow: the results as the full table instead of cards

  // ---- detail cache (selected row)
  uint64_t detail_key = ~0ull;
  Result<CostBreakdown> cost = Error{"", "no row selected"};
  // The selected offer under each pricing option (PricingOption order): its row (-1 = not offered) and cost.
  int option_row[std::size(kPricingOptions)] = {-1, -1, -1};
  Result<CostBreakdown> option_cost[std::size(kPricingOptions)] = {Error{"", "none"}, Error{"", "none"}, Error{"", "none"}};
  Result<MemoryBreakdown> row_memory = Error{"", "none"};
  // memory curves for the selected row's GPU and layout
  Curve by_micro_batch, by_seq_len;
  int64_t max_mb = 0, max_seq = 0;            // expected peak under the usable memory (fits or tight)
  int64_t max_mb_safe = 0, max_seq_safe = 0;  // the band's top under it (fits)
  std::vector<CpReach> seq_by_cp;               // the longest sequence with context parallelism added
  // launch recipe of the selected row (recipe.h): the same files `trainfit recipe` writes for this offer
  Result<Recipe> recipe = Error{"", "none"};
  // The recipe is made when the Launch section first comes into view (ensure_recipe), not with the rest of the
  // detail: planning the row again and writing its files was ~10 ms of the page's first frame, below the fold.
  bool recipe_pending = false;
  // The selected row's runners-up: its shape planned again with the alternatives a ranking does not search
  // (rank.h plan_offer_row), as the plan verb shows them.
  std::vector<Plan> runners_up;
  // "Measured" box: what the user measured on the selected row's plan, and the last fit (calibrate.h)
  char measured_text[512] = "";
  double measured_step_s = 0, measured_peak_GiB = 0;
  Result<CalibrationResult> calibration = Error{"", "none"};
  std::string calibration_error;

  // ---- chart cache (ranked rows)
  uint64_t chart_key = ~0ull;
  double t_min = 1, t_max = 2, c_min = 1, c_max = 2;  // wall hours, USD
  std::vector<int> pareto;        // row indices on the frontier, by time

  // ---- accuracy
  bool validation_loaded = false;
  std::vector<ValRow> validation;
  std::string validation_error;

  // ---- text inputs (ImGui 1.86 without imgui_stdlib: fixed buffers)
  char model_search[64] = "";
  char regions_text[256] = "";
  char custom_name[128] = "Custom model";
  // Facade documents asked of the shell (shell_calls.cpp): where App::make_documents_here is off (the web page, whose
  // module carries neither the recipe writers nor the config.json reader: the JS API's module answers), the Launch
  // section's recipe and a pasted config.json's model. One outstanding call per purpose, numbered; an answer to a
  // call no longer outstanding (another row selected since) is dropped.
  struct ShellCall {
    uint64_t id = 0;  // 0: none outstanding
    std::string verb, arg;
  };
  ShellCall recipe_call, hf_config_call;
  uint64_t shell_calls = 0;
  Result<Recipe> (*write_recipe)(const Query&, const Snapshot&) = nullptr;  // set: made here
  Result<ModelSpec> (*read_hf_config)(std::string_view) = nullptr;          // set: read here
  void ask_shell(ShellCall& c, std::string verb, std::string arg);
  char hf_config_text[32768] = "";      // a pasted Hugging Face config.json (model_from_hf_config)
  std::string hf_config_error;          // why the pasted config was refused ("hf_config.<field>: ...")

  // ---- timing
  double frame_ms = 0, frame_ms_avg = 0;

  void commit();                        // validate draft -> query
  std::string adopt(Result<Query> q);   // replace query and draft from outside; "" or the error
  void recompute();                     // ranking + headline figures when stale
  void rebuild_view();
  void select_row(int row);             // sets target.offer / target.pricing (in the hash)
  const RowText& row_texts(int row) const;// the row's "GPUs", "Plan" and "Provider" cells, formatted on first use
  void update_detail();
  void ensure_recipe();
  const RankRow* selected_row() const;
  const Plan* row_plan(const RankRow& r) const;
  void request(std::string r) { requests.push_back(std::move(r)); }
};

// ---- UI pieces (one file each)
void draw_job_panel(App::Impl& s);          // ui_job.cpp
void draw_constraints_panel(App::Impl& s);  // ui_constraints.cpp
void draw_results_table(App::Impl& s, float height);  // ui_results.cpp
void draw_detail(App::Impl& s);             // ui_detail.cpp
void draw_cost_time_chart(App::Impl& s);    // ui_charts.cpp
void draw_memory_curves(App::Impl& s);      // ui_charts.cpp
void draw_launch(App::Impl& s);             // ui_launch.cpp: the detail's Launch section
void detail_heading(const char* text);      // ui_detail.cpp: a section heading of the detail view
bool adopt_hf_config(App::Impl& s, Result<ModelSpec> m, bool commit = true);  // ui_job.cpp: a config.json's model
std::string shell_call_json(const App::Impl& s, std::string_view id);  // shell_calls.cpp: ui.call
std::string answer_shell_call(App::Impl& s, std::string_view arg);    // shell_calls.cpp: ui.answer
void draw_accuracy(App::Impl& s);           // ui_info.cpp
void draw_snapshot_info(App::Impl& s);      // ui_info.cpp
void draw_narrow(App::Impl& s);             // ui_narrow.cpp: the one-column layout
// The job in one line ("Llama 3.1 8B, lora, 100 M tokens, seq 2048"): the narrow summary, and state_json's "job".
const char* job_line(const App::Impl& s, char* buf, size_t n);
// The rows the table shows, in its order, with the numbers it prints (app_state.cpp; the ui.view verb).
std::string view_json(App::Impl& s, int asked);
// Shared by both layouts (app.cpp): error lines, the headline (what fits, and the best offer), the view tabs.
void draw_messages(App::Impl& s);
void draw_headline(App::Impl& s);
void draw_tabs(App::Impl& s);
void draw_tab_body(App::Impl& s, Tab tab);
// The one-column layout's width rule: narrow below 700 CSS px, and in portrait below 820 (tablets held upright).
bool is_narrow(float css_w, float css_h);
std::string results_text(const App::Impl& s, bool markdown);  // ui_results.cpp (copy as CSV / Markdown)

// ---- formatting helpers (ui_format.cpp): snprintf into the caller's buffer, never allocate
const char* fmt_duration(char* buf, size_t n, double seconds);   // "3.2 h", "45 min", "2.1 d"
const char* fmt_usd(char* buf, size_t n, double usd);            // "$1,234", "$12.30", "$0.042"
const char* fmt_bytes_gib(char* buf, size_t n, double bytes);    // "74.3 GiB"
const char* fmt_count(char* buf, size_t n, double v);            // "8.03 B", "124 M"
ImU32 state_color(RowState st, bool dark);
void help_marker(const char* text);          // "(?)" with a tooltip
const char* fmt_flags(char* buf, size_t n, uint32_t flags);  // one-letter codes ("DT"), as the CLI's flags column
// One line per flag with its meaning; the flags that hold back this row (rank.h, held_back_flags) say so.
void flag_reasons(uint32_t flags, uint32_t doubtful);
ImVec4 error_color();
ImVec4 warn_color();
// A warning in warn_color(), wrapped at the window's edge: notes and reasons run to a few hundred characters.
void warn_wrapped(const char* fmt, ...) IM_FMTARGS(1);

}  // namespace trainfit::app
