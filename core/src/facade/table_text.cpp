// trainfit core — table_text.h: the text tables (CSV, Markdown, fixed width) and the ranked rows' one writer.
#include "trainfit/facade/table_text.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "trainfit/storage/snapshot.h"

namespace trainfit {
namespace {
using json = nlohmann::json;

// A document's member, read without json::value's templates (one instantiation per call site and type, several KB
// of the web module for a table of rows): the member or null, a string or "", a number or the default.
const json& field(const json& o, const char* key) {
  static const json null_value;
  if (!o.is_object()) return null_value;
  const auto it = o.find(key);
  return it != o.end() ? *it : null_value;
}
std::string str(const json& o, const char* key) {
  const json& v = field(o, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}
double number(const json& o, const char* key, double dflt) {
  const json& v = field(o, key);
  return v.is_number() ? v.get<double>() : dflt;
}
long long integer(const json& o, const char* key, long long dflt) {
  const json& v = field(o, key);
  return v.is_number() ? v.get<long long>() : dflt;
}
bool flag(const json& o, const char* key) {
  const json& v = field(o, key);
  return v.is_boolean() && v.get<bool>();
}

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

}  // namespace

std::string table_csv(const TextTable& t) {
  std::string out;
  const size_t n = t.head.size();
  for (size_t i = 0; i < n; ++i) out += (i ? "," : "") + csv_cell(t.head[i]);
  out += "\n";
  for (const auto& r : t.rows) {
    for (size_t i = 0; i < n; ++i) out += (i ? "," : "") + csv_cell(i < r.size() ? r[i] : "");
    out += "\n";
  }
  return out;
}

std::string table_markdown(const TextTable& t) {
  std::string out;
  const size_t n = t.head.size();
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

std::string table_fixed(const TextTable& t) {
  std::string out;
  const size_t n = t.head.size();
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

std::string render_text_table(const TextTable& t, std::string_view format) {
  if (format == "csv") return table_csv(t);
  if (format == "markdown") return table_markdown(t);
  return table_fixed(t);
}

std::string text_hours_of_seconds(const json& v) {
  if (!v.is_number()) return "-";
  char b[64];
  const double h = v.get<double>() / 3600.0;
  std::snprintf(b, sizeof b, h < 10 ? "%.2f" : "%.1f", h);
  return b;
}

std::string text_usd(const json& v) {
  if (!v.is_number()) return "-";
  char b[64];
  const double d = v.get<double>();
  std::snprintf(b, sizeof b, d < 100 ? "%.2f" : "%.0f", d);
  return b;
}

std::string text_gib(const json& v) {
  if (!v.is_number()) return "-";
  char b[64];
  std::snprintf(b, sizeof b, "%.2f", v.get<double>() / 1073741824.0);
  return b;
}

// Data-quality flags as one-letter codes for the table and Markdown (legend under the table; CSV has the names).
// Codes and meanings come from the core (snapshot.h, offer_flag_code), as in the UI's Flags column.
std::string text_flags(const json& flags, std::string_view format) {
  std::string out;
  for (const auto& f : flags) {
    const std::string name = f.is_string() ? f.get<std::string>() : "";
    const std::optional<OfferFlag> flag = parse_offer_flag(name);
    out += format == "csv" ? (out.empty() ? "" : " ") + name : std::string(flag ? offer_flag_code(*flag) : "?");
  }
  return out;
}

// The legend of the flag codes that appear in `doc`'s rows (empty when none does).
std::string flag_legend(const json& doc) {
  std::string out;
  for (OfferFlag flag : kAllOfferFlagBits) {
    bool used = false;
    for (const auto& r : field(doc, "rows"))
      for (const auto& f : field(r, "flags")) used = used || (f.is_string() && f.get<std::string>() == offer_flag_name(flag));
    if (used)
      out += std::string(out.empty() ? "flags: " : "; ") + offer_flag_code(flag) + " " + offer_flag_name(flag) + " (" +
             offer_flag_meaning(flag) + ")";
  }
  return out.empty() ? out : out + "\n";
}

TextTable rank_text_table(const json& doc, std::string_view format) {
  const bool dev = str(doc, "sort") == "dev_cycle";
  TextTable t{{"#", "provider", "instance", "region", "option", "GPUs", "GiB/GPU", "plan", "hours", "total $", "$ low-high",
           "$/h", "$/Mtok", "headroom", "fit", "pareto", "flags"},
          {},
          {true, false, false, false, false, false, true, false, true, true, true, true, true, true, false, false, false}};
  if (dev) {
    t.head.insert(t.head.begin() + 10, "dev-cycle $");
    t.right.insert(t.right.begin() + 10, true);
  }
  const bool csv = format == "csv";
  if (csv) {
    t.head.push_back("offer");
    t.right.push_back(false);
  }
  int i = 0;
  for (const auto& r : field(doc, "rows")) {
    ++i;
    const bool ranked = str(r, "state") == "ranked";
    std::string gpus = std::to_string(integer(r, "gpus_per_node", 0)) + "x " + str(r, "gpu");
    if (integer(r, "nodes", 1) > 1) gpus = std::to_string(integer(r, "nodes", 1)) + " nodes x " + gpus;
    char head[32];
    std::snprintf(head, sizeof head, "%.0f%%", number(r, "headroom", 0.0) * 100);
    // A marketplace row names both: the cloud that runs it and the marketplace that sells it.
    std::string seller = str(r, "provider");
    if (r.contains("via")) seller += " via " + str(r, "via");
    std::vector<std::string> row{std::to_string(i), seller, field(r, "name").is_string() ? str(r, "name") : str(r, "instance_type"),
                      str(r, "region"), str(r, "option"), gpus, text_gib(field(r, "cuda_memory_bytes")),
                      ranked ? str(r, "plan") : str(r, "state") + ": " + str(r, "why_not"),
                      text_hours_of_seconds(field(r, "wall_s")), text_usd(field(r, "total_usd")),
                      ranked ? text_usd(field(r, "total_low_usd")) + "-" + text_usd(field(r, "total_high_usd")) : "-",
                      text_usd(field(r, "price_usd_per_h")), text_usd(field(r, "usd_per_mtok")), ranked ? head : "-",
                      ranked ? str(r, "verdict") : "-", flag(r, "pareto") ? "*" : "", text_flags(field(r, "flags"), format)};
    if (dev) row.insert(row.begin() + 10, text_usd(field(r, "dev_cycle_usd")));
    if (csv) row.push_back(str(r, "offer"));
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string rank_rows_text(const json& doc, std::string_view format) {
  if (format != "markdown") return table_csv(rank_text_table(doc, "csv"));
  std::string out = table_markdown(rank_text_table(doc, format));
  const std::string legend = flag_legend(doc);
  if (!legend.empty()) out += "\n" + legend;
  return out;
}

}  // namespace trainfit
