// trainfit core — SkyPilot catalog -> snapshot importer. See importer.h for the rules and docs/snapshot.md.
// The importer builds a snapshot document and then runs it through the same strict loader users run
// (load_snapshot_report), so an import can never publish something `snapshot validate` would refuse.
// This file: the CSV reader and the glob the family rules use, the list of catalog files, and import_snapshot's
// steps; importer_inputs.cpp, importer_catalog.cpp and importer_offers.cpp hold the rest (importer_internal.h).
#include "trainfit/storage/importer.h"

#include "storage/importer_internal.h"
#include "storage/snapshot_internal.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace trainfit {

Result<std::vector<std::vector<std::string>>> parse_csv(std::string_view text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool in_q = false, field_started = false;
  int line = 1, quote_line = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_q) {
      if (ch == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') { field += '"'; ++i; }
        else in_q = false;
      } else {
        if (ch == '\n') ++line;
        field += ch;
      }
      continue;
    }
    if (ch == '"' && field.empty()) { in_q = true; quote_line = line; field_started = true; }
    else if (ch == ',') { row.push_back(std::move(field)); field.clear(); field_started = true; }
    else if (ch == '\r') {}
    else if (ch == '\n') {
      ++line;
      if (field_started || !field.empty() || !row.empty()) { row.push_back(std::move(field)); rows.push_back(std::move(row)); }
      row.clear(); field.clear(); field_started = false;
    } else { field += ch; field_started = true; }
  }
  if (in_q) return Error{"line " + std::to_string(quote_line), "unterminated quoted field"};
  if (field_started || !field.empty() || !row.empty()) { row.push_back(std::move(field)); rows.push_back(std::move(row)); }
  return rows;
}

bool glob_match(std::string_view p, std::string_view s) {
  // Iterative wildcard match with single-star backtracking: linear-ish, no recursion.
  size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '*') { star = pi++; mark = si; }
    else if (pi < p.size() && p[pi] == s[si]) { ++pi; ++si; }
    else if (star != std::string_view::npos) { pi = star + 1; si = ++mark; }
    else return false;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

Result<std::vector<CatalogRef>> list_catalog_files(std::string_view providers_json) {
  try {
    auto j = detail::importer::parse_json_input(std::string(providers_json), "providers.json");
    if (!j) return j.error();
    std::vector<CatalogRef> out;
    const auto& ps = j.value()["providers"];
    if (!ps.is_array()) return Error{"providers.json/providers", "expected an array"};
    for (size_t i = 0; i < ps.size(); ++i) {
      const auto& p = ps[i];
      const std::string ptr = "providers.json/providers/" + std::to_string(i);
      if (!p.is_object() || !p.contains("id") || !p["id"].is_string() || !p.contains("catalog") || !p["catalog"].is_array())
        return Error{ptr, "each provider needs a string id and a catalog array"};
      for (const auto& c : p["catalog"]) {
        if (!c.is_object() || !c.contains("role") || !c.contains("path") || !c["role"].is_string() || !c["path"].is_string())
          return Error{ptr + "/catalog", "each catalog entry needs string role and path"};
        const std::string role = c["role"].get<std::string>(), path = c["path"].get<std::string>();
        if (role != "vms" && role != "gcp_host" && role != "gcp_accel")
          return Error{ptr + "/catalog", "role must be vms, gcp_host or gcp_accel"};
        if (path.empty() || path.find("..") != std::string::npos || path[0] == '/')
          return Error{ptr + "/catalog", "path must be relative to the catalog root, without .."};
        if (c.contains("optional") && !c["optional"].is_boolean())
          return Error{ptr + "/catalog/optional", "expected true or false"};
        out.push_back({p["id"].get<std::string>(), role, path, c.value("optional", false)});
      }
    }
    return out;
  } catch (const std::exception& e) {
    return Error{"providers.json", e.what()};
  }
}

namespace detail::importer {
namespace {

uint32_t fnv1a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) { h ^= c; h *= 16777619u; }
  return h;
}

// The three curated inputs every import reads: gpus.json, providers.json, instance_families.json.
struct Curated {
  ojson gpus, providers, families;
};

// The curated inputs parsed, with the arrays and the creation date the import needs.
Result<Curated> parse_curated(const ImportInputs& in) {
  auto gj = parse_json_input(in.gpus_json, "gpus.json");
  if (!gj) return gj.error();
  auto pj = parse_json_input(in.providers_json, "providers.json");
  if (!pj) return pj.error();
  auto fj = parse_json_input(in.families_json, "instance_families.json");
  if (!fj) return fj.error();
  const ojson& G = gj.value();
  const ojson& P = pj.value();
  const ojson& F = fj.value();
  if (!G.contains("gpus") || !G["gpus"].is_array()) return Error{"gpus.json/gpus", "expected an array"};
  if (!P.contains("providers") || !P["providers"].is_array()) return Error{"providers.json/providers", "expected an array"};
  if (!F.contains("families") || !F["families"].is_array()) return Error{"instance_families.json/families", "expected an array"};
  if (!P.contains("snapshot") || !P["snapshot"].is_object() || !P["snapshot"].contains("created"))
    return Error{"providers.json/snapshot/created", "missing: the snapshot's creation date (kept in the inputs so the import is deterministic)"};
  for (const auto& g : G["gpus"])
    if (!g.is_object()) return Error{"gpus.json/gpus", "each GPU must be an object"};
  return Curated{std::move(gj).value(), std::move(pj).value(), std::move(fj).value()};
}

