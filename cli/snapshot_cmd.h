// trainfit CLI — `trainfit snapshot validate|info|import|pack|manifest|update|status`: file-reading wrappers around the core snapshot
// loader and importer. Exit codes: 0 ok, 2 bad input (unreadable file, bad argument), 3 bad snapshot
// (refused by the validator, or an import that would not validate; the previous output file is kept).
#pragma once
#include <cstdio>
#include <string>

namespace trainfit {

// format: "text" (default) or "json" ({"ok":..,"errors":[..],"warnings":[..]}).
// Today's date (UTC, YYYY-MM-DD), or the TRAINFIT_TODAY environment variable when it holds a valid date.
std::string today_utc();

int snapshot_validate_cmd(const std::string& path, const std::string& format, std::FILE* out);
// Snapshot id, age, per-provider capture date and age, offer/region counts, flag counts.
int snapshot_info_cmd(const std::string& path, std::FILE* out);
// Rebuild the snapshot from a SkyPilot catalog checkout (catalog_dir) and data/inputs (inputs_dir).
int snapshot_import_cmd(const std::string& catalog_dir, const std::string& inputs_dir, const std::string& out_path,
                        std::FILE* out);

// The compact binary form of a snapshot JSON (snapshot.h, pack_snapshot). With lean_text_path: the lean binary
// and its text sidecar (pack_snapshot_lean), e.g. data/snapshot.bin and data/snapshot-text.json for the page.
int snapshot_pack_cmd(const std::string& json_path, const std::string& out_path, const std::string& lean_text_path,
                      std::FILE* out);

// ---- publishing and updating (snapshot_update.cpp; docs/snapshot.md, "Publishing and updating") ----
// The manifest of a packed snapshot (core manifest.h): id, build date, formats, capture dates, each file's size and
// SHA-256. Written only when the binary loads and its sidecar applies. Byte-stable.
int snapshot_manifest_cmd(const std::string& bin_path, const std::string& text_path, const std::string& out_path,
                          std::FILE* out);
// Downloads the published snapshot named by the manifest at `from` (else $TRAINFIT_SNAPSHOT_URL) into `dir` (else
// default_snapshot_dir()), installing it only when the manifest reads, each file's size and SHA-256 match, the
// binary loads with the manifest's id and it is not older than the current snapshot. Exit codes: 0 updated or
// already current, 2 bad argument, 3 refused (bad manifest, tampered file, wrong id, older), 4 unreachable.
// check_only: every check on the download, none against the current snapshot, nothing installed (the publishing
// job's gate, scripts/check-published-snapshot).
int snapshot_update_cmd(const std::string& from, const std::string& dir, bool check_only, std::FILE* out);
// Which snapshot the CLI and the desktop app use now: the downloaded one in `dir`, or the bundled one.
int snapshot_status_cmd(const std::string& dir, std::FILE* out);

}  // namespace trainfit
