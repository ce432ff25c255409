// trainfit core — what the snapshot's JSON reader (snapshot_json_*.cpp, snapshot_flags.cpp), its serializer
// (snapshot_writer.cpp) and its compact binary form (snapshot_binary.cpp) share: the offer columns, the ISO date
// parser and the two halves of reading a snapshot.
// Internal to the core: not installed with trainfit/*.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trainfit/storage/snapshot.h"

namespace trainfit::detail {

// Offer columns in the order the serializer writes them (snapshot_writer.cpp). The loader accepts any order (it
// maps by name).
enum Col {
  cId, cProvider, cVia, cInstance, cRegion, cZone, cZoneCount, cGpu, cGpuCount, cVcpus, cRamGiB, cDiskGB,
  cIntraLink, cIntraGBps, cInterNet, cInterGbps, cMaxNodes, cPrice, cSpot, cSpotMax, cHost, cAccel,
  cCapture, cFlags, kColCount
};
inline constexpr const char* kColNames[kColCount] = {
    "id", "provider", "via", "instance_type", "region", "zone", "zone_count", "gpu", "gpu_count", "vcpus",
    "host_ram_GiB", "local_disk_GB", "intra_link", "intra_link_GBps", "inter_net", "inter_net_Gbps",
    "max_nodes", "price_usd_per_h", "spot_usd_per_h", "spot_max_usd_per_h", "host_usd_per_h",
    "accel_usd_per_h", "capture_date", "flags"};

// Every OfferFlag bit (snapshot.h): a file's flags column and the binary form may hold no other.
inline constexpr uint32_t kAllOfferFlags = (1u << 8) - 1;

// Civil-date arithmetic: days_from_civil from H. Hinnant, "chrono-Compatible Low-Level Date Algorithms"
// (howardhinnant.github.io/date_algorithms.html), valid for the proleptic Gregorian calendar.
// An ISO date (YYYY-MM-DD, from 1900) as days since 1970-01-01; nullopt when it is not one.
inline std::optional<long> parse_iso_day(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  auto digits = [&](size_t a, size_t n) -> long {
    long v = 0;
    for (size_t i = a; i < a + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return -1;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  long y = digits(0, 4), m = digits(5, 2), d = digits(8, 2);
  if (y < 1900 || m < 1 || m > 12 || d < 1) return std::nullopt;
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (d > mdays[m - 1] + (m == 2 && leap ? 1 : 0)) return std::nullopt;
  y -= m <= 2;
  const long era = y / 400;
  const long yoe = y - era * 400;
  const long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Reads and checks the JSON (snapshot_json_reader.cpp): errors and the reader's warnings go to `r`; on success,
// the snapshot with the flags its rows carry, before derive_snapshot_flags, and `row_of` (offer -> its row in the
// document, for the warnings' JSON pointers).
std::optional<Snapshot> read_snapshot_json(std::string_view text, const SnapshotLoadOptions& opt, SnapshotReport* r,
                                           std::vector<size_t>* row_of);

// The checks that depend on the load options (the staleness check on today's date, the price thresholds;
// snapshot_flags.cpp): flags and warnings added to the offers and `r`; then Snapshot::warnings = r->warnings.
// False on an internal error.
bool derive_snapshot_flags(Snapshot& s, const std::vector<size_t>& row_of, const SnapshotLoadOptions& opt,
                           SnapshotReport* r);

// The text of the warning a derived GPU flag (kFlagSpecIncomplete, kFlagEstimatedSpec) adds to an offer
// (snapshot_flags.cpp): it quotes the GPU's note, so applying a lean snapshot's text sidecar re-quotes these
// warnings (snapshot_text.cpp).
std::string gpu_flag_warning(const GpuSpec& g, OfferFlag f);

// A refused load's error for Result (snapshot.cpp): the first one, with the count of the others ("(and 3 more
// errors)"); `none` when the report holds no error.
Error first_error(const SnapshotReport& r, const char* none);

}  // namespace trainfit::detail
