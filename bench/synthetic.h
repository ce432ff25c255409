// trainfit bench — synthetic snapshots of any size for the scaling benchmarks.
// Realistic shapes: the bundled snapshot's offers, replicated across synthetic regions ("us-east-1~s3") with
// prices jittered by a deterministic +-10%. Every instance shape stays one the planner really sees, so the
// growth measured is the growth that adding providers and regions to the snapshot causes.
#pragma once
#include "trainfit/engine.h"

namespace trainfit::bench {

// `offers` offers (cycling through base.offers); same GPUs and providers as `base`. Deterministic.
Snapshot synthetic_snapshot(const Snapshot& base, int offers);

// The bundled snapshot (data/snapshot.json, compiled in), loaded once.
const Snapshot& bundled_snapshot();

}  // namespace trainfit::bench
