// libFuzzer target: the published snapshot's manifest reader (parse_snapshot_manifest), which reads what a server
// sends to `trainfit snapshot update` (untrusted). Any input is either refused with a message naming the problem or
// accepted as a manifest whose every field holds what the reader promises, and which the writer writes back to a
// text that reads back the same.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "trainfit/storage/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  trainfit::Result<trainfit::SnapshotManifest> r = trainfit::parse_snapshot_manifest(text);
  if (!r) {
    if (r.error().message.empty()) std::abort();
    return 0;
  }
  const trainfit::SnapshotManifest& m = r.value();
  if (m.snapshot_id.empty() || m.files.empty() || m.files.size() > 2 || m.files[0].role != "snapshot") std::abort();
  for (const trainfit::ManifestFile& f : m.files)
    if (!trainfit::is_plain_file_name(f.name) || f.bytes == 0 || f.bytes > trainfit::kMaxPublishedFileBytes || f.sha256.size() != 64)
      std::abort();
  trainfit::Result<trainfit::SnapshotManifest> again = trainfit::parse_snapshot_manifest(trainfit::snapshot_manifest_json(m));
  if (!again || !(again.value() == m)) std::abort();
  return 0;
}
