// trainfit CLI — tables from the facade's documents. One Table type, three renderings.
#include "render.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace trainfit::cli {
namespace {
using json = nlohmann::json;

struct Table {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right;  // right-align numeric columns
};

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string render_table(const Table& t, const std::string& format) {
  std::string out;
  const size_t n = t.head.size();
  if (format == "csv") {
    for (size_t i = 0; i < n; ++i) out += (i ? "," : "") + csv_cell(t.head[i]);
    out += "\n";
    for (const auto& r : t.rows) {
      for (size_t i = 0; i < n; ++i) out += (i ? "," : "") + csv_cell(i < r.size() ? r[i] : "");
      out += "\n";
    }
    return out;
  }
  if (format == "markdown") {
    out += "|";
    for (const auto& h : t.head) out += " " + md_cell(h) + " |";
    out += "\n|";
    for (size_t i = 0; i < n; ++i) out += (i < t.right.size() && t.right[i]) ? " ---: |" : " --- |";
    out += "\n";
    for (const auto& r : t.rows) {
      out += "|";
      for (size_t i = 0; i < n; ++i) out += " " + md_cell(i < r.size() ? r[i] : "") + " |";
      out += "\n";
    }
    return out;
  }
  std::vector<size_t> w(n, 0);
  for (size_t i = 0; i < n; ++i) w[i] = t.head[i].size();
  for (const auto& r : t.rows)
    for (size_t i = 0; i < n && i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  auto line = [&](const std::vector<std::string>& r) {
    std::string l;
    for (size_t i = 0; i < n; ++i) {
      const std::string cell = i < r.size() ? r[i] : "";
      const std::string pad(w[i] - std::min(w[i], cell.size()), ' ');
      const bool right = i < t.right.size() && t.right[i];
      l += (i ? "  " : "") + (right ? pad + cell : cell + (i + 1 < n ? pad : ""));
    }
    return l + "\n";
  };
  out += line(t.head);
  std::vector<std::string> rule;
  for (size_t i = 0; i < n; ++i) rule.push_back(std::string(w[i], '-'));
  out += line(rule);
  for (const auto& r : t.rows) out += line(r);
  return out;
}

std::string num(const json& v, const char* fmt = "%.6g") {
  if (!v.is_number()) return "-";
  char b[64];
  std::snprintf(b, sizeof b, fmt, v.get<double>());
  return b;
}

std::string gib(const json& v) {
  if (!v.is_number()) return "-";
  char b[64];
  std::snprintf(b, sizeof b, "%.2f", v.get<double>() / 1073741824.0);
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
  static const std::pair<const char*, const char*> kRows[] = {
      {"weights", "weights_bytes"},
      {"fp32 master weights", "master_weights_bytes"},
      {"gradients", "gradients_bytes"},
      {"optimizer states", "optimizer_states_bytes"},
      {"activations", "activations_bytes"},
      {"logits + loss", "logits_bytes"},
      {"LoRA adapters", "lora_adapters_bytes"},
      {"quantization", "quantization_bytes"},
      {"runtime overhead", "overhead_bytes"},
      {"fragmentation", "fragmentation_bytes"},
      {"total (expected)", "total_bytes"},
      {"total (low)", "total_low_bytes"},
      {"total (high)", "total_high_bytes"},
      {"host RAM per node", "host_ram_per_node_bytes"},
  };
  for (const auto& [label, key] : kRows) t.rows.push_back({label, gib(m[key]), num(m[key], "%.0f")});
  return t;
}

}  // namespace

std::string render(const std::string& verb, const json& doc, const std::string& format) {
  if (verb == "models") return render_table(models_table(doc), format);
  if (verb == "estimate") {
    std::string head;
    if (format == "table") {
      const json& p = doc["params"];
      head = doc["model"].value("name", "") + ": " + count(p["total"]) + " parameters (" + count(p["trainable"]) +
             " trainable)\n\n";
    }
    std::string body = render_table(estimate_table(doc), format);
    std::string notes;
    if (format == "table")
      for (const auto& n : doc["memory"]["notes"]) notes += "note: " + n.value("message", "") + "\n";
    return head + body + notes;
  }
  if (verb == "query") return doc["query"].dump(2) + "\n#" + doc.value("hash", "") + "\n";
  return doc.dump(2) + "\n";
}

}  // namespace trainfit::cli
