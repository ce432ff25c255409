// trainfit core — the manifest of a published snapshot (docs/snapshot.md, "Publishing and updating"): written next to
// the binary snapshot and its text sidecar, read by `trainfit snapshot update` and the web page before they download
// either. It names the snapshot (id, build date, formats), when its prices were captured, and each file with its
// size and SHA-256, so a reader can refuse a damaged, tampered or mismatched download before loading it.
// Pure text in, text out: the core neither fetches nor hashes (the CLI hashes with OpenSSL, the page with
// crypto.subtle).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trainfit/base/common.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {

inline constexpr const char* kManifestFormat = "trainfit-snapshot-manifest";
inline constexpr int kManifestVersion = 1;
inline constexpr uint64_t kMaxManifestBytes = 1ull << 20;           // a manifest is ~2 KB
inline constexpr uint64_t kMaxPublishedFileBytes = 64ull << 20;      // the page's and the CLI's snapshot limit

struct ManifestFile {
  std::string role;    // "snapshot" (the binary form) or "text" (its text sidecar)
  std::string name;    // a plain file name, read relative to the manifest's address (no folder, no "..")
  uint64_t bytes = 0;
  std::string sha256;  // 64 lowercase hex digits
  bool operator==(const ManifestFile&) const = default;
};

// The capture dates of one provider's prices, as the snapshot's offers carry them (price_dates: a marketplace row
// counts for the marketplace that sells it).
struct ManifestProviderDates {
  std::string provider;
  std::string oldest, newest;
  bool operator==(const ManifestProviderDates&) const = default;
};

struct SnapshotManifest {
  int version = kManifestVersion;
  std::string snapshot_id;
  std::string created;          // the snapshot's build date (ISO)
  int schema_version = 0;       // Snapshot::schema_version
  int binary_version = 0;       // the binary form's format (kSnapshotBinaryVersion)
  bool lean = false;            // the binary leaves its long text to the sidecar
  std::string prices_oldest, prices_newest;
  std::vector<ManifestProviderDates> providers;  // in the snapshot's provider order
  std::vector<ManifestFile> files;               // "snapshot" first, then "text" when lean
  bool operator==(const SnapshotManifest&) const = default;
  const ManifestFile* file(std::string_view role) const;
};

// The manifest of `s` (loaded from `binary`, with its sidecar applied when lean) for the given files; the hashes are
// the caller's (hex SHA-256 of each file's bytes).
SnapshotManifest make_snapshot_manifest(const Snapshot& s, const ManifestFile& binary, const ManifestFile* text);

// Deterministic JSON (same manifest, same bytes), ending in a newline.
std::string snapshot_manifest_json(const SnapshotManifest& m);

// Reads an untrusted manifest: every field checked (format, version, id, dates, file names, sizes, hashes); the
// error names the field ("/files/0/sha256: must be 64 lowercase hex digits"). Unknown fields are refused.
Result<SnapshotManifest> parse_snapshot_manifest(std::string_view json_text);

// A file name a manifest may name: 1-100 characters of [A-Za-z0-9._-], not starting with '.'.
bool is_plain_file_name(std::string_view name);

}  // namespace trainfit
