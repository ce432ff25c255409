// trainfit bench — synthetic snapshots (synthetic.h).
#include "synthetic.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "trainfit/engine.h"

namespace trainfit::bench {

Snapshot synthetic_snapshot(const Snapshot& base, int offers) {
  Snapshot s = base;
  s.id = base.id + "-synthetic-" + std::to_string(offers);
  s.offers.clear();
  s.warnings.clear();
  s.offers.reserve(offers);
  const int n = static_cast<int>(base.offers.size());
  uint64_t rng = 0x9E3779B97F4A7C15ull;  // splitmix64 stream: same sizes give the same snapshot
  auto next_unit = [&rng]() {
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) / 9007199254740992.0;  // [0, 1)
  };
  for (int i = 0; i < offers && n > 0; ++i) {
    Offer o = base.offers[i % n];
    const int copy = i / n;
    if (copy > 0) {
      // "~" cannot occur in a real region name, so region-prefix filters ("us-") still match as before.
      const std::string suffix = "~s" + std::to_string(copy);
      o.region += suffix;
      if (!o.zone.empty()) o.zone += suffix;
      o.id += suffix;
      // One factor for every price of the offer keeps the spot/on-demand ratio (and so the data flags).
      const double f = 0.9 + 0.2 * next_unit();
      auto scale = [f](double& v) {
        if (v > 0) v = static_cast<double>(static_cast<int64_t>(v * f * 10000 + 0.5)) / 10000;
      };
      scale(o.price_usd_per_h);
      scale(o.spot_usd_per_h);
      scale(o.spot_max_usd_per_h);
      scale(o.host_usd_per_h);
      scale(o.accel_usd_per_h);
    }
    s.offers.push_back(std::move(o));
  }
  return s;
}

const Snapshot& bundled_snapshot() {
  static const Snapshot s = [] {
    Result<Snapshot> r = load_snapshot(embedded_snapshot_json());
    if (!r) {
      std::fprintf(stderr, "bundled snapshot: %s\n", r.error().to_string().c_str());
      std::exit(2);
    }
    return std::move(r).value();
  }();
  return s;
}

}  // namespace trainfit::bench
