// trainfit core — the reserved-capacity products' checks and their prices matched to offers (snapshot.h,
// attach_reservations): run by the JSON reader and after the binary form is read.
#include <cmath>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trainfit/storage/snapshot.h"

namespace trainfit {

Result<bool> attach_reservations(Snapshot& s, std::vector<Warning>* warnings) {
  for (Offer& o : s.offers) {
    o.reserved_usd_per_h = -1;
    o.reservation = -1;
  }
  if (s.reservations.empty()) return true;
  // The prices by offer id: a few hundred entries, looked up only by the offers their providers sell (hashing every
  // id of a 100k-offer snapshot was ~50 ms of its load). Offer ids are seller/instance_type/region (the importer's
  // rule), so a price whose id names another seller is refused here without a lookup.
  struct Ref {
    int reservation;
    size_t price;
    bool used = false;
  };
  std::unordered_map<std::string_view, Ref> by_id;
  std::vector<char> sells(s.providers.size(), 0);
  for (size_t r = 0; r < s.reservations.size(); ++r) {
    const Reservation& rv = s.reservations[r];
    const std::string p = "/reservations/" + std::to_string(r);
    for (size_t k = 0; k < r; ++k)
      if (s.reservations[k].id == rv.id) return Error{p + "/id", "duplicate reservation id \"" + rv.id.substr(0, 60) + "\""};
    const int prov = s.find_provider(rv.provider);
    if (prov < 0) return Error{p + "/provider", "unknown provider \"" + rv.provider.substr(0, 60) + "\""};
    sells[static_cast<size_t>(prov)] = 1;
    // No terms: a negotiated contract (snapshot.h Reservation::negotiated), its term agreed with sales.
    if (rv.min_instances < 0 || rv.max_instances < 0)
      return Error{p + "/min_instances", "instance counts must be >= 0"};
    if (rv.max_instances > 0 && rv.min_instances > rv.max_instances)
      return Error{p + "/min_instances", "more than max_instances (" + std::to_string(rv.max_instances) + ")"};
    double prev = 0;
    for (size_t t = 0; t < rv.terms.size(); ++t) {
      const TermStep& st = rv.terms[t];
      const std::string tp = p + "/terms/" + std::to_string(t);
      if (!(std::isfinite(st.increment_s) && st.increment_s > 0)) return Error{tp + "/increment_h", "must be > 0"};
      if (!(std::isfinite(st.up_to_s) && st.up_to_s > prev))
        return Error{tp + "/up_to_h", "must be longer than the previous step's"};
      if (st.increment_s > st.up_to_s - prev + 1e-6)
        return Error{tp + "/increment_h", "longer than its step (up_to_h minus the previous step's)"};
      prev = st.up_to_s;
    }
    for (size_t i = 0; i < rv.prices.size(); ++i) {
      const ReservedPrice& x = rv.prices[i];
      const std::string pp = p + "/prices/" + std::to_string(i);
      if (!(std::isfinite(x.usd_per_h) && x.usd_per_h >= 0)) return Error{pp + "/usd_per_h", "must be a price >= 0"};
      if (x.offer.compare(0, rv.provider.size() + 1, rv.provider + "/") != 0)
        return Error{pp + "/offer", "offer \"" + x.offer.substr(0, 80) + "\" is not sold by " + rv.provider.substr(0, 60)};
      auto [it, added] = by_id.try_emplace(std::string_view(x.offer), Ref{static_cast<int>(r), i});
      if (!added)
        return Error{pp + "/offer", "offer \"" + x.offer.substr(0, 80) + "\" already has a reserved price (" +
                                        s.reservations[static_cast<size_t>(it->second.reservation)].id + ")"};
    }
  }
  for (Offer& o : s.offers) {
    const int seller = o.via >= 0 ? o.via : o.provider;
    if (seller < 0 || static_cast<size_t>(seller) >= sells.size() || !sells[static_cast<size_t>(seller)]) continue;
    auto it = by_id.find(std::string_view(o.id));
    if (it == by_id.end()) continue;
    const Reservation& rv = s.reservations[static_cast<size_t>(it->second.reservation)];
    if (s.providers[static_cast<size_t>(seller)].id != rv.provider)
      return Error{"/reservations/" + std::to_string(it->second.reservation) + "/prices/" + std::to_string(it->second.price) + "/offer",
                   "offer \"" + o.id.substr(0, 80) + "\" is not sold by " + rv.provider.substr(0, 60)};
    o.reservation = it->second.reservation;
    o.reserved_usd_per_h = rv.prices[it->second.price].usd_per_h;
    it->second.used = true;
  }
  // A price naming an offer the snapshot does not have prices nothing (a trimmed or rebuilt snapshot keeps its
  // products): a warning when asked, in document order.
  if (warnings)
    for (size_t r = 0; r < s.reservations.size(); ++r)
      for (size_t i = 0; i < s.reservations[r].prices.size(); ++i) {
        const std::string& id = s.reservations[r].prices[i].offer;
        if (by_id.at(std::string_view(id)).used) continue;
        warnings->push_back(Warning{"/reservations/" + std::to_string(r) + "/prices/" + std::to_string(i) + "/offer",
                                    "reservation_without_offer",
                                    s.reservations[r].id + " prices \"" + id.substr(0, 80) + "\", which this snapshot does not have"});
      }
  return true;
}

}  // namespace trainfit
