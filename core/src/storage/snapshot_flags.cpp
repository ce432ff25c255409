// trainfit core — the snapshot's derived flags and warnings (the checks that depend on the load options):
// suspicious prices, GPU figures missing or estimated, stale capture dates, price outliers.
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "storage/snapshot_json_internal.h"

namespace trainfit::detail {

using namespace snapshot_json;  // Ctx, fmt_num, row_pointer

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Sets flag `f` on offer i and records its warning; `msg` writes the text. Out of line (see NOTE(perf) in
// snapshot_json_offers.cpp): few offers are flagged, and the text building would otherwise sit in the loops' bodies.
template <class Msg>
[[gnu::noinline]] void flag_offer(Ctx& c, Snapshot& s, const std::vector<size_t>& row_of, size_t i, OfferFlag f,
                                  const char* code, const Msg& msg) {
  s.offers[i].flags |= f;
  c.warn(row_pointer(row_of[i]), code, s.offers[i].id + ": " + msg());
}

// The age of the last capture date checked: offers share their date string (SharedStr), so a run of offers with
// one date parses it once instead of twice per offer (~10% of a 100k-offer load in wasm).
struct AgeMemo {
  const std::string* date = nullptr;
  std::optional<int> age;
};

// The per-offer checks of derive_flags.
[[gnu::noinline]] void check_offer(Ctx& c, Snapshot& s, const std::vector<size_t>& row_of, size_t i,
                                   const SnapshotLoadOptions& opt, AgeMemo& memo) {
  const Offer& o = s.offers[i];
  const double od = o.price_usd_per_h, sp = o.spot_usd_per_h;
  if (od >= 0 && sp >= 0 && sp > od)
    flag_offer(c, s, row_of, i, kFlagSpotAboveOnDemand, "spot_above_on_demand",
               [&] { return "spot $" + fmt_num(sp) + "/h is above on-demand $" + fmt_num(od) + "/h"; });
  if (od == 0 || sp == 0 || o.host_usd_per_h == 0 || o.accel_usd_per_h == 0)
    flag_offer(c, s, row_of, i, kFlagZeroComponent, "zero_component",
               [] { return std::string("a price component is $0 in the source"); });
  if (od > 0 && sp >= 0 && sp < (1 - opt.deep_spot_discount) * od)
    flag_offer(c, s, row_of, i, kFlagDeepSpotDiscount, "deep_spot_discount", [&] {
      return "spot is " + fmt_num(100 * (1 - sp / od)) + "% below on-demand (beyond " +
             fmt_num(100 * opt.deep_spot_discount) + "%)";
    });
  if (o.gpu >= 0 && s.gpus[o.gpu].spec_incomplete && !(o.flags & kFlagSpecIncomplete))
    flag_offer(c, s, row_of, i, kFlagSpecIncomplete, "spec_incomplete",
               [&] { return detail::gpu_flag_warning(s.gpus[o.gpu], kFlagSpecIncomplete); });
  if (o.gpu >= 0 && s.gpus[o.gpu].estimated_spec && !(o.flags & kFlagEstimatedSpec))
    flag_offer(c, s, row_of, i, kFlagEstimatedSpec, "estimated_spec",
               [&] { return detail::gpu_flag_warning(s.gpus[o.gpu], kFlagEstimatedSpec); });
  if (!opt.today.empty()) {
    const std::string& cap = o.capture_date.empty() ? s.providers[o.provider].capture_date : o.capture_date.str();
    if (memo.date != &cap) memo = AgeMemo{&cap, days_between(cap, opt.today)};
    const std::optional<int> age = memo.age;
    if (age && *age > opt.stale_after_days)
      flag_offer(c, s, row_of, i, kFlagStale, "stale", [&] {
        return "captured " + cap + ", " + std::to_string(*age) + " days before " + opt.today;
      });
  }
}

// Outliers: the reference is the median over providers of each provider's median per-GPU on-demand price
// for the same GPU, so one provider with many regions cannot set the reference on its own. By GPU index; 0 =
// no reference (fewer than two providers price the GPU). Indexed vectors, not maps: GPU and provider indices
// are small and dense, and this runs at every page load.
[[gnu::noinline]] std::vector<double> reference_prices(const Snapshot& s) {
  const size_t np = s.providers.size();
  std::vector<std::vector<double>> prices(s.gpus.size() * np);  // [gpu * np + provider] -> per-GPU prices
  for (const auto& o : s.offers) {
    const double p = price_per_gpu_usd_per_h(o);
    if (p > 0) prices[static_cast<size_t>(o.gpu) * np + static_cast<size_t>(o.provider)].push_back(p);
  }
  std::vector<double> ref(s.gpus.size(), 0.0);
  std::vector<double> meds;
  for (size_t g = 0; g < s.gpus.size(); ++g) {
    meds.clear();
    for (size_t pv = 0; pv < np; ++pv)
      if (!prices[g * np + pv].empty()) meds.push_back(median(prices[g * np + pv]));
    if (meds.size() >= 2) ref[g] = median(meds);  // fewer: nothing "elsewhere" to compare with
  }
  return ref;
}

// Suspicious data -> warnings + flags. Thresholds come from SnapshotLoadOptions (documented in snapshot.md).
[[gnu::noinline]] void derive_flags(Ctx& c, Snapshot& s, const std::vector<size_t>& row_of, const SnapshotLoadOptions& opt) {
  AgeMemo memo;
  for (size_t i = 0; i < s.offers.size(); ++i) check_offer(c, s, row_of, i, opt, memo);
  const std::vector<double> ref = reference_prices(s);
  for (size_t i = 0; i < s.offers.size(); ++i) {
    const double r = ref[static_cast<size_t>(s.offers[i].gpu)];
    const double p = price_per_gpu_usd_per_h(s.offers[i]);
    if (p <= 0 || r <= 0) continue;
    const double ratio = p / r;
    if (ratio > opt.outlier_factor || ratio < 1 / opt.outlier_factor)
      flag_offer(c, s, row_of, i, kFlagPriceOutlier, "price_outlier", [&] {
        return "$" + fmt_num(p) + " per GPU-hour vs median $" + fmt_num(r) + " for " + s.gpus[s.offers[i].gpu].id +
               " across providers (x" + fmt_num(ratio) + ")";
      });
  }
}

}  // namespace

std::string gpu_flag_warning(const GpuSpec& g, OfferFlag f) {
  return f == kFlagSpecIncomplete ? "GPU spec incomplete: " + g.spec_note : "GPU figures estimated: " + g.estimated_note;
}

bool derive_snapshot_flags(Snapshot& s, const std::vector<size_t>& row_of, const SnapshotLoadOptions& opt,
                           SnapshotReport* r) {
  Ctx c(r, std::max(1, opt.max_errors));
  try {
    if (row_of.size() != s.offers.size()) throw std::logic_error("row_of does not match the offers");
    derive_flags(c, s, row_of, opt);
    s.warnings = r->warnings;
    s.judged_on = opt.today;
    s.stale_after_days = opt.stale_after_days;
    return true;
  } catch (const std::exception& e) {
    c.error("", std::string("internal error while checking the snapshot: ") + e.what());
  } catch (...) {
    c.error("", "internal error while checking the snapshot");
  }
  return false;
}

}  // namespace trainfit::detail
