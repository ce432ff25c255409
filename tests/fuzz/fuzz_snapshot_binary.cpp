// libFuzzer target: the binary snapshot reader (load_snapshot_binary_report). The input is used twice: as a
// whole file (header checks), and as a payload wrapped in a valid header with its checksum, so that the
// payload decoder sees arbitrary bytes (the checksum would otherwise stop nearly every mutation). Any input
// must come back as a snapshot or an error; never a crash, a hang, an escaped exception or a leak; a snapshot
// that loads has every index in range and finite prices.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "trainfit/storage/snapshot.h"

namespace {
void check(std::string_view bytes) {
  trainfit::SnapshotLoadOptions opt;
  opt.today = "2026-11-29";  // the staleness path too
  trainfit::SnapshotReport report;
  const std::optional<trainfit::Snapshot> s = trainfit::load_snapshot_binary_report(bytes, opt, &report);
  if (s.has_value() != report.ok()) std::abort();
  if (!s) return;
  for (const auto& o : s->offers) {
    if (o.gpu < 0 || o.gpu >= static_cast<int>(s->gpus.size())) std::abort();
    if (o.provider < 0 || o.provider >= static_cast<int>(s->providers.size())) std::abort();
    if (!std::isfinite(o.price_usd_per_h) || !std::isfinite(o.spot_usd_per_h)) std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  check(in);
  // The same bytes as a payload: header "TFSB", version, schema, 0, size, checksum (snapshot_binary.cpp).
  std::string file = "TFSB";
  auto put = [&](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) file.push_back(static_cast<char>(v >> (8 * i)));
  };
  put(trainfit::kSnapshotBinaryVersion, 4);
  put(trainfit::kSnapshotSchemaVersion, 4);
  put(0, 4);
  put(size, 8);
  put(trainfit::snapshot_binary_checksum(in), 8);
  file.append(in);
  check(file);
  return 0;
}
