// trainfit — the downloaded snapshot kept on this machine (native programs only: the CLI and the desktop app).
// `trainfit snapshot update` stores a published snapshot in the data folder; both programs then read it in
// preference to the snapshot compiled into them, and say so.
//
// The folder: --dir, else $TRAINFIT_DATA_DIR, else $XDG_DATA_HOME/trainfit, else ~/.local/share/trainfit. It holds
//   snapshot-manifest.json                the published manifest, byte for byte (core manifest.h)
//   snapshot-<first 16 hex of sha256>.bin and snapshot-text-<...>.json   the files it names, stored by hash
// The manifest is written last, by a rename: it is the commit point, so a reader sees the old set or the new one,
// never a mix, and an update that fails half way leaves the current snapshot as it was.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "trainfit/engine.h"

namespace trainfit {

// The folder described above (without --dir).
std::string default_snapshot_dir();

// Lowercase hex SHA-256 of `bytes` (OpenSSL libcrypto).
std::string sha256_hex(std::string_view bytes);

// Where a manifest's file is stored in the folder.
std::string stored_file_name(const ManifestFile& f);

// The stored snapshot's files, read and checked against the stored manifest (sizes and SHA-256).
struct StoredFiles {
  std::string dir;
  std::string manifest_text;
  SnapshotManifest manifest;
  std::string binary, text;  // text empty when the binary is full
};
// nullopt when the folder holds no manifest (`why` empty) or when what it holds is unusable (`why` says why).
std::optional<StoredFiles> read_stored_files(const std::string& dir, std::string* why);

// Loads stored files with the core's loader: the binary, its id against the manifest's, the sidecar applied.
Result<Snapshot> load_stored_snapshot(const StoredFiles& files, const SnapshotLoadOptions& opt);

// Installs checked files as the folder's current snapshot (the files first, the manifest last by a rename), then
// removes the files the previous manifest named. On failure returns false with `why`; the current snapshot stays.
bool install_stored_files(const std::string& dir, const std::string& manifest_text, const SnapshotManifest& m,
                          const std::string& binary, const std::string& text, std::string* why);

// Writes `bytes` next to `path` and renames it into place (a failed write leaves no half file).
bool write_file_atomically(const std::string& path, std::string_view bytes, std::string* why);

bool read_whole_file(const std::string& path, std::string* out);

}  // namespace trainfit
