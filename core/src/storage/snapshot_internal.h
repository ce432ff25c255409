// trainfit core — what the snapshot's JSON reader (snapshot.cpp), its serializer (snapshot_writer.cpp) and its
// compact binary form (snapshot_binary.cpp) share: the offer columns and the two halves of reading a snapshot.
// Internal to the core: not installed with trainfit/*.h.
#pragma once

#include <cstdint>
#include <optional>
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

// Reads and checks the JSON: errors and the reader's warnings go to `r`; on success, the snapshot with the
// flags its rows carry, before derive_snapshot_flags, and `row_of` (offer -> its row in the document, for the
// warnings' JSON pointers).
std::optional<Snapshot> read_snapshot_json(std::string_view text, const SnapshotLoadOptions& opt, SnapshotReport* r,
                                           std::vector<size_t>* row_of);

// The checks that depend on the load options (the staleness check on today's date, the price thresholds): flags
// and warnings added to the offers and `r`; then Snapshot::warnings = r->warnings. False on an internal error.
bool derive_snapshot_flags(Snapshot& s, const std::vector<size_t>& row_of, const SnapshotLoadOptions& opt,
                           SnapshotReport* r);

// The text of the warning a derived GPU flag (kFlagSpecIncomplete, kFlagEstimatedSpec) adds to an offer: it quotes
// the GPU's note, so applying a lean snapshot's text sidecar re-quotes these warnings (snapshot_text.cpp).
std::string gpu_flag_warning(const GpuSpec& g, OfferFlag f);

// A refused load's error for Result: the first one, with the count of the others ("(and 3 more errors)"); `none`
// when the report holds no error.
Error first_error(const SnapshotReport& r, const char* none);

}  // namespace trainfit::detail
