// trainfit CLI — snapshot subcommands (see snapshot_cmd.h). Not core: reads and writes files.
#include "snapshot_cmd.h"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "trainfit/engine.h"

namespace trainfit {
namespace {

bool read_file(const std::string& path, std::string* text) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *text = ss.str();
  return static_cast<bool>(f) || f.eof();
}

// Writes next to the target, then renames: a failed write never leaves a half file behind. Says why on `out`.
bool write_file_atomically(const std::string& path, const std::string& bytes, std::FILE* out) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << bytes;
    if (!f) {
      std::fprintf(out, "error: cannot write %s\n", tmp.c_str());
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::fprintf(out, "error: cannot replace %s: %s\n", path.c_str(), ec.message().c_str());
    return false;
  }
  return true;
}

}  // namespace

// Today's date (UTC), or TRAINFIT_TODAY when set (YYYY-MM-DD): golden tests pin the date so ages and stale
// flags do not change from one day to the next.
std::string today_utc() {
  if (const char* pinned = std::getenv("TRAINFIT_TODAY"); pinned && days_between(pinned, pinned)) return pinned;
  return utc_date_today();
}


int snapshot_validate_cmd(const std::string& path, const std::string& format, std::FILE* out) {
  if (format != "text" && format != "table" && format != "json" && !format.empty()) {  // "table": the CLI default
    std::fprintf(out, "error: --format must be text or json\n");
    return 2;
  }
  std::string text;
  if (!read_file(path, &text)) {
    std::fprintf(out, "error: cannot read %s\n", path.c_str());
    return 2;
  }
  SnapshotLoadOptions opt;
  opt.today = today_utc();
  SnapshotReport r;
  auto s = load_snapshot_report(text, opt, &r);
  if (format == "json") {
    nlohmann::ordered_json j;
    j["ok"] = s.has_value();
    j["file"] = path;
    j["errors"] = nlohmann::ordered_json::array();
    for (const auto& e : r.errors) j["errors"].push_back({{"pointer", e.field}, {"message", e.message}});
    j["errors_not_listed"] = r.errors_dropped;
    j["warnings"] = nlohmann::ordered_json::array();
    for (const auto& w : r.warnings)
      j["warnings"].push_back({{"pointer", w.field}, {"code", w.code}, {"message", w.message}});
    std::fprintf(out, "%s\n", j.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
  } else {
    for (const auto& e : r.errors) std::fprintf(out, "error %s: %s\n", e.field.empty() ? "(document)" : e.field.c_str(), e.message.c_str());
    if (r.errors_dropped) std::fprintf(out, "... and %d more errors\n", r.errors_dropped);
    std::map<std::string, int> by_code;
    for (const auto& w : r.warnings) {
      std::fprintf(out, "warning %s [%s]: %s\n", w.field.c_str(), w.code.c_str(), w.message.c_str());
      ++by_code[w.code];
    }
    if (s) {
      std::fprintf(out, "%s: valid snapshot %s (%zu GPUs, %zu providers, %zu offers)\n", path.c_str(), s->id.c_str(),
                   s->gpus.size(), s->providers.size(), s->offers.size());
    } else {
      std::fprintf(out, "%s: REFUSED, %zu errors\n", path.c_str(), r.errors.size() + static_cast<size_t>(r.errors_dropped));
    }
    for (const auto& [code, n] : by_code) std::fprintf(out, "  %d x %s\n", n, code.c_str());
  }
  return s ? 0 : 3;
}

int snapshot_info_cmd(const std::string& path, std::FILE* out) {
  std::string text;
  if (!read_file(path, &text)) {
    std::fprintf(out, "error: cannot read %s\n", path.c_str());
    return 2;
  }
  SnapshotLoadOptions opt;
  opt.today = today_utc();
  SnapshotReport r;
  auto s = load_snapshot_report(text, opt, &r);
  if (!s) {
    std::fprintf(out, "%s: refused (%zu errors); run `trainfit snapshot validate %s`\n", path.c_str(),
                 r.errors.size() + static_cast<size_t>(r.errors_dropped), path.c_str());
    return 3;
  }
  const auto age = days_between(s->created, opt.today);
  std::fprintf(out, "snapshot %s\ncreated %s (%d days ago), schema %d, %s\n", s->id.c_str(), s->created.c_str(),
               age.value_or(0), s->schema_version, s->currency.c_str());
  std::fprintf(out, "%zu GPUs, %zu providers, %zu offers\n\n", s->gpus.size(), s->providers.size(), s->offers.size());
  // offers: the offers a provider runs (sold directly or through a marketplace); sells: the offers of other
  // providers it sells as a marketplace (Offer::via).
  std::fprintf(out, "%-14s %-12s %5s %7s %6s %8s  %-7s  %s\n", "provider", "captured", "age_d", "offers", "sells",
               "regions", "flagged", "access (how a new account gets it)");
  for (size_t p = 0; p < s->providers.size(); ++p) {
    const auto& pr = s->providers[p];
    int n = 0, sells = 0, flagged = 0;
    std::set<std::string> regions;
    for (const auto& o : s->offers) {
      if (o.via == static_cast<int>(p)) ++sells;
      if (o.provider == static_cast<int>(p)) {
        ++n;
        regions.insert(o.region);
        if (o.flags) ++flagged;
      }
    }
    std::fprintf(out, "%-14s %-12s %5d %7d %6d %8zu  %-7d  %s%s%s\n", pr.id.c_str(), pr.capture_date.c_str(),
                 days_between(pr.capture_date, opt.today).value_or(0), n, sells, regions.size(), flagged,
                 access_label(pr.access.how), pr.access.quota.empty() ? "" : (" (" + pr.access.quota + ")").c_str(),
                 pr.access_exceptions.empty()
                     ? ""
                     : ("; other rules for " + std::to_string(pr.access_exceptions.size()) + " instance families").c_str());
  }
  std::map<std::string, int> flags;
  for (const auto& o : s->offers)
    for (const auto& f : offer_flag_names(o.flags)) ++flags[f];
  std::fprintf(out, "\noffer flags:");
  if (flags.empty()) std::fprintf(out, " none");
  for (const auto& [f, n] : flags) std::fprintf(out, " %s=%d", f.c_str(), n);
  std::fprintf(out, "\n");
  const PriceDates dates = price_dates(*s);
  // The offers' own capture dates, oldest first, with the providers (the seller of a resold row) carrying each.
  std::fprintf(out, "prices captured (oldest first): %s\n", price_dates_text(dates).c_str());
  // Reserved capacity: each booking product, the offers it prices, its terms, date and source.
  for (size_t r = 0; r < s->reservations.size(); ++r) {
    const Reservation& rv = s->reservations[r];
    int priced = 0;
    for (const auto& o : s->offers) priced += o.reservation == static_cast<int>(r);
    std::fprintf(out, "reserved capacity: %s (%s, %s): %d offers priced, prices of %s; %s\n  source: %s\n",
                 rv.id.c_str(), rv.name.c_str(), rv.provider.c_str(), priced, rv.capture_date.c_str(),
                 reservation_terms_text(rv).c_str(), rv.source.c_str());
  }
  if (dates.stale)
    std::fprintf(out, "WARNING: prices captured over %.0f days ago are stale; refresh them with %s\n",
                 s->stale_after_days, kRefreshPricesCommand);
  return 0;
}

int snapshot_import_cmd(const std::string& catalog_dir, const std::string& inputs_dir, const std::string& out_path,
                        std::FILE* out) {
  namespace fs = std::filesystem;
  ImportInputs in;
  const std::pair<const char*, std::string*> files[] = {{"gpus.json", &in.gpus_json},
                                                        {"providers.json", &in.providers_json},
                                                        {"instance_families.json", &in.families_json}};
  for (const auto& [name, dst] : files) {
    const std::string p = (fs::path(inputs_dir) / name).string();
    if (!read_file(p, dst)) {
      std::fprintf(out, "error: cannot read %s\n", p.c_str());
      return 2;
    }
  }
  // Optional: booking products (reserved capacity). Absent = the snapshot has none.
  if (const std::string p = (fs::path(inputs_dir) / "reservations.json").string(); fs::exists(p) && !read_file(p, &in.reservations_json)) {
    std::fprintf(out, "error: cannot read %s\n", p.c_str());
    return 2;
  }
  auto refs = list_catalog_files(in.providers_json);
  if (!refs) {
    std::fprintf(out, "error: %s\n", refs.error().to_string().c_str());
    return 2;
  }
  for (const auto& ref : refs.value()) {
    const std::string p = (fs::path(catalog_dir) / ref.path).string();
    CatalogText ct{ref, {}};
    if (!read_file(p, &ct.text)) {
      if (ref.optional) {  // an extract not made yet: the provider is left out of the snapshot, not an error
        std::fprintf(out, "note %s/* [optional_catalog_missing]: %s not found; no offers from it\n", ref.provider.c_str(),
                     p.c_str());
        continue;
      }
      std::fprintf(out, "error: cannot read catalog file %s (provider %s)\n", p.c_str(), ref.provider.c_str());
      return 2;
    }
    in.catalogs.push_back(std::move(ct));
  }
  auto res = import_snapshot(in);
  if (!res) {
    std::fprintf(out, "import failed, %s kept unchanged: %s\n", out_path.c_str(), res.error().to_string().c_str());
    return 3;
  }
  const auto& r = res.value();
  for (const auto& n : r.notes) std::fprintf(out, "note %s [%s]: %s\n", n.field.c_str(), n.code.c_str(), n.message.c_str());
  if (!write_file_atomically(out_path, r.json, out)) return 2;
  std::map<std::string, int> by_code;
  for (const auto& w : r.report.warnings) ++by_code[w.code];
  std::fprintf(out, "wrote %s: %s, %zu GPUs, %zu providers, %zu offers from %d of %d catalog rows (%zu bytes)\n",
               out_path.c_str(), r.snapshot.id.c_str(), r.snapshot.gpus.size(), r.snapshot.providers.size(),
               r.snapshot.offers.size(), r.rows_used, r.rows_read, r.json.size());
  for (const auto& [code, n] : by_code) std::fprintf(out, "  warning %d x %s\n", n, code.c_str());
  return 0;
}

int snapshot_pack_cmd(const std::string& json_path, const std::string& out_path, const std::string& lean_text_path,
                      std::FILE* out) {
  std::string text;
  if (!read_file(json_path, &text)) {
    std::fprintf(out, "error: cannot read %s\n", json_path.c_str());
    return 2;
  }
  // --lean TEXT: the binary without the long text fields, and the sidecar that holds them (snapshot.h, LeanPack).
  LeanPack packed;
  if (lean_text_path.empty()) {
    Result<std::string> full = pack_snapshot(text);
    if (full) packed.binary = std::move(full.value());
    else {
      std::fprintf(out, "%s: refused, %s kept unchanged: %s\n", json_path.c_str(), out_path.c_str(), full.error().to_string().c_str());
      return 3;
    }
  } else {
    Result<LeanPack> lean = pack_snapshot_lean(text);
    if (lean) packed = std::move(lean.value());
    else {
      std::fprintf(out, "%s: refused, %s and %s kept unchanged: %s\n", json_path.c_str(), out_path.c_str(),
                   lean_text_path.c_str(), lean.error().to_string().c_str());
      return 3;
    }
  }
  if (!write_file_atomically(out_path, packed.binary, out)) return 2;
  std::fprintf(out, "wrote %s: %zu bytes from %s (%zu bytes)%s\n", out_path.c_str(), packed.binary.size(),
               json_path.c_str(), text.size(), lean_text_path.empty() ? "" : ", text left out");
  if (lean_text_path.empty()) return 0;
  if (!write_file_atomically(lean_text_path, packed.text_json, out)) return 2;
  std::fprintf(out, "wrote %s: %zu bytes of text\n", lean_text_path.c_str(), packed.text_json.size());
  return 0;
}

}  // namespace trainfit
