// trainfit core — the two halves of reading a snapshot, shared by the JSON reader (snapshot.cpp) and the
// compact binary form (snapshot_binary.cpp). Internal to the core: not installed with trainfit/*.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "trainfit/snapshot.h"

namespace trainfit::detail {

// Every OfferFlag bit (snapshot.h): a file's flags column and the binary form may hold no other.
inline constexpr uint32_t kAllOfferFlags = (1u << 7) - 1;

// Reads and checks the JSON: errors and the reader's warnings go to `r`; on success, the snapshot with the
// flags its rows carry, before derive_snapshot_flags, and `row_of` (offer -> its row in the document, for the
// warnings' JSON pointers).
std::optional<Snapshot> read_snapshot_json(std::string_view text, const SnapshotLoadOptions& opt, SnapshotReport* r,
                                           std::vector<size_t>* row_of);

// The checks that depend on the load options (the staleness check on today's date, the price thresholds): flags
// and warnings added to the offers and `r`; then Snapshot::warnings = r->warnings. False on an internal error.
bool derive_snapshot_flags(Snapshot& s, const std::vector<size_t>& row_of, const SnapshotLoadOptions& opt,
                           SnapshotReport* r);

// A refused load's error for Result: the first one, with the count of the others ("(and 3 more errors)"); `none`
// when the report holds no error.
Error first_error(const SnapshotReport& r, const char* none);

}  // namespace trainfit::detail
