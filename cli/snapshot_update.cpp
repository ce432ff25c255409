// trainfit CLI — publishing and updating the price snapshot: `snapshot manifest` writes the manifest of a packed
// snapshot, `snapshot update` downloads a published one and installs it only when every check passes, `snapshot
// status` says which snapshot the programs use. See snapshot_cmd.h and snapshot_store.h.
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "http_fetch.h"
#include "snapshot_cmd.h"
#include "snapshot_store.h"

namespace trainfit {
namespace {

constexpr int kOk = 0, kBadInput = 2, kRefused = 3, kUnreachable = 4;
constexpr const char* kManifestFileName = "snapshot-manifest.json";

// The snapshot the programs use now (what an update would replace): the downloaded one when it is usable, else the
// bundled one.
struct Current {
  std::string id, created, origin;
};

Current current_snapshot(const std::string& dir, std::FILE* out) {
  SnapshotLoadOptions opt;
  std::string why;
  if (std::optional<StoredFiles> f = read_stored_files(dir, &why)) {
    Result<Snapshot> s = load_stored_snapshot(*f, opt);
    if (s) return {s->id, s->created, "downloaded, in " + dir};
    why = s.error().to_string();
  }
  if (!why.empty()) std::fprintf(out, "note: the downloaded snapshot in %s is unusable (%s); comparing with the bundled one\n", dir.c_str(), why.c_str());
  Result<Snapshot> b = load_snapshot(embedded_snapshot_json(), opt, nullptr);
  if (!b) return {"", "", "bundled (invalid: " + b.error().to_string() + ")"};
  return {b->id, b->created, "bundled"};
}

int refuse(std::FILE* out, int code, const std::string& reason, const Current& cur) {
  std::fprintf(out, "update refused: %s\nkept the current snapshot: %s (%s)\n", reason.c_str(),
               cur.id.empty() ? "none" : cur.id.c_str(), cur.origin.c_str());
  return code;
}

// Downloads one file the manifest names and checks its size and SHA-256 against the entry.
int download(const std::string& manifest_url, const ManifestFile& f, std::string* bytes, const Current& cur, std::FILE* out) {
  const std::string url = url_beside(manifest_url, f.name);
  std::string why;
  if (!http_get(url, f.bytes, bytes, &why)) {
    if (why.rfind("larger than", 0) == 0)
      return refuse(out, kRefused, url + " is larger than the manifest's " + std::to_string(f.bytes) + " bytes (tampered or mismatched file)", cur);
    return refuse(out, kUnreachable, "cannot download " + url + ": " + why, cur);
  }
  if (bytes->size() != f.bytes)
    return refuse(out, kRefused, url + " is " + std::to_string(bytes->size()) + " bytes, the manifest says " + std::to_string(f.bytes) +
                                     " (truncated, tampered or mismatched file)", cur);
  const std::string got = sha256_hex(*bytes);
  if (got != f.sha256)
    return refuse(out, kRefused, url + ": SHA-256 " + got + " does not match the manifest's " + f.sha256 + " (tampered or damaged file)", cur);
  return kOk;
}

}  // namespace

int snapshot_manifest_cmd(const std::string& bin_path, const std::string& text_path, const std::string& out_path, std::FILE* out) {
  std::string bin, text;
  if (!read_whole_file(bin_path, &bin)) {
    std::fprintf(out, "error: cannot read %s\n", bin_path.c_str());
    return kBadInput;
  }
  if (!text_path.empty() && !read_whole_file(text_path, &text)) {
    std::fprintf(out, "error: cannot read %s\n", text_path.c_str());
    return kBadInput;
  }
  namespace fs = std::filesystem;
  const ManifestFile b{"snapshot", fs::path(bin_path).filename().string(), bin.size(), sha256_hex(bin)};
  const ManifestFile t{"text", text_path.empty() ? "" : fs::path(text_path).filename().string(), text.size(), sha256_hex(text)};
  for (const ManifestFile* f : {&b, &t}) {
    if (f->role == "text" && text_path.empty()) continue;
    if (!is_plain_file_name(f->name)) {
      std::fprintf(out, "error: %s: a published file name must be letters, digits, '.', '_' or '-'\n", f->name.c_str());
      return kBadInput;
    }
  }
  // The manifest describes exactly what a reader will load: the binary through the loader, its sidecar applied.
  StoredFiles files;
  files.binary = bin;
  files.text = text;
  SnapshotLoadOptions opt;
  Result<Snapshot> probe = load_snapshot_binary(bin, opt, nullptr);
  if (!probe) {
    std::fprintf(out, "%s: refused, no manifest written: %s\n", bin_path.c_str(), probe.error().to_string().c_str());
    return kRefused;
  }
  if (probe->text_left_out != !text_path.empty()) {
    std::fprintf(out, "error: %s is %s: %s\n", bin_path.c_str(), probe->text_left_out ? "lean" : "a full binary",
                 probe->text_left_out ? "give its text sidecar (--text FILE)" : "it has no text sidecar (leave --text out)");
    return kBadInput;
  }
  files.manifest = make_snapshot_manifest(*probe, b, text_path.empty() ? nullptr : &t);
  Result<Snapshot> full = load_stored_snapshot(files, opt);
  if (!full) {
    std::fprintf(out, "refused, no manifest written: %s\n", full.error().to_string().c_str());
    return kRefused;
  }
  const std::string json = snapshot_manifest_json(files.manifest);
  if (!parse_snapshot_manifest(json)) {  // the writer and the reader agree, or nothing is published
    std::fprintf(out, "error: the manifest written does not read back: %s\n", parse_snapshot_manifest(json).error().to_string().c_str());
    return kRefused;
  }
  std::string why;
  if (!write_file_atomically(out_path, json, &why)) {
    std::fprintf(out, "error: %s\n", why.c_str());
    return kBadInput;
  }
  std::fprintf(out, "wrote %s: snapshot %s, prices captured %s .. %s, %zu files\n", out_path.c_str(),
               files.manifest.snapshot_id.c_str(), files.manifest.prices_oldest.c_str(), files.manifest.prices_newest.c_str(),
               files.manifest.files.size());
  return kOk;
}

int snapshot_update_cmd(const std::string& from, const std::string& dir_arg, bool check_only, std::FILE* out) {
  std::string url = from;
  if (url.empty())
    if (const char* env = std::getenv("TRAINFIT_SNAPSHOT_URL"); env && *env) url = env;
#ifdef TRAINFIT_SNAPSHOT_URL_DEFAULT
  if (url.empty()) url = TRAINFIT_SNAPSHOT_URL_DEFAULT;
#endif
  if (url.empty()) {
    std::fprintf(out, "error: no update address: give --from URL (the published manifest, e.g. "
                      "https://SITE/updates/snapshot-manifest.json) or set TRAINFIT_SNAPSHOT_URL\n");
    return kBadInput;
  }
  if (url.back() == '/') url += kManifestFileName;
  const std::string dir = dir_arg.empty() ? default_snapshot_dir() : dir_arg;
  const Current cur = check_only ? Current{"", "", "nothing installed: --check"} : current_snapshot(dir, out);
  std::string manifest_text, why;
  if (!http_get(url, kMaxManifestBytes, &manifest_text, &why))
    return refuse(out, why.rfind("larger than", 0) == 0 ? kRefused : kUnreachable,
                  "cannot read the manifest " + url + ": " + why + " (offline or the server is unreachable?)", cur);
  Result<SnapshotManifest> parsed = parse_snapshot_manifest(manifest_text);
  if (!parsed) return refuse(out, kRefused, "bad manifest " + url + ": " + parsed.error().to_string(), cur);
  const SnapshotManifest& m = parsed.value();
  if (!check_only && m.snapshot_id == cur.id) {
    std::fprintf(out, "up to date: %s (%s) is the published snapshot\n", cur.id.c_str(), cur.origin.c_str());
    return kOk;
  }
  if (!cur.created.empty() && m.created < cur.created)
    return refuse(out, kRefused, "the published snapshot " + m.snapshot_id + " (built " + m.created + ") is older than the current " +
                                     cur.id + " (built " + cur.created + ")", cur);
  StoredFiles files;
  files.manifest = m;
  for (const ManifestFile& f : m.files)
    if (const int rc = download(url, f, f.role == "text" ? &files.text : &files.binary, cur, out); rc != kOk) return rc;
  SnapshotLoadOptions opt;
  opt.today = today_utc();
  Result<Snapshot> s = load_stored_snapshot(files, opt);
  if (!s) return refuse(out, kRefused, "the downloaded snapshot does not load: " + s.error().to_string(), cur);
  if (s->created != m.created)
    return refuse(out, kRefused, "the binary was built " + s->created + ", the manifest says " + m.created, cur);
  if (check_only) {
    std::fprintf(out, "checked: %s (built %s; %zu offers, prices captured %s) passes every check; nothing installed\n",
                 s->id.c_str(), s->created.c_str(), s->offers.size(), price_dates_text(price_dates(*s)).c_str());
    return kOk;
  }
  if (!install_stored_files(dir, manifest_text, m, files.binary, files.text, &why))
    return refuse(out, kBadInput, why, cur);
  const PriceDates dates = price_dates(*s);
  std::fprintf(out, "updated: %s -> %s (built %s; %zu offers, prices captured %s)\nstored in %s; trainfit and trainfit-desktop now use it\n",
               cur.id.empty() ? "none" : cur.id.c_str(), s->id.c_str(), s->created.c_str(), s->offers.size(),
               price_dates_text(dates).c_str(), dir.c_str());
  return kOk;
}

int snapshot_status_cmd(const std::string& dir_arg, std::FILE* out) {
  const std::string dir = dir_arg.empty() ? default_snapshot_dir() : dir_arg;
  std::string why;
  SnapshotLoadOptions opt;
  opt.today = today_utc();
  if (std::optional<StoredFiles> f = read_stored_files(dir, &why)) {
    Result<Snapshot> s = load_stored_snapshot(*f, opt);
    if (s) {
      std::fprintf(out, "in use: downloaded snapshot %s (built %s) from %s\nprices captured %s\n", s->id.c_str(), s->created.c_str(),
                   dir.c_str(), price_dates_text(price_dates(*s)).c_str());
      std::fprintf(out, "bundled: %s (used with --snapshot or when the downloaded one is removed)\n",
                   load_snapshot(embedded_snapshot_json(), opt, nullptr).value().id.c_str());
      return kOk;
    }
    why = s.error().to_string();
  }
  if (!why.empty()) std::fprintf(out, "the downloaded snapshot in %s is unusable: %s\n", dir.c_str(), why.c_str());
  else std::fprintf(out, "no downloaded snapshot in %s (`trainfit snapshot update` fetches one)\n", dir.c_str());
  Result<Snapshot> b = load_snapshot(embedded_snapshot_json(), opt, nullptr);
  if (!b) {
    std::fprintf(out, "the bundled snapshot is invalid: %s\n", b.error().to_string().c_str());
    return kRefused;
  }
  std::fprintf(out, "in use: bundled snapshot %s (built %s)\nprices captured %s\n", b->id.c_str(), b->created.c_str(),
               price_dates_text(price_dates(*b)).c_str());
  return kOk;
}

}  // namespace trainfit
