// libFuzzer target: the snapshot loader and validator. Any byte string must come back as a snapshot or a
// report with at least one error naming a field; never a crash, a hang, an escaped exception or a leak.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "trainfit/storage/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  trainfit::SnapshotLoadOptions opt;
  opt.today = "2026-11-29";  // exercise the staleness path too
  trainfit::SnapshotReport report;
  const std::optional<trainfit::Snapshot> s = trainfit::load_snapshot_report(text, opt, &report);
  if (s.has_value() != report.ok()) std::abort();  // a snapshot comes back exactly when there is no error
  if (!s) return 0;
  // A document that loads must serialise and load again (the web app re-saves what it fetched).
  trainfit::SnapshotReport again;
  if (!trainfit::load_snapshot_report(trainfit::snapshot_to_json(*s), opt, &again)) std::abort();
  for (const auto& o : s->offers) {
    if (o.gpu < 0 || o.gpu >= static_cast<int>(s->gpus.size())) std::abort();
    if (o.provider < 0 || o.provider >= static_cast<int>(s->providers.size())) std::abort();
    if (!std::isfinite(o.price_usd_per_h) || !std::isfinite(o.spot_usd_per_h)) std::abort();
  }
  return 0;
}