// Every provider's catalog tables, in providers.json order: its vms table, then its GCP host + accelerator tables.
Result<bool> read_catalogs(ImportCtx& x, const ojson& P, const std::map<std::string, Table>& tables) {
  for (size_t pi = 0; pi < P["providers"].size(); ++pi) {
    const ojson& p = P["providers"][pi];
    const std::string prov = p.value("id", "");
    const std::string ptr = "providers.json/providers/" + std::to_string(pi);
    if (auto it = tables.find(prov + "|vms"); it != tables.end()) {
      ojson entry = ojson::object();
      if (p.contains("catalog") && p["catalog"].is_array())
        for (const auto& c : p["catalog"])
          if (c.is_object() && c.value("role", "") == "vms") entry = c;
      auto opt = catalog_options(p, entry, ptr);
      if (!opt) return opt.error();
      auto ok = read_vms(x, prov, it->second, opt.value());
      if (!ok) return ok.error();
    }
    auto ht = tables.find(prov + "|gcp_host");
    auto at = tables.find(prov + "|gcp_accel");
    if (ht != tables.end() || at != tables.end()) {
      if (ht == tables.end() || at == tables.end())
        return Error{prov, "a GCP-style provider needs both gcp_host and gcp_accel catalog files"};
      read_gcp(x, prov, ht->second, at->second);
    }
  }
  return true;
}

// The snapshot document as imported, its id "pending" until validate_and_name names it.
ojson snapshot_document(const ojson& P, const ojson& kept_gpus, const ojson& providers, const ojson& rows,
                        ojson reservations) {
  ojson cols = ojson::array();
  for (const char* c : detail::kColNames) cols.push_back(c);
  ojson doc;
  doc["schema_version"] = kSnapshotSchemaVersion;
  doc["id"] = "pending";
  doc["created"] = P["snapshot"]["created"];
  doc["currency"] = "USD";
  doc["sources"] = P.contains("sources") ? P["sources"] : ojson::array();
  doc["gpus"] = kept_gpus;
  doc["providers"] = providers;
  doc["offers"] = {{"columns", cols}, {"rows", rows}};
  if (!reservations.empty()) doc["reservations"] = std::move(reservations);
  return doc;
}

// The document through the strict loader users run; on success `res` gets the snapshot, its bytes and its id.
Result<bool> validate_and_name(const std::string& text, const ojson& P, ImportResult& res) {
  SnapshotLoadOptions opt;
  auto snap = load_snapshot_report(text, opt, &res.report);
  if (!snap) {
    const auto& e = res.report.errors;
    return Error{e.empty() ? "" : e.front().field,
                 "the imported snapshot does not validate: " + (e.empty() ? std::string("?") : e.front().message) +
                     (e.size() > 1 ? " (and " + std::to_string(e.size() - 1) + " more)" : "")};
  }
  // The id names the creation date and a hash of the content, so two different imports never share one.
  Snapshot s = std::move(*snap);
  // Stored flags are the importer's own (unverified price, spec incomplete); derived ones are recomputed
  // by every loader, so they are not written to the file.
  Snapshot out = s;
  for (auto& o : out.offers) o.flags &= (kFlagUnverifiedPrice | kFlagSpecIncomplete);
  out.id = "";
  char hash[16];
  std::snprintf(hash, sizeof hash, "%08x", fnv1a(snapshot_to_json(out)));
  const std::string prefix = P["snapshot"].value("id_prefix", std::string("trainfit"));
  s.id = out.id = prefix + "-" + s.created + "-" + hash;
  res.json = snapshot_to_json(out);
  res.snapshot = std::move(s);
  return true;
}

}  // namespace
}  // namespace detail::importer

Result<ImportResult> import_snapshot(const ImportInputs& in) {
  using namespace detail::importer;
  try {
    auto curated = parse_curated(in);
    if (!curated) return curated.error();
    const ojson& G = curated.value().gpus;
    const ojson& P = curated.value().providers;
    const ojson& F = curated.value().families;

    std::map<std::string, double> gpu_mem;
    const ojson gpus = snapshot_gpus(G, &gpu_mem);
    auto fams = read_families(F, gpu_mem);
    if (!fams) return fams.error();
    auto tables = read_tables(in);
    if (!tables) return tables.error();

    std::set<std::string> provider_ids;
    for (const auto& p : P["providers"]) provider_ids.insert(p.value("id", ""));
    ImportResult res;
    Notes notes;
    Groups groups;
    ImportCtx x{fams.value(), gpu_mem, provider_ids, groups, notes, res};
    auto read = read_catalogs(x, P, tables.value());
    if (!read) return read.error();

    std::map<std::string, std::string> capture;
    const ojson providers = providers_with_offers(P, groups, notes, capture);
    const ojson kept_gpus = gpus_with_offers(gpus, groups, notes);
    const ojson rows = offer_rows(groups, capture);
    auto reservations = read_reservations(in.reservations_json, rows, notes);
    if (!reservations) return reservations.error();
    const ojson doc = snapshot_document(P, kept_gpus, providers, rows, std::move(reservations).value());

    const std::string text = doc.dump(-1, ' ', false, ojson::error_handler_t::replace);
    auto named = validate_and_name(text, P, res);
    if (!named) return named.error();
    res.notes = notes.take();
    return res;
  } catch (const std::exception& e) {
    return Error{"import", std::string("internal error: ") + e.what()};
  }
}

}  // namespace trainfit
