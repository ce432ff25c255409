// trainfit core — reserved capacity (billing.h): the pricing options' names, the seconds a booking product books
// for a run, its terms as one line of text, and where a booking beats paying by the hour.
#include "trainfit/market/billing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "trainfit/market/rank.h"  // pricing_filter_of
#include "trainfit/query/query.h"  // to_string(PricingFilter)

namespace trainfit {

// The query's filter of the same name spells it (query.h: the names' one table).
const char* pricing_option_name(PricingOption o) { return to_string(pricing_filter_of(o)); }

double booked_term_s(double run_s, const std::vector<TermStep>& terms, double* bookings) {
  if (bookings) *bookings = 0;
  if (!std::isfinite(run_s) || run_s <= 0) return 0;
  if (terms.empty()) {
    if (bookings) *bookings = 1;
    return run_s;
  }
  // Whole longest bookings first (a run past the longest term books it again), then the rest.
  const double longest = terms.back().up_to_s;
  double full = 0, rest = run_s;
  if (longest > 0 && run_s > longest) {
    full = std::ceil(run_s / longest - 1e-9) - 1;
    rest = run_s - full * longest;
    if (rest <= 0) {  // noise only
      rest = longest;
    }
  }
  // The shortest bookable duration >= rest: the first step that reaches it, rounded up in that step's increment
  // from the end of the previous step (1-day steps to 14 days, then 7-day steps: 15 days books 21). A tolerance
  // of 1e-9 of an increment keeps a run of exactly whole increments from booking one more.
  double from = 0, booked = longest;
  for (const TermStep& t : terms) {
    if (rest <= t.up_to_s * (1 + 1e-12)) {
      double units = std::ceil((rest - from) / t.increment_s - 1e-9);
      if (units < 1) units = 1;
      booked = std::min(t.up_to_s, from + units * t.increment_s);
      break;
    }
    from = t.up_to_s;
  }
  if (bookings) *bookings = full + 1;
  return full * longest + booked;
}

std::string booking_duration_text(double s) {
  char buf[48];
  const double h = s / kHour_s;
  auto whole = [](double x) { return std::fabs(x - std::round(x)) < 1e-6; };
  if (whole(h / 8760) && h >= 8760) std::snprintf(buf, sizeof buf, "%.0f year%s", h / 8760, h == 8760 ? "" : "s");
  else if (whole(h / 24) && h >= 24) std::snprintf(buf, sizeof buf, "%.0f day%s", h / 24, h == 24 ? "" : "s");
  else std::snprintf(buf, sizeof buf, "%.4g h", h);
  return buf;
}

std::string reservation_terms_text(const Reservation& r) {
  std::string t;
  if (r.negotiated()) {  // snapshot.h Reservation::negotiated: the contract's term is agreed with sales
    t = "term agreed with sales, none published: this cost books the run only and is a lower bound at the lowest "
        "published rate";
    if (r.upfront) t += "; prepaid";
  } else {
    double from = 0;
    for (size_t i = 0; i < r.terms.size(); ++i) {
      const TermStep& st = r.terms[i];
      if (i) t += ", then ";
      if (st.increment_s >= st.up_to_s - from - 1e-6) t += booking_duration_text(st.up_to_s);  // one duration
      else {
        std::string step = booking_duration_text(st.increment_s);  // "7 days" -> "7-day"
        if (const size_t sp = step.find(' '); sp != std::string::npos) step[sp] = '-';
        if (step.size() > 1 && step.back() == 's') step.pop_back();
        t += step + " steps up to " + booking_duration_text(st.up_to_s);
      }
      from = st.up_to_s;
    }
    if (!r.start_time_utc.empty()) t += "; starts and ends at " + r.start_time_utc + " UTC";
    t += r.upfront ? "; paid up front" : "; billed over the term";
  }
  if (!r.cancellable_published) t += "; cancellation terms not published";
  else if (!r.cancellable) t += "; not cancellable";
  if (r.min_instances > 0) t += "; at least " + std::to_string(r.min_instances) + " instances per booking";
  if (r.max_instances > 0) t += "; up to " + std::to_string(r.max_instances) + " instances per booking";
  return t;
}

ReservedVsHourly reserved_vs_hourly(double r, double p, const std::vector<TermStep>& terms) {
  ReservedVsHourly v;
  if (!(std::isfinite(r) && r > 0 && std::isfinite(p) && p > 0)) return v;
  v.comparable = true;
  v.price_ratio = r / p;
  v.term_unpublished = terms.empty();
  if (r >= p) return v;  // a booked hour never costs less than an hour by the hour
  if (terms.empty()) {  // the run itself is booked: a lower rate wins from the start
    v.first_win_s = v.wins_from_s = 0;
    return v;
  }
  // Booking intervals [a, a + i] of one pass over the steps: booking loses up to t = r (a + i) / p and wins after
  // it, so an interval has a losing part when t > a, i.e. a < a* = r i / (p - r). Past the longest booking the
  // pattern repeats shifted by whole longest terms, where every interval starts later, so the first pass decides.
  v.first_win_s = r * std::min(terms.front().increment_s, terms.front().up_to_s) / p;
  double from = 0, last_loss = 0;
  for (const TermStep& st : terms) {
    const double i = st.increment_s;
    if (!(i > 0) || !(st.up_to_s > from)) break;
    const double a_star = r * i / (p - r);
    const double n = std::ceil((st.up_to_s - from) / i - 1e-9);  // intervals in this step
    const double k = std::min(n - 1, std::ceil((a_star - from) / i) - 1);  // the last interval that loses
    if (k >= 0) last_loss = r * std::min(from + (k + 1) * i, st.up_to_s) / p;
    from = st.up_to_s;
  }
  v.wins_from_s = last_loss;
  return v;
}

}  // namespace trainfit
