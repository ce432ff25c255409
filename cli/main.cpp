// trainfit — the command-line interface. Every subcommand builds one query (query.h) from --query / --hash /
// flags and hands it to the core's JSON facade (api.h), exactly as the web page's JS API does; --format
// json prints that document unchanged, the other formats render it.
// Exit codes: 0 success, 1 the job fits nowhere / nothing matched, 2 bad input, 3 bad snapshot.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "render.h"
#include "trainfit/engine.h"
#include "availability_cmd.h"
#include "snapshot_cmd.h"
#include "snapshot_store.h"

using json = nlohmann::json;

namespace {

constexpr int kExitOk = 0, kExitNoMatch = 1, kExitBadInput = 2, kExitBadSnapshot = 3;

struct Inputs {
  std::string query_file, hash, snapshot_file, format = "table";
  std::string stock_file;  // rank --stock: a live-stock report saved by `trainfit availability --save`
  // Flags for the common fields; empty / negative = not given.
  std::string hf_config;  // a Hugging Face config.json: the model, every knob derived (api verb hf_config)
  std::string model, method, precision, optimizer, recompute, attention, sort, gpu, offer, framework, cp_scheme;
  std::string moe_dispatcher;
  std::string compile;  // torch.compile: auto | on | off
  bool must_fit = false;
  bool moe_a2a_overlap = false;  // moe.a2a_overlap (a flag: only ever turns it on)
  long long seq_len = -1, micro_batch = -1, global_batch = -1, lora_rank = -1, top = -1, nodes = -1;
  long long loss_chunks = -1;
  std::optional<double> moe_capacity_factor, moe_imbalance;  // moe.capacity_factor, moe.imbalance when given
  std::string recompute_modules;  // comma-separated module names; "none" = the empty list
  double tokens = -1;
  std::vector<std::string> providers;
  bool spot_only = false, on_demand_only = false, reserved_only = false, show_doubtful = false, launchable = false;
  long long dev_runs = -1;
  double dev_run_minutes = -1;
  bool target_pricing = false;  // recipe: --spot / --on-demand choose the row's pricing (target.pricing)
  std::vector<std::string> recipe_formats;
  std::string out_dir;
  double step_time = -1, peak_gib = -1;  // calibrate
  std::string measured_file;
};

bool read_all(const std::string& path, std::string* out) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    *out = ss.str();
    return true;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

int fail(const std::string& field, const std::string& message, int code) {
  std::fprintf(stderr, "trainfit: %s%s%s\n", field.c_str(), field.empty() ? "" : ": ", message.c_str());
  return code;
}

// --hf-config FILE: the core reads the config.json (api verb hf_config) and its model object replaces the query's.
bool hf_model(const Inputs& in, json* doc, int* code) {
  if (!in.model.empty()) {
    *code = fail("--hf-config", "give --model or --hf-config, not both", kExitBadInput);
    return false;
  }
  std::string text;
  if (!read_all(in.hf_config, &text)) {
    *code = fail("--hf-config", "cannot read " + in.hf_config, kExitBadInput);
    return false;
  }
  const json out = json::parse(trainfit::api_call("hf_config", text, nullptr));
  if (!out.value("ok", false)) {
    *code = fail(out["error"].value("field", ""), out["error"].value("message", "failed"), kExitBadInput);
    return false;
  }
  (*doc)["model"] = out["model"];
  return true;
}

// Build the query document: file or hash first, then the flags on top (flags win). The parts are checked key
// by key here; the whole (a hash's parallel.ep under --model's MoE) when the verb parses the finished document.
bool build_query(const Inputs& in, std::string* query_json, int* code) {
  json doc = json::object();
  if (!in.query_file.empty() && !in.hash.empty()) {
    *code = fail("--query", "give --query or --hash, not both", kExitBadInput);
    return false;
  }
  if (!in.query_file.empty()) {
    std::string text;
    if (!read_all(in.query_file, &text)) {
      *code = fail("--query", "cannot read " + in.query_file, kExitBadInput);
      return false;
    }
    trainfit::Result<trainfit::Query> q = trainfit::parse_query_json_part(text);
    if (!q) {
      *code = fail(q.error().field, q.error().message, kExitBadInput);
      return false;
    }
    doc = json::parse(trainfit::query_to_json(*q));
  } else if (!in.hash.empty()) {
    trainfit::Result<trainfit::Query> q = trainfit::parse_query_hash_part(in.hash);
    if (!q) {
      *code = fail(q.error().field, q.error().message, kExitBadInput);
      return false;
    }
    doc = json::parse(trainfit::query_to_json(*q));
  }
  auto set = [&](const char* key, const json& v) { doc[key] = v; };
  if (!in.model.empty()) set("model", in.model);
  if (!in.hf_config.empty() && !hf_model(in, &doc, code)) return false;
  if (!in.method.empty()) set("method", in.method);
  if (!in.precision.empty()) set("precision", in.precision);
  if (!in.optimizer.empty()) set("optimizer", in.optimizer);
  if (!in.recompute.empty()) set("recompute", in.recompute);
  if (!in.attention.empty()) set("attention", in.attention);
  if (!in.framework.empty()) set("framework", in.framework);
  if (!in.cp_scheme.empty()) set("cp_scheme", in.cp_scheme);
  if (!in.compile.empty()) set("compile", in.compile);
  if (!in.sort.empty()) set("sort", in.sort);
  if (in.seq_len >= 0) set("seq_len", in.seq_len);
  if (in.micro_batch >= 0) set("micro_batch", in.micro_batch);
  if (in.global_batch >= 0) set("global_batch", in.global_batch);
  if (in.lora_rank >= 0) set("lora_rank", in.lora_rank);
  if (in.loss_chunks >= 0) set("loss_chunks", in.loss_chunks);
  if (in.moe_capacity_factor) doc["moe"]["capacity_factor"] = *in.moe_capacity_factor;
  if (in.moe_imbalance) doc["moe"]["imbalance"] = *in.moe_imbalance;
  if (!in.moe_dispatcher.empty()) doc["moe"]["dispatcher"] = in.moe_dispatcher;
  if (in.moe_a2a_overlap) doc["moe"]["a2a_overlap"] = true;
  if (!in.recompute_modules.empty()) {
    json mods = json::array();
    if (in.recompute_modules != "none")
      for (size_t b = 0; b <= in.recompute_modules.size();) {
        const size_t e = std::min(in.recompute_modules.find(',', b), in.recompute_modules.size());
        std::string name = in.recompute_modules.substr(b, e - b);  // "layernorm, moe" as well as "layernorm,moe"
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        mods.push_back(name);
        b = e + 1;
      }
    set("recompute_modules", mods);
  }
  if (in.top >= 0) set("top", in.top);
  if (in.tokens >= 0) doc["dataset"]["tokens"] = in.tokens;
  if (!in.providers.empty()) doc["filters"]["providers"] = in.providers;
  if (in.must_fit) doc["filters"]["must_fit"] = true;
  const char* pricing_key = in.target_pricing ? "target" : "filters";
  if (in.spot_only) doc[pricing_key]["pricing"] = trainfit::to_string(trainfit::PricingFilter::spot);
  if (in.on_demand_only) doc[pricing_key]["pricing"] = trainfit::to_string(trainfit::PricingFilter::on_demand);
  if (in.reserved_only) doc[pricing_key]["pricing"] = trainfit::to_string(trainfit::PricingFilter::reserved);
  if (in.show_doubtful) doc["filters"]["show_doubtful"] = true;
  if (in.launchable) doc["filters"]["launchable"] = true;
  if (in.dev_runs >= 0) doc["cost"]["dev_runs"] = in.dev_runs;
  if (in.dev_run_minutes >= 0) doc["cost"]["dev_run_minutes"] = in.dev_run_minutes;
  if (!in.gpu.empty()) doc["target"]["gpu"] = in.gpu;
  if (!in.offer.empty()) doc["target"]["offer"] = in.offer;
  if (in.nodes >= 0) doc["target"]["nodes"] = in.nodes;
  *query_json = doc.dump();
  return true;
}

// Prices: --snapshot FILE, else the snapshot `trainfit snapshot update` downloaded (snapshot_store.h) when it is
// usable, else the bundled one. A downloaded snapshot in use is named on stderr (stdout stays the document).
bool load_snapshot(const Inputs& in, trainfit::Snapshot* out, int* code) {
  std::string text;
  std::string origin = "bundled snapshot";
  // Today's date makes old prices carry the stale flag, exactly as the web page and the desktop app do.
  trainfit::SnapshotLoadOptions opt;
  opt.today = trainfit::today_utc();
  if (!in.snapshot_file.empty()) {
    if (!read_all(in.snapshot_file, &text)) {
      *code = fail("--snapshot", "cannot read " + in.snapshot_file, kExitBadSnapshot);
      return false;
    }
    origin = in.snapshot_file;
  } else {
    const std::string dir = trainfit::default_snapshot_dir();
    std::string why;
    if (std::optional<trainfit::StoredFiles> f = trainfit::read_stored_files(dir, &why)) {
      trainfit::Result<trainfit::Snapshot> s = trainfit::load_stored_snapshot(*f, opt);
      if (s) {
        std::fprintf(stderr, "trainfit: prices from the downloaded snapshot %s in %s (`trainfit snapshot status`)\n",
                     s->id.c_str(), dir.c_str());
        *out = std::move(s).value();
        return true;
      }
      why = s.error().to_string();
    }
    if (!why.empty())
      std::fprintf(stderr, "trainfit: the downloaded snapshot in %s is unusable (%s); using the bundled one\n", dir.c_str(),
                   why.c_str());
    text = std::string(trainfit::embedded_snapshot_json());
  }
  trainfit::Result<trainfit::Snapshot> s = trainfit::load_snapshot(text, opt, nullptr);
  if (!s) {
    *code = fail(origin, s.error().to_string(), kExitBadSnapshot);
    return false;
  }
  *out = std::move(s).value();
  return true;
}

void add_query_options(CLI::App* sub, Inputs& in, bool with_snapshot, bool with_format = true) {
  sub->add_option("--query", in.query_file, "query JSON file ('-' = stdin)");
  sub->add_option("--hash", in.hash, "query as a web link's hash ('#model=...&method=...')");
  sub->add_option("--model", in.model, "model preset id (see `trainfit models`)");
  sub->add_option("--hf-config", in.hf_config,
                  "a Hugging Face config.json ('-' = stdin) as the model: every architecture knob is derived from it "
                  "(model_type llama, mistral, qwen2, qwen3, qwen3_moe, gemma2, gemma3, gemma3_text, phi3, mixtral, "
                  "deepseek_v3, olmo2, gpt2, gpt_oss, llama4, llama4_text)");
  sub->add_option("--method", in.method, "full | lora | qlora");
  sub->add_option("--precision", in.precision, "auto (default: bf16-mixed, or fp16-mixed on GPUs without BF16) | fp32 | bf16-mixed | fp16-mixed | bf16 | fp8-mixed");
  sub->add_option("--optimizer", in.optimizer, "adamw | adamw-8bit | sgd | sgd-momentum | adafactor | lion");
  sub->add_option("--recompute", in.recompute, "none | selective | full | auto");
  sub->add_option("--recompute-modules", in.recompute_modules,
                  "what selective recompute re-runs under megatron-core (--recompute-modules): comma-separated "
                  "core_attn, layernorm, moe_act, mla_up_proj, mlp, shared_experts, moe (default core_attn); none = nothing");
  sub->add_option("--attention", in.attention, "flash | eager");
  sub->add_option("--framework", in.framework,
                  "generic | hf-trainer | torchtune | litgpt | megatron-core | nanotron | torchtitan: the trainer you run "
                  "(the planner proposes only layouts it can launch; its buffers count in the memory)");
  sub->add_option("--cp-scheme", in.cp_scheme,
                  "auto | ring | ulysses: how context parallelism splits attention (auto: the framework's default, and "
                  "the search also tries the other scheme where the framework runs both: generic and megatron-core "
                  "default to the ring, hf-trainer to DeepSpeed Ulysses, its ring being accelerate's under FSDP2; "
                  "torchtitan and nanotron run the ring)");
  sub->add_option("--compile", in.compile,
                  "auto | on | off: torch.compile of the model (auto: the framework's, on under torchtitan, whose "
                  "profile is fitted to compiled runs; off: eager, slower GEMMs and, under op-level selective "
                  "checkpointing, each layer's attention inputs kept; the other frameworks are eager only)");
  sub->add_option("--seq-len", in.seq_len, "tokens per sequence");
  sub->add_option("--micro-batch", in.micro_batch, "sequences per GPU per micro-step");
  sub->add_option("--global-batch", in.global_batch, "sequences per optimizer step");
  sub->add_option("--lora-rank", in.lora_rank, "LoRA rank");
  sub->add_option("--loss-chunks", in.loss_chunks,
                  "chunks the logits and the loss run in: 0 = the framework's (8 under torchtune and torchtitan), "
                  "1 = the whole batch");
  sub->add_option("--moe-capacity-factor", in.moe_capacity_factor,
                  "mixture of experts: each expert's token capacity over its balanced share, padded to it "
                  "(megatron-core --moe-expert-capacity-factor); 0 = dropless (default)");
  sub->add_option("--moe-imbalance", in.moe_imbalance,
                  "mixture of experts, dropless: the busiest expert-parallel rank's routed tokens over the mean "
                  "(1 = balanced, default)");
  sub->add_option("--moe-dispatcher", in.moe_dispatcher,
                  "auto | alltoall | deepep: how expert parallelism sends tokens (alltoall: once per routed expert; "
                  "deepep: DeepEP, once per destination node; auto: the framework's, megatron-core DeepEP across nodes)");
  sub->add_flag("--moe-a2a-overlap", in.moe_a2a_overlap,
                "megatron-core: overlap the expert-parallel all-to-alls with another micro-batch's compute "
                "(--overlap-moe-expert-parallel-comm: EP > 1, VP > 1 when PP > 1, no full recompute; one micro-batch "
                "more in flight)");
  sub->add_option("--tokens", in.tokens, "dataset size in tokens (all epochs)");
  sub->add_flag("--must-fit", in.must_fit,
                "plan only layouts whose verdict is 'fits' (the memory band's top under the GPU's memory), no 'tight' ones");
  if (with_format)
    sub->add_option("--format", in.format, "table | json | csv | markdown")
        ->check(CLI::IsMember({"table", "json", "csv", "markdown"}));
  if (with_snapshot)
    sub->add_option("--snapshot", in.snapshot_file,
                    "price snapshot JSON (default: the one `trainfit snapshot update` downloaded, else the bundled one)");
}

// The dev-cycle scenario: K runs of T minutes (rank --sort dev_cycle ranks by its billed cost; cost shows it).
void add_dev_cycle_options(CLI::App* sub, Inputs& in) {
  sub->add_option("--dev-runs", in.dev_runs, "dev-cycle scenario: number of short runs (cost.dev_runs)");
  sub->add_option("--dev-run-minutes", in.dev_run_minutes, "dev-cycle scenario: minutes per run (cost.dev_run_minutes)");
}

// Run one verb through the facade and render it. Returns the exit code.
// A terminal table of every ranked row (thousands with the bundled snapshot) is not read, only scrolled: without
// --top (or a query file or link that carries its own), `rank`'s table shows the first kTableRows and says how to
// list the rest. CSV and JSON, made for programs, keep every row, as the query model's default (top 0) does.
constexpr int kTableRows = 20;

int run_verb(const char* verb, const Inputs& in, bool needs_snapshot) {
  int code = kExitOk;
  std::string query;
  if (!build_query(in, &query, &code)) return code;
  const bool table_default_top = std::string_view(verb) == "rank" && in.format == "table" && in.top < 0 &&
                                 in.query_file.empty() && in.hash.empty();
  if (table_default_top) {
    json q = json::parse(query);
    q["top"] = kTableRows;
    query = q.dump();
  }
  // A query file or link can name target.gpu without --gpu: `estimate` then needs the snapshot's GPU table too.
  if (!needs_snapshot && std::string_view(verb) == "estimate") {
    const json q = json::parse(query, nullptr, false);
    needs_snapshot = q.is_object() && q.contains("target") && q["target"].is_object() &&
                     q["target"].contains("gpu") && q["target"]["gpu"].is_string() &&
                     !q["target"]["gpu"].get<std::string>().empty();
  }
  trainfit::Snapshot snap;
  if (needs_snapshot && !load_snapshot(in, &snap, &code)) return code;
  std::string stock_why;
  if (!in.stock_file.empty() && !trainfit::cli::apply_stock_file(in.stock_file, &snap, &stock_why))
    return fail("--stock", stock_why, kExitBadInput);
  // JSON: the facade's text as is; tables: its document as an object (api_doc.h), not text parsed back.
  const trainfit::Snapshot* sp = needs_snapshot ? &snap : nullptr;
  const std::string out = in.format == "json" ? trainfit::api_call(verb, query, sp) : std::string();
  json doc = in.format == "json" ? json::parse(out) : trainfit::api_call_doc(verb, query, sp);
  if (!doc.value("ok", false)) {
    const json& e = doc["error"];
    return fail(e.value("field", ""), e.value("message", "failed"), kExitBadInput);
  }
  if (in.format == "json") {
    std::printf("%s\n", out.c_str());
  } else {
    std::printf("%s", trainfit::cli::render(verb, doc, in.format).c_str());
    const int ranked = doc.contains("counts") ? doc["counts"].value("ranked", 0) : 0;
    if (table_default_top && ranked > kTableRows)
      std::printf("first %d of %d ranked rows shown; --top N shows more, --top 0 all (--format csv or json: all)\n", kTableRows,
                  ranked);
  }
  return doc.value("matched", true) ? kExitOk : kExitNoMatch;
}

// recipe: the facade's recipe document, then the requested files: one printed, or several written to --out.
int run_recipe(const Inputs& in) {
  int code = kExitOk;
  std::string query;
  if (!build_query(in, &query, &code)) return code;
  trainfit::Snapshot snap;
  if (!load_snapshot(in, &snap, &code)) return code;
  const std::string out = trainfit::api_call("recipe", query, &snap);
  json doc = json::parse(out);
  if (!doc.value("ok", false)) {
    const json& e = doc["error"];
    return fail(e.value("field", ""), e.value("message", "failed"), kExitBadInput);
  }
  std::vector<std::string> formats;
  for (const std::string& f : in.recipe_formats) {
    if (f == "json" && in.recipe_formats.size() == 1) {
      std::printf("%s\n", out.c_str());
      return kExitOk;
    }
    if (f == "all") {
      for (const char* x : trainfit::kRecipeFormats) formats.push_back(x);
    } else {
      formats.push_back(f);
    }
  }
  if (formats.size() > 1 && in.out_dir.empty())
    return fail("--out", "several formats write several files: name a directory with --out DIR", kExitBadInput);
  int written = 0;
  for (const std::string& f : formats) {
    const json* file = nullptr;
    for (const json& x : doc["files"])
      if (x.value("format", "") == f) file = &x;
    if (!file) return fail("--format", "unknown recipe format \"" + f + "\"", kExitBadInput);
    if (!file->value("applies", false)) {
      std::fprintf(stderr, "trainfit: %s: not written: %s\n", f.c_str(), file->value("why", "").c_str());
      continue;
    }
    const std::string text = file->value("text", "");
    if (in.out_dir.empty()) {
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else {
      const std::string path = in.out_dir + "/" + file->value("filename", f);
      std::ofstream o(path, std::ios::binary);
      if (!(o << text)) return fail("--out", "cannot write " + path, kExitBadInput);
      std::printf("wrote %s\n", path.c_str());
    }
    ++written;
  }
  for (const json& n : doc["notes"]) std::fprintf(stderr, "trainfit: note: %s\n", n.get<std::string>().c_str());
  return written > 0 ? kExitOk : kExitNoMatch;
}

// calibrate: fit the measured run (flags or a pasted log), print measured vs estimated, then rank every offer with
// the calibrated model. --format json prints the calibrate document (its `query` / `hash` carry the calibration).
int run_calibrate(const Inputs& in0) {
  // --offer / --nodes name the measured run (calibration.*), not the query's target.
  Inputs in = in0;
  in.offer.clear();
  in.nodes = -1;
  int code = kExitOk;
  std::string query;
  if (!build_query(in, &query, &code)) return code;
  json doc = json::parse(query);
  if (!in0.offer.empty()) doc["calibration"]["offer"] = in0.offer;
  if (in0.nodes >= 0) doc["calibration"]["nodes"] = in0.nodes;
  if (!in.measured_file.empty()) {
    std::string text;
    if (!read_all(in.measured_file, &text)) return fail("--measured", "cannot read " + in.measured_file, kExitBadInput);
    trainfit::Result<trainfit::MeasuredRun> m = trainfit::parse_measured_run(text);
    if (!m) return fail("--measured: " + m.error().field, m.error().message, kExitBadInput);
    if (m->step_time_s > 0) doc["calibration"]["step_time_s"] = m->step_time_s;
    else doc["calibration"]["tokens_per_s"] = m->tokens_per_s;
    if (m->peak_GiB > 0) doc["calibration"]["peak_GiB"] = m->peak_GiB;
  }
  if (in.step_time >= 0) doc["calibration"]["step_time_s"] = in.step_time;
  if (in.peak_gib >= 0) doc["calibration"]["peak_GiB"] = in.peak_gib;
  trainfit::Snapshot snap;
  if (!load_snapshot(in, &snap, &code)) return code;
  const std::string out = trainfit::api_call("calibrate", doc.dump(), &snap);
  json cal = json::parse(out);
  if (!cal.value("ok", false)) {
    const json& e = cal["error"];
    return fail(e.value("field", ""), e.value("message", "failed"), kExitBadInput);
  }
  if (in.format == "json") {
    std::printf("%s\n", out.c_str());
    return kExitOk;
  }
  std::printf("%s", trainfit::cli::render("calibrate", cal, in.format).c_str());
  json ranked = cal["query"];
  if (in.top < 0) ranked["top"] = 10;
  const std::string rank_out = trainfit::api_call("rank", ranked.dump(), &snap);
  json rank = json::parse(rank_out);
  if (!rank.value("ok", false)) return fail("rank", rank["error"].value("message", "failed"), kExitBadInput);
  std::printf("\nEvery offer re-ranked with the calibrated model (calibrated from %s):\n\n%s",
              cal.value("gpu_name", "").c_str(), trainfit::cli::render("rank", rank, in.format).c_str());
  return rank.value("matched", true) ? kExitOk : kExitNoMatch;
}

// The subcommands with the most to say, each in its own function (main stays a list). Their callbacks keep
// references to `in` (and `a`), which live in main until the command has run.
void add_estimate_command(CLI::App& cli, Inputs& in) {
  CLI::App* estimate = cli.add_subcommand("estimate", "memory breakdown and parameter counts for a job");
  estimate->footer(
      "Examples:\n  trainfit estimate --model llama-3.1-8b --method qlora --seq-len 4096\n"
      "  trainfit estimate --hf-config config.json --method full --gpu h100-sxm\n"
      "  trainfit estimate --query job.json --format json\n\n"
      "An inline model ({\"model\": {\"arch\": \"llama\", \"hidden_size\": ...}} in --query, model.* keys in --hash)\n"
      "takes the architecture knobs; arch (gpt2, llama, qwen2, qwen3, mistral, mixtral, gemma2, gemma3, phi3,\n"
      "falcon, opt, bert, olmo2, deepseek_v3, gpt_oss, llama4) sets their defaults:\n"
      "  mlp gelu|relu|swiglu|geglu, norm layernorm|rmsnorm, positional learned|rope|alibi|none,\n"
      "  bias none|qkv|attention|all, block pre|post|sandwich|parallel, qk_norm none|head|full, dropout,\n"
      "  num_kv_heads (grouped-query attention, any family), sliding_window + global_every, attention_sinks,\n"
      "  num_experts, experts_per_token, moe_intermediate_size, shared_expert_intermediate_size,\n"
      "  first_k_dense, moe_layer_step, and multi-head latent attention: q_lora_rank, kv_lora_rank,\n"
      "  qk_nope_head_dim, qk_rope_head_dim, v_head_dim.");
  add_query_options(estimate, in, false);
  estimate->add_option("--gpu", in.gpu, "check the fit on this GPU (snapshot GPU id, e.g. h100-sxm, a100-sxm-80gb)");
  estimate->add_option("--snapshot", in.snapshot_file, "price snapshot JSON for GPU specs (default: the bundled one)");
  estimate->callback([&in] { std::exit(run_verb("estimate", in, !in.gpu.empty())); });
}

void add_recipe_command(CLI::App& cli, Inputs& in) {
  CLI::App* recipe = cli.add_subcommand("recipe", "the files that launch one offer's plan (SkyPilot, dstack, DeepSpeed, ...)");
  recipe->footer("Examples:\n  trainfit recipe --model llama-3.1-8b --method lora --offer lambda/gpu_1x_h100_pcie/us-east-1 "
                 "--format skypilot\n"
                 "  trainfit recipe --model llama-3.1-70b --method full --offer aws/p5.48xlarge/us-east-1 --spot "
                 "--format all --out launch/");
  add_query_options(recipe, in, true, false);
  // Not required here: the offer may come from the query's target (--query / --hash); the facade names
  // target.offer when there is none.
  recipe->add_option("--offer", in.offer, "offer id from `trainfit rank` (provider/instance/region)");
  recipe->add_option("--nodes", in.nodes, "node count (default: the planner's choice)");
  recipe->add_flag("--spot", in.spot_only, "the offer's spot price (target.pricing)");
  recipe->add_flag("--on-demand", in.on_demand_only, "the offer's on-demand price (target.pricing)");
  recipe->add_flag("--reserved", in.reserved_only, "the offer's reserved-capacity booking (target.pricing)");
  // The choices are the recipe formats (kRecipeFormats, one table) plus "all" and "json".
  std::vector<std::string> recipe_choices(std::begin(trainfit::kRecipeFormats), std::end(trainfit::kRecipeFormats));
  recipe_choices.insert(recipe_choices.end(), {"all", "json"});
  std::string recipe_help;
  for (const std::string& f : recipe_choices) recipe_help += (recipe_help.empty() ? "" : " | ") + f;
  recipe->add_option("--format", in.recipe_formats, recipe_help + " (repeatable)")
      ->delimiter(',')
      ->check(CLI::IsMember(recipe_choices))
      ->required();
  recipe->add_option("--out", in.out_dir, "directory to write the files into (needed for several formats)");
  recipe->callback([&in] {
    in.target_pricing = true;
    std::exit(run_recipe(in));
  });
}

void add_calibrate_command(CLI::App& cli, Inputs& in) {
  CLI::App* calibrate = cli.add_subcommand("calibrate", "fit the model to one measured run and re-rank every offer");
  calibrate->footer("Examples:\n  trainfit calibrate --model llama-3.1-8b --method lora --offer lambda/gpu_1x_h100_pcie/us-east-1 "
                    "--step-time 1.9 --peak-gib 41\n"
                    "  trainfit calibrate --hash '#model=...' --offer aws/p5.48xlarge/us-east-1 --measured train.log");
  add_query_options(calibrate, in, true);
  calibrate->add_option("--offer", in.offer, "the offer the run was measured on (or calibration.offer in the query)");
  calibrate->add_option("--nodes", in.nodes, "its node count (default: the planner's choice)");
  calibrate->add_option("--step-time", in.step_time, "measured seconds per optimizer step");
  calibrate->add_option("--peak-gib", in.peak_gib, "measured torch.cuda.max_memory_reserved() per GPU, GiB");
  calibrate->add_option("--measured", in.measured_file,
                        "text the job printed ('-' = stdin): step_time_s=..., tokens_per_s=..., peak_GiB=...");
  calibrate->add_option("--top", in.top, "re-ranked rows to show (default 10)");
  calibrate->callback([&in] { std::exit(run_calibrate(in)); });
}

// What the snapshot subcommands read, with their defaults (run from the repository root).
struct SnapshotArgs {
  std::string snap_path, catalog_dir = "data/raw/skypilot-catalog", inputs_dir = "data/inputs",
                         out_path = "data/snapshot.json", pack_out, pack_text, manifest_out, from, dir;
  bool check_only = false;
};

// Publishing and updating: `snapshot manifest`, `snapshot update`, `snapshot status` (snapshot_update.cpp).
void add_snapshot_publish_commands(CLI::App* snapshot, SnapshotArgs& a) {
  CLI::App* sm = snapshot->add_subcommand("manifest", "write the manifest published with a packed snapshot (id, dates, sizes, SHA-256)");
  sm->add_option("file", a.snap_path, "binary snapshot (e.g. data/snapshot.bin)")->required();
  sm->add_option("--text", a.pack_text, "its text sidecar when the binary is lean (e.g. data/snapshot-text.json)");
  sm->add_option("--out", a.manifest_out, "manifest to write (e.g. data/snapshot-manifest.json)")->required();
  sm->callback([&a] { std::exit(trainfit::snapshot_manifest_cmd(a.snap_path, a.pack_text, a.manifest_out, stdout)); });
  CLI::App* su = snapshot->add_subcommand(
      "update", "download the published snapshot, check it against its manifest and use it from now on");
  su->footer("Example:\n  trainfit snapshot update --from https://example.org/trainfit/updates/snapshot-manifest.json\n\n"
             "Installs it only when the manifest reads, each file's size and SHA-256 match, the binary loads with the\n"
             "manifest's id and it is not older than the current snapshot; otherwise says why and keeps the current one.\n"
             "Exit codes: 0 updated or up to date, 2 bad argument, 3 refused, 4 server unreachable.");
  su->add_option("--from", a.from, "the manifest's address (http, https or file; default: $TRAINFIT_SNAPSHOT_URL)");
  su->add_option("--dir", a.dir, "where to keep it (default: $TRAINFIT_DATA_DIR, else $XDG_DATA_HOME/trainfit, else ~/.local/share/trainfit)");
  su->add_flag("--check", a.check_only, "download and check it (manifest, sizes, SHA-256, id, loader) without installing it");
  su->callback([&a] { std::exit(trainfit::snapshot_update_cmd(a.from, a.dir, a.check_only, stdout)); });
  CLI::App* ss = snapshot->add_subcommand("status", "say which snapshot trainfit uses: the downloaded one or the bundled one");
  ss->add_option("--dir", a.dir, "the downloaded snapshot's folder (default as for update)");
  ss->callback([&a] { std::exit(trainfit::snapshot_status_cmd(a.dir, stdout)); });
}

void add_snapshot_commands(CLI::App& cli, Inputs& in, SnapshotArgs& a) {
  CLI::App* snapshot = cli.add_subcommand("snapshot", "check, describe or build a price snapshot");
  snapshot->require_subcommand(1);
  CLI::App* sv = snapshot->add_subcommand("validate", "check a snapshot and list every problem (JSON pointer + reason)");
  sv->add_option("file", a.snap_path, "snapshot JSON")->required();
  sv->add_option("--format", in.format, "table | json")->check(CLI::IsMember({"table", "json"}));
  sv->callback([&in, &a] { std::exit(trainfit::snapshot_validate_cmd(a.snap_path, in.format, stdout)); });
  CLI::App* si = snapshot->add_subcommand("info", "show a snapshot's sources, capture dates and age");
  si->add_option("file", a.snap_path, "snapshot JSON")->required();
  si->callback([&a] { std::exit(trainfit::snapshot_info_cmd(a.snap_path, stdout)); });
  CLI::App* sim = snapshot->add_subcommand("import", "build a snapshot from a SkyPilot catalog and data/inputs");
  sim->add_option("--catalog", a.catalog_dir, "SkyPilot catalog checkout (folder with v8/ and v9/)");
  sim->add_option("--inputs", a.inputs_dir, "curated inputs (gpus.json, providers.json, instance_families.json)");
  sim->add_option("--out", a.out_path, "where to write the snapshot");
  sim->callback([&a] { std::exit(trainfit::snapshot_import_cmd(a.catalog_dir, a.inputs_dir, a.out_path, stdout)); });
  CLI::App* sp = snapshot->add_subcommand("pack", "write a snapshot's compact binary form (what the web page loads)");
  sp->add_option("file", a.snap_path, "snapshot JSON")->required();
  sp->add_option("out", a.pack_out, "binary file to write (e.g. data/snapshot.bin)")->required();
  sp->add_option("--lean", a.pack_text,
                 "leave the long text fields (sources, notes) out of the binary and write them to this JSON sidecar "
                 "(e.g. data/snapshot-text.json; the web page applies it after its first frame)");
  sp->callback([&a] { std::exit(trainfit::snapshot_pack_cmd(a.snap_path, a.pack_out, a.pack_text, stdout)); });
  add_snapshot_publish_commands(snapshot, a);
}

}  // namespace

int main(int argc, char** argv) {
  trainfit::install_validation_tables();  // the `validate` verb (library trainfit_validation)
  CLI::App cli{"trainfit — which rented GPU instance to train on: memory fit, topology, time and real cost.\n"
               "Every subcommand takes the same query (--query FILE, --hash '#...', or flags)."};
  cli.require_subcommand(1);
  cli.set_help_all_flag("--help-all", "all subcommands' help");
  Inputs in;

  CLI::App* models = cli.add_subcommand("models", "list the model presets with their exact parameter counts");
  models->add_option("--format", in.format, "table | json | csv | markdown")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown"}));
  models->callback([&] { std::exit(run_verb("models", in, false)); });

  add_estimate_command(cli, in);

  CLI::App* query = cli.add_subcommand("query", "normalise a query: print it in full as JSON and as a link hash");
  add_query_options(query, in, false);
  query->callback([&] { std::exit(run_verb("query", in, false)); });

  auto add_offer_options = [&](CLI::App* sub) {
    sub->add_option("--offer", in.offer, "offer id from `trainfit rank` (provider/instance/region)")->required();
    sub->add_option("--nodes", in.nodes, "node count (default: the planner's choice)");
  };
  CLI::App* plan = cli.add_subcommand("plan", "the topology picker's plan and runners-up for one offer");
  plan->footer("Example:\n  trainfit plan --model llama-3.1-70b --method full --offer aws/p5.48xlarge/us-east-1");
  add_query_options(plan, in, true);
  add_offer_options(plan);
  plan->callback([&] { std::exit(run_verb("plan", in, true)); });

  CLI::App* rank = cli.add_subcommand("rank", "rank every offer of the snapshot for the job");
  rank->footer("Examples:\n  trainfit rank --model qwen2.5-7b --method lora --tokens 2e8 --top 10\n"
               "  trainfit rank --hash '#model=llama-3.1-8b&method=qlora' --provider aws --provider lambda --format csv\n"
               "  trainfit rank --sort dev_cycle --dev-runs 40 --dev-run-minutes 10 --top 10");
  add_query_options(rank, in, true);
  rank->add_option("--top", in.top, "show the first N rows (table default 20; 0 = all)");
  rank->add_option("--sort", in.sort, "cost | time | usd_per_mtok | cost_under_deadline | dev_cycle");
  rank->add_flag("--show-doubtful", in.show_doubtful,
                 "also rank offers whose price the snapshot doubts (unverified_price, spot_above_on_demand, "
                 "deep_spot_discount); held back by default");
  rank->add_flag("--launchable", in.launchable,
                 "only offers a new account can launch now: self-serve, on-demand or spot (no quota request, "
                 "reservation or sales contact; unpublished terms left out)");
  add_dev_cycle_options(rank, in);
  rank->add_option("--provider", in.providers,
                   "only these providers (repeatable); a marketplace id also keeps the rows it sells");
  rank->add_flag("--spot", in.spot_only, "spot / interruptible prices only");
  rank->add_flag("--on-demand", in.on_demand_only, "on-demand prices only");
  rank->add_flag("--reserved", in.reserved_only, "reserved-capacity prices only (booked terms, e.g. EC2 Capacity Blocks)");
  rank->add_option("--stock", in.stock_file,
                   "a live-stock report saved by `trainfit availability --save`: its provider's offers without capacity "
                   "in their region are flagged no_live_stock (--launchable leaves them out)");
  rank->callback([&] { std::exit(run_verb("rank", in, true)); });

  static trainfit::cli::AvailabilityArgs avail;
  CLI::App* av = cli.add_subcommand("availability", "a provider's live stock through its own API, with your own key");
  av->footer("Examples:\n  LAMBDA_API_KEY=... trainfit availability --save stock.json\n"
             "  trainfit rank --model llama-3.1-8b --method lora --stock stock.json --launchable");
  av->add_option("--provider", avail.provider, "provider whose API to ask: " + trainfit::stock_api_names());
  av->add_option("--url", avail.url, "the API endpoint (default: the provider's documented one)");
  av->add_option("--key-env", avail.key_env, "environment variable holding the API key (default: LAMBDA_API_KEY for lambda)");
  av->add_option("--response", avail.response_file, "a recorded API response to read instead of asking");
  av->add_option("--save", avail.save, "write the report for `trainfit rank --stock FILE`");
  av->add_option("--format", avail.format, "table | json")->check(CLI::IsMember({"table", "json"}));
  av->add_option("--snapshot", in.snapshot_file, "price snapshot JSON whose offers are listed (default as for rank)");
  av->callback([&] {
    int code = kExitOk;
    trainfit::Snapshot snap;
    if (!load_snapshot(in, &snap, &code)) std::exit(code);
    std::exit(trainfit::cli::run_availability(avail, snap));
  });

  CLI::App* cost = cli.add_subcommand("cost", "the billing timeline for one offer, on-demand and spot");
  cost->footer("Example:\n  trainfit cost --model llama-3.1-8b --method lora --offer lambda/gpu_1x_h100_pcie/us-east-1");
  add_query_options(cost, in, true);
  add_offer_options(cost);
  add_dev_cycle_options(cost, in);
  cost->callback([&] { std::exit(run_verb("cost", in, true)); });

  add_recipe_command(cli, in);

  add_calibrate_command(cli, in);

  CLI::App* validate = cli.add_subcommand("validate", "the validation report: every published reference, estimate, error");
  validate->add_option("--format", in.format, "table | json | csv | markdown")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown"}));
  validate->callback([&] { std::exit(run_verb("validate", in, false)); });

  SnapshotArgs snap;
  add_snapshot_commands(cli, in, snap);

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = cli.exit(e);
    return rc == 0 ? 0 : kExitBadInput;
  }
  return kExitOk;
}
