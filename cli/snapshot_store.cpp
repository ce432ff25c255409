// trainfit — the downloaded snapshot's folder (snapshot_store.h). Native only: files and OpenSSL.
#include "snapshot_store.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace trainfit {
namespace fs = std::filesystem;

namespace {
constexpr const char* kManifestName = "snapshot-manifest.json";
}  // namespace

std::string default_snapshot_dir() {
  if (const char* d = std::getenv("TRAINFIT_DATA_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return (fs::path(x) / "trainfit").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : ".") / ".local" / "share" / "trainfit").string();
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md, &n, EVP_sha256(), nullptr) != 1) return "";
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

std::string stored_file_name(const ManifestFile& f) {
  return (f.role == "text" ? "snapshot-text-" : "snapshot-") + f.sha256.substr(0, 16) + (f.role == "text" ? ".json" : ".bin");
}

bool read_whole_file(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return !f.bad();
}

bool write_file_atomically(const std::string& path, std::string_view bytes, std::string* why) {
  const std::string tmp = path + ".tmp" + std::to_string(static_cast<long>(getpid()));
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.flush();
    if (!f) {
      *why = "cannot write " + tmp;
      std::error_code ec;
      fs::remove(tmp, ec);
      return false;
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    *why = "cannot replace " + path + ": " + ec.message();
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

std::optional<StoredFiles> read_stored_files(const std::string& dir, std::string* why) {
  why->clear();
  StoredFiles s;
  s.dir = dir;
  const std::string mpath = (fs::path(dir) / kManifestName).string();
  std::error_code ec;
  if (!fs::exists(mpath, ec)) return std::nullopt;
  if (!read_whole_file(mpath, &s.manifest_text)) {
    *why = "cannot read " + mpath;
    return std::nullopt;
  }
  Result<SnapshotManifest> m = parse_snapshot_manifest(s.manifest_text);
  if (!m) {
    *why = mpath + ": " + m.error().to_string();
    return std::nullopt;
  }
  s.manifest = std::move(m).value();
  for (const ManifestFile& f : s.manifest.files) {
    const std::string p = (fs::path(dir) / stored_file_name(f)).string();
    std::string& dst = f.role == "text" ? s.text : s.binary;
    if (!read_whole_file(p, &dst)) {
      *why = "cannot read " + p + " (named by " + mpath + ")";
      return std::nullopt;
    }
    if (dst.size() != f.bytes || sha256_hex(dst) != f.sha256) {
      *why = p + " does not match its manifest (size or SHA-256 differs: the file was changed or damaged)";
      return std::nullopt;
    }
  }
  return s;
}

Result<Snapshot> load_stored_snapshot(const StoredFiles& files, const SnapshotLoadOptions& opt) {
  Result<Snapshot> s = load_snapshot_binary(files.binary, opt, nullptr);
  if (!s) return Error{files.manifest.file("snapshot")->name, s.error().to_string()};
  Snapshot snap = std::move(s).value();
  if (snap.id != files.manifest.snapshot_id)
    return Error{"/snapshot_id", "the manifest names \"" + files.manifest.snapshot_id + "\", the binary holds \"" + snap.id + "\""};
  if (snap.text_left_out && files.text.empty()) return Error{"/files", "the binary is lean and its text sidecar is missing"};
  if (snap.text_left_out) {
    Result<size_t> applied = apply_snapshot_text(snap, files.text);
    if (!applied) return Error{files.manifest.file("text")->name, applied.error().to_string()};
  }
  return snap;
}

bool install_stored_files(const std::string& dir, const std::string& manifest_text, const SnapshotManifest& m,
                          const std::string& binary, const std::string& text, std::string* why) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    *why = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  std::string old_why;
  const std::optional<StoredFiles> old = read_stored_files(dir, &old_why);
  for (const ManifestFile& f : m.files)
    if (!write_file_atomically((fs::path(dir) / stored_file_name(f)).string(), f.role == "text" ? text : binary, why))
      return false;
  if (!write_file_atomically((fs::path(dir) / kManifestName).string(), manifest_text, why)) return false;
  // The previous snapshot's files, unless the new manifest names the same bytes.
  if (old) {
    for (const ManifestFile& f : old->manifest.files) {
      bool kept = false;
      for (const ManifestFile& g : m.files) kept = kept || stored_file_name(g) == stored_file_name(f);
      if (!kept) fs::remove(fs::path(dir) / stored_file_name(f), ec);
    }
  }
  return true;
}

}  // namespace trainfit
