// trainfit core — when a snapshot's prices were captured (snapshot.h, price_dates): the dates every surface
// shows instead of the snapshot's build date.
#include <algorithm>

#include "trainfit/storage/snapshot.h"

namespace trainfit {

PriceDates price_dates(const Snapshot& s) {
  PriceDates d;
  for (const Offer& o : s.offers) {
    d.stale = d.stale || (o.flags & kFlagStale);
    auto it = std::find_if(d.dates.begin(), d.dates.end(), [&](const CaptureDate& c) { return c.date == o.capture_date; });
    if (it == d.dates.end()) it = d.dates.insert(d.dates.end(), CaptureDate{o.capture_date, {}, 0});
    ++it->offers;
    // A marketplace row's price comes from the marketplace's catalog: it is named, not the cloud that runs it.
    const int seller = o.via >= 0 ? o.via : o.provider;
    const std::string& pid = seller >= 0 && seller < static_cast<int>(s.providers.size()) ? s.providers[seller].id : "";
    if (std::find(it->providers.begin(), it->providers.end(), pid) == it->providers.end()) it->providers.push_back(pid);
  }
  // ISO dates sort as text; providers in snapshot order.
  std::sort(d.dates.begin(), d.dates.end(), [](const CaptureDate& a, const CaptureDate& b) { return a.date < b.date; });
  for (CaptureDate& c : d.dates)
    std::sort(c.providers.begin(), c.providers.end(),
              [&](const std::string& a, const std::string& b) { return s.find_provider(a) < s.find_provider(b); });
  if (!d.dates.empty() && !s.judged_on.empty()) d.age_days = days_between(d.dates.front().date, s.judged_on);
  return d;
}

std::string price_dates_text(const PriceDates& d) {
  if (d.dates.empty()) return "no offers";
  if (d.dates.size() == 1) return d.dates.front().date;
  std::string out;
  for (const CaptureDate& c : d.dates) {
    if (!out.empty()) out += ", ";
    out += c.date + " (";
    for (size_t i = 0; i < c.providers.size(); ++i) out += (i ? ", " : "") + c.providers[i];
    out += ")";
  }
  return out;
}

}  // namespace trainfit
