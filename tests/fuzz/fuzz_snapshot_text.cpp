// libFuzzer target: the text sidecar reader (apply_snapshot_text), which reads data/snapshot-text.json as the page
// fetches it (untrusted). Any input either fills text fields only (every number, id and offer as before) or is
// refused with a message and leaves the snapshot exactly as it was.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "trainfit/storage/bundled.h"
#include "trainfit/storage/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const trainfit::Snapshot lean = [] {
    const trainfit::LeanPack p = trainfit::pack_snapshot_lean(trainfit::embedded_snapshot_json()).value();
    return trainfit::load_snapshot_binary(p.binary, trainfit::SnapshotLoadOptions{}).value();
  }();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  trainfit::Snapshot s = lean;
  trainfit::Result<size_t> r = trainfit::apply_snapshot_text(s, text);
  if (!r) {
    if (r.error().message.empty() || !(s == lean)) std::abort();
    return 0;
  }
  // Accepted: the text may change, nothing else. Strip it again and compare with the lean snapshot; the
  // warnings that quote a GPU's note are re-quoted (same field and code, new message).
  if (s.text_left_out || s.warnings.size() != lean.warnings.size()) std::abort();
  for (size_t i = 0; i < s.warnings.size(); ++i)
    if (s.warnings[i].field != lean.warnings[i].field || s.warnings[i].code != lean.warnings[i].code) std::abort();
  trainfit::strip_snapshot_text(s);
  s.warnings = lean.warnings;
  if (!(s == lean)) std::abort();
  return 0;
}
