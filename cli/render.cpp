// trainfit CLI — tables from the facade's documents, written by the core's one table writer (facade/table_text.h).
#include "render.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trainfit/engine.h"

namespace trainfit::cli {
namespace {
using json = nlohmann::json;

using Table = TextTable;  // facade/table_text.h: the one writer of CSV, Markdown and fixed-width tables

std::string num(const json& v, const char* fmt = "%.6g") {
  if (!v.is_number()) return "-";
  char b[64];
  const double d = v.get<double>();
  // Whole numbers (parameter counts, bytes) are printed exactly: they are checked digit by digit.
  if (std::string_view(fmt) == "%.6g" && d == std::floor(d) && std::fabs(d) < 1e15 && std::fabs(d) >= 1e6)
    std::snprintf(b, sizeof b, "%.0f", d);
  else
    std::snprintf(b, sizeof b, fmt, d);
  return b;
}

std::string count(const json& v) {
  if (!v.is_number()) return "-";
  // Exact integer with thousands separators: parameter counts are checked digit by digit.
  const double d = v.get<double>();
  char b[64];
  std::snprintf(b, sizeof b, "%.0f", d);
  std::string s = b, out;
  int k = 0;
  for (auto it = s.rbegin(); it != s.rend(); ++it) {
    if (k && k % 3 == 0 && *it != '-') out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++k;
  }
  return out;
}

Table models_table(const json& doc) {
  Table t{{"id", "name", "arch", "params total", "params active", "hf_id"}, {}, {false, false, false, true, true, false}};
  for (const auto& m : doc["models"])
    t.rows.push_back({m.value("id", ""), m.value("name", ""), m.value("arch", ""), count(m["params_total"]),
                      count(m["params_active"]), m.value("hf_id", "")});
  return t;
}

Table estimate_table(const json& doc) {
  Table t{{"component", "GiB", "bytes"}, {}, {false, true, true}};
  const json& m = doc["memory"];
  // The components from the core's one table (memory.h kMemoryComponents), then the totals.
  for (const MemoryComponent& c : kMemoryComponents) t.rows.push_back({c.label, text_gib(m[c.key]), num(m[c.key], "%.0f")});
  static const std::pair<const char*, const char*> kTotals[] = {
      {"total (expected)", "total_bytes"},
      {"total (low)", "total_low_bytes"},
      {"total (high)", "total_high_bytes"},
      {"host RAM per node", "host_ram_per_node_bytes"},
  };
  for (const auto& [label, key] : kTotals) t.rows.push_back({label, text_gib(m[key]), num(m[key], "%.0f")});
  // The framework's load peak (16-bit weights before quantization), where it has one; the total above is the
  // larger of it and the training step (memory_doc peak_set_by).
  const json& load = m["load_peak_bytes"];
  if (load.is_number() && load.get<double>() > 0) {
    const bool sets = m.value("peak_set_by", "") == "loading";
    t.rows.push_back({sets ? "peak while loading (sets the total)" : "peak while loading", text_gib(load),
                      num(load, "%.0f")});
  }
  return t;
}

// When the prices were captured and how old they are; a warning with the refresh command when stale.
std::string prices_line(const json& p) {
  if (!p.is_object()) return "";
  std::string dates;
  const json& cap = p["captured"];
  for (const auto& c : cap) {
    dates += (dates.empty() ? "" : ", ") + c.value("date", "");
    if (cap.size() > 1) {
      std::string prov;
      for (const auto& id : c["providers"]) prov += (prov.empty() ? "" : ", ") + id.get<std::string>();
      dates += " (" + prov + ")";
    }
  }
  std::string out = "prices captured " + dates;
  if (p["age_days"].is_number()) out += ", " + std::to_string(p["age_days"].get<int>()) + " days ago";
  // A ranking is as fresh as its oldest ranked price.
  if (p.contains("oldest_ranked")) out += "; oldest price ranked: " + p.value("oldest_ranked", "");
  out += "\n";
  if (p.value("stale", false))
    out += "WARNING: prices older than " + num(p["stale_after_days"], "%.0f") + " days are stale; refresh them with " +
           p.value("refresh", "") + "\n";
  return out;
}

// The result line: counts by state, and the rows held back for a doubtful price with their reasons.
std::string rank_summary(const json& doc) {
  const json& c = doc["counts"];
  std::string out = "\n" + std::to_string(c.value("ranked", 0)) + " ranked (" + std::to_string(c.value("tight", 0)) +
                    " tight: may run out of memory), " + std::to_string(c.value("does_not_fit", 0)) + " do not fit, " +
                    std::to_string(c.value("filtered", 0)) + " filtered (snapshot " + doc.value("snapshot", "") +
                    "; * = on the time/cost Pareto frontier)\n";
  out += prices_line(doc["prices"]);
  for (const auto& r : doc.value("reservations", json::array()))  // where each reserved row's price comes from
    out += "reserved prices: " + r.value("name", "") + " (" + r.value("provider", "") + ", prices of " +
           r.value("captured", "") + "; " + r.value("source", "") + "): " + r.value("terms", "") + "\n";
  if (c.value("held_back", 0) > 0) {
    std::string why;
    for (const auto& [flag, n] : doc["held_back"].items()) why += (why.empty() ? "" : ", ") + std::to_string(n.get<int>()) + " " + flag;
    out += std::to_string(c.value("held_back", 0)) + " held back for a doubtful price (" + why +
           "); --show-doubtful ranks them\n";
  }
  return out;
}

Table validate_table(const json& doc) {
  Table t{{"kind", "reference", "metric", "published", "estimate", "error", "within", "source"}, {},
          {false, false, false, true, true, true, false, false}};
  for (const auto& r : doc["rows"]) {
    char e[32];
    std::snprintf(e, sizeof e, "%+.1f%%", r.value("rel_error", 0.0) * 100);
    char tol[32];
    const double tl = r.value("tolerance", 0.0);
    std::snprintf(tol, sizeof tol, tl > 0 ? "±%.0f%% %s" : "info", tl * 100, r.value("pass", false) ? "yes" : "NO");
    if (r.value("kind", "") == "fit") {  // the reality set: published = usable GiB, estimate = expected GiB
      std::snprintf(tol, sizeof tol, "%s: %s %s", r.value("expected", "") == "runs" ? "ran" : "OOM",
                    r.value("verdict", "").c_str(), !r.value("judged", true) ? "(info)" : r.value("pass", false) ? "yes" : "NO");
    }
    t.rows.push_back({r.value("kind", ""), r.value("name", ""), r.value("metric", ""), num(r["published"]),
                      num(r["estimate"]), e, tol, r.value("source", "")});
  }
  return t;
}

std::string plan_text(const json& plan) {
  std::string out;
  if (!plan.value("fits", false)) return plan.value("why_not", "") + "\n";
  const json& b = plan["best"];
  out += "plan: " + b.value("summary", "") + " (" + b.value("topology", "") + ")\n";
  out += "training time: " + text_hours_of_seconds(plan["time_s"]) + " h (" + text_hours_of_seconds(plan["time_low_s"]) + " - " +
         text_hours_of_seconds(plan["time_high_s"]) + " h), " + num(b["tokens_per_s"], "%.0f") + " tokens/s, MFU " +
         num(b["mfu"], "%.3f") + "\n";
  const json& st = b["step"];
  out += "step: compute " + num(st["compute_s"], "%.3f") + " s, recompute " + num(st["recompute_s"], "%.3f") +
         " s, exposed comm " + num(st["exposed_comm_s"], "%.3f") + " s, bubble " + num(st["bubble_s"], "%.3f") +
         " s, optimizer " + num(st["optimizer_s"], "%.3f") + " s, offload " + num(st["offload_s"], "%.3f") +
         " s = " + num(st["total_s"], "%.3f") + " s\n";
  out += "memory per GPU: " + text_gib(b["memory_bytes"]) + " GiB expected, " + text_gib(b["memory_high_bytes"]) +
         " GiB high, limit " + text_gib(b["memory_limit_bytes"]) + " GiB: " + b.value("verdict", "") +
         (b.value("verdict", "") == "tight" ? " (may run out of memory)" : "") + "\n";
  out += "precision: " + plan.value("precision", "") + "\n";
  for (const auto& r : plan["runners_up"]) out += "runner-up: " + r.value("summary", "") + ": " + r.value("why", "") + "\n";
  for (const auto& w : plan["warnings"]) out += "warning: " + w.value("message", "") + "\n";
  return out;
}

// One pricing option's plan, named with its node count: the plan `cost` costs for that option.
std::string option_plan_text(const json& c) {
  if (!c.contains("plan")) return "";
  const json& p = c["plan"];
  const int nodes = p.value("nodes", 1);
  return "  plan on " + std::to_string(nodes) + (nodes == 1 ? " node: " : " nodes: ") + p.value("summary", "") + " (" +
         p.value("topology", "") + "), " + num(p["tokens_per_s"], "%.0f") + " tokens/s, MFU " + num(p["mfu"], "%.3f") +
         ", " + text_gib(p["memory_high_bytes"]) + " GiB per GPU at the band's high end\n";
}

std::string option_cost_text(const json& c) {
  const json& k = c["cost"];
  const json& tl = k["timeline"];
  std::string out = "$" + text_usd(k["total_usd"]) + " total on " + std::to_string(c.value("nodes", 1)) + " node(s) at $" +
                    text_usd(k["price_usd_per_h"]) + "/h; band $" + text_usd(k["low"]["total_usd"]) + " - $" +
                    text_usd(k["high"]["total_usd"]) + "\n";
  out += option_plan_text(c);
  out += "  wall " + text_hours_of_seconds(tl["wall_s"]) + " h = provision " + num(tl["provision_s"], "%.0f") + " s + staging " +
         num(tl["staging_s"], "%.0f") + " s + train " + text_hours_of_seconds(tl["train_s"]) + " h + checkpoints " +
         num(tl["checkpoint_s"], "%.0f") + " s + restarts " + num(tl["restart_s"], "%.0f") + " s + lost work " +
         num(tl["lost_work_s"], "%.0f") + " s\n";
  if (k.contains("booking")) {
    const json& b = k["booking"];
    // A product's minimum booking larger than the job's nodes (Reservation::min_instances) is said.
    const std::string more = b.value("instances", 0.0) > c.value("nodes", 1)
                                 ? " (the product's minimum of " + num(b["instances"], "%.0f") + " instances)" : "";
    out += "  booked " + num(json(b["booked_s"].get<double>() / 86400), "%.4g") + " days per instance" + more + " in " +
           num(b["bookings"], "%.0f") + " booking(s), paid whole; idle tail " + text_hours_of_seconds(b["idle_tail_s"]) + " h ($" +
           text_usd(b["idle_tail_usd"]) + "); compute $" + text_usd(k["compute_usd"]) + ", storage $" + text_usd(k["storage_usd"]) +
           ", egress $" + text_usd(k["egress_usd"]) + "\n";
  } else {
    out += "  compute $" + text_usd(k["compute_usd"]) + ", rounding waste $" + text_usd(k["rounding_waste_usd"]) + " (increment " +
           num(k["billing_increment_s"], "%.0f") + " s, minimum " + num(k["billing_minimum_s"], "%.0f") + " s), storage $" +
           text_usd(k["storage_usd"]) + ", egress $" + text_usd(k["egress_usd"]) + "\n";
  }
  if (k["break_even"].value("available", false))
    out += std::string("  spot ") + (k["break_even"].value("spot_pays_off", false) ? "pays off" : "does not pay off") +
           " vs on-demand $" + text_usd(k["break_even"]["on_demand_total_usd"]) + " (break-even spot price $" +
           text_usd(k["break_even"]["spot_price_usd_per_h"]) + "/h)\n";
  if (c.contains("dev_cycle") && c["dev_cycle"].contains("cost_usd")) {
    const json& d = c["dev_cycle"];
    out += "  dev cycle: " + num(d["runs"], "%.0f") + " runs of " + num(d["run_minutes"], "%.4g") + " min, $" +
           text_usd(d["cost_usd"]) + " billed (" + num(d["billed_s_per_run"], "%.0f") + " s per run and node), $" +
           text_usd(d["per_second_cost_usd"]) + " with per-second billing\n";
  }
  return out;
}

// `cost`: each pricing option with the plan it costs (options may choose different node counts).
std::string cost_text(const json& doc) {
  std::string out;
  if (!doc.value("flags", json::array()).empty()) {
    out += "flags: " + text_flags(doc["flags"], "csv") + "\n";
  }
  if (doc.contains("access")) {
    const json& a = doc["access"];
    out += "access: " + a.value("how", std::string("unknown"));
    if (a.contains("quota")) out += "; quota " + a.value("quota", "");
    if (a.contains("max_cluster")) out += "; largest cluster: " + a.value("max_cluster", "");
    if (a.contains("date")) out += " (as of " + a.value("date", "") + ")";
    out += "\n";
  }
  for (const auto& c : doc["costs"]) {
    out += "\n" + c.value("option", "") + ": ";
    if (!c.contains("cost")) out += c.value("state", "") + " " + c.value("why_not", "") + c.value("error", "") + "\n";
    else out += option_cost_text(c);
  }
  if (doc.contains("comparison")) {
    const json& cmp = doc["comparison"];
    if (cmp["cheapest"].is_string()) {
      const bool bound = cmp["cheapest"] == "reserved" && cmp.contains("reservation") &&
                         cmp["reservation"].value("negotiated", false);  // a contract whose term is not published
      out += "\ncheapest for this job: " + cmp["cheapest"].get<std::string>() +
             (bound ? " (at its lower bound: the contract's term is not published)" : "") + "\n";
    }
    if (cmp.contains("reservation")) {
      const json& r = cmp["reservation"];
      out += "reserved: " + r.value("name", "") + " at $" + text_usd(r["usd_per_h"]) + "/h per instance (prices of " +
             r.value("captured", "") + ", " + r.value("source", "") + "): " + r.value("terms", "") + "\n";
      const json& v = r["vs_on_demand"];
      if (v.value("comparable", false) && v.value("term_unpublished", false) && v["wins_from_h"].is_number())
        out += "  vs on-demand: " + num(json(v["price_ratio"].get<double>() * 100), "%.0f") +
               "% of its price; with no published minimum term it is cheaper from the first hour, a lower bound "
               "until the contract's term is known\n";
      else if (v.value("comparable", false) && v["wins_from_h"].is_number())
        out += "  vs on-demand: " + num(json(v["price_ratio"].get<double>() * 100), "%.0f") +
               "% of its price; booking is cheaper for every job over " + num(v["wins_from_h"], "%.1f") +
               " h of wall clock, and from " + num(v["first_win_h"], "%.1f") +
               " h on except just past a booking step" +
               (v.contains("repeat_break_even_every_h")
                    ? "; kept for a repeating job, it pays off if the job runs at least every " +
                          num(v["repeat_break_even_every_h"], "%.0f") + " h"
                    : std::string()) +
               "\n";
      else if (v.value("comparable", false))
        out += "  vs on-demand: the booked rate is not below on-demand's (" +
               num(json(v["price_ratio"].get<double>() * 100), "%.0f") + "% of it): it buys capacity, not a discount\n";
    }
  }
  return out;
}

}  // namespace

std::string render(const std::string& verb, const json& doc, const std::string& format) {
  if (verb == "models") return render_text_table(models_table(doc), format);
  if (verb == "estimate") {
    std::string head;
    if (format == "table") {
      const json& p = doc["params"];
      head = doc["model"].value("name", "") + ": " + count(p["total"]) + " parameters (" + count(p["trainable"]) +
             " trainable)\n\n";
    }
    std::string body = render_text_table(estimate_table(doc), format);
    std::string notes;
    if (format == "table") {
      notes += "recompute: " + doc.value("recompute", "") + "; precision: " + doc.value("precision", "") +
               "; gradient accumulation: " + std::to_string(doc.value("grad_accum", 1)) + "\n";
      if (doc.contains("fit")) {
        const json& f = doc["fit"];
        char b[400];
        const double gib_ = 1073741824.0;
        const double expected = doc["memory"].value("total_bytes", 0.0) / gib_;
        const double high = doc["memory"].value("total_high_bytes", 0.0) / gib_;
        const std::string verdict = f.value("verdict", "");
        const char* head = verdict == "fits" ? "FITS" : verdict == "tight" ? "TIGHT (may run out of memory)" : "DOES NOT FIT";
        std::snprintf(b, sizeof b, "%s on %s (%.0f GB, %.1f GiB for CUDA, %.1f GiB usable): %.1f GiB expected, "
                      "%.1f GiB at the band's top (+%.0f%%)\n",
                      head, f.value("gpu_name", "").c_str(), f.value("gpu_memory_bytes", 0.0) / 1e9,
                      f.value("cuda_memory_bytes", 0.0) / gib_, f.value("usable_bytes", 0.0) / gib_, expected, high,
                      f.value("band_high_percent", 0.0));
        notes += b;
        const std::string at_mb = num(f["max_seq_len_at_micro_batch"], "%.0f");
        notes += "largest micro-batch at seq " + num(f["max_micro_batch_at_seq_len"], "%.0f") + ": " +
                 num(f["max_micro_batch"], "%.0f") + " expected, " + num(f["max_micro_batch_safe"], "%.0f") +
                 " safe; longest sequence at micro-batch " + at_mb + ": " + num(f["max_seq_len"], "%.0f") +
                 " expected, " + num(f["max_seq_len_safe"], "%.0f") + " safe tokens\n";
        if (f.value("max_seq_len", 0.0) == 0 && f.value("max_micro_batch", 0.0) == 0)
          notes += "  (none: the memory that does not grow with tokens (weights, gradients, optimizer states) already "
                   "exceeds what this GPU can use; shard it with ZeRO, TP or PP, offload it, or train fewer parameters)\n";
        if (f.contains("max_seq_len_by_cp") && !f["max_seq_len_by_cp"].empty()) {
          notes += "longest sequence at micro-batch " + at_mb + " with context parallelism (" + f.value("cp_scheme", "") +
                   "):";
          for (const auto& c : f["max_seq_len_by_cp"]) {
            // A degree the job's scheme cannot run, in the framework's other one (auto): named.
            const std::string scheme = c.value("cp_scheme", "");
            notes += " CP " + num(c["cp"], "%.0f") + " (" + num(c["gpus"], "%.0f") + " GPUs" +
                     (scheme != f.value("cp_scheme", "") ? ", " + scheme : std::string()) + ") " +
                     num(c["max_seq_len"], "%.0f") + " / " + num(c["max_seq_len_safe"], "%.0f") + ";";
          }
          notes += " expected / safe tokens\n";
        }
      }
      for (const auto& n : doc["memory"]["notes"]) notes += "note: " + n.value("message", "") + "\n";
    }
    return head + body + notes;
  }
  if (verb == "rank") {
    std::string out = format == "table" ? table_fixed(rank_text_table(doc, format)) : rank_rows_text(doc, format);
    if (format == "table") {
      out += flag_legend(doc) + rank_summary(doc);
      if (doc["counts"].value("ranked", 0) == 0) {
        out += "\nNothing matched. The most common reasons:\n";
        for (const auto& w : doc["why_not_summary"])
          out += "  " + std::to_string(w.value("rows", 0)) + " rows  " + w.value("reason", "") + "\n";
      }
    }
    return out;
  }
  if (verb == "validate") return render_text_table(validate_table(doc), format);
  if (verb == "plan" || verb == "cost") {
    if (format != "table") return doc.dump(2) + "\n";
    std::string out = "offer " + doc.value("offer", "") + " (price captured " + doc.value("captured", "") + ")\n";
    if (!doc.contains("plan")) out += "no plan: " + doc.value("why_not", "") + "\n";
    else if (verb == "plan") out += plan_text(doc["plan"]);
    if (verb == "cost" && doc.contains("plan"))
      for (const auto& w : doc["plan"]["warnings"]) out += "warning: " + w.value("message", "") + "\n";
    if (verb == "cost") out += cost_text(doc);
    return out;
  }
  if (verb == "calibrate") {
    // Measured vs estimated side by side, then what was fitted.
    Table t;
    t.head = {"", "measured", "estimated", "calibrated"};
    t.right = {false, true, true, true};
    t.rows.push_back({"step time (s)", num(doc["measured_step_s"], "%.4g"), num(doc["estimated_step_s"], "%.4g"),
                      num(doc["calibrated_step_s"], "%.4g")});
    t.rows.push_back({"efficiency (fraction of peak)", "", num(doc["efficiency_before"], "%.3f"),
                      num(doc["efficiency_after"], "%.3f")});
    const json& m = doc["memory"];
    if (m.is_object())
      t.rows.push_back({"reserved memory per GPU (GiB)", num(m["measured_peak_GiB"], "%.2f"),
                        num(m["estimated_reserved_GiB"], "%.2f"), ""});
    std::string out = "offer " + doc.value("offer", "") + " (" + doc.value("gpu_name", "") + "), " +
                      doc.value("plan", "") + "\n\n" + render_text_table(t, format);
    if (format == "table") {
      out += "\nfitted: efficiency factor " + num(doc["efficiency_scale"], "%.4f") + " (on every GPU's modelled efficiency)";
      if (m.is_object())
        out += ", allocator reserve (fragmentation) " + num(m["fragmentation_before"], "%.3g") + " -> " +
               num(m["fragmentation_after"], "%.3g");
      out += "\nlink: #" + doc.value("hash", "") + "\n";
    }
    return out;
  }
  if (verb == "query") return doc["query"].dump(2) + "\n#" + doc.value("hash", "") + "\n";
  return doc.dump(2) + "\n";
}

}  // namespace trainfit::cli
