// trainfit core — the ranking's filters: those of an offer alone, and those of one row (pricing option, hourly
// price limit, launchable now, the doubtful-price hold-back).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "market/rank_internal.h"

namespace trainfit {
namespace {

bool has_prefix(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Why a row is not launchable now (filters.launchable): the booking it needs, or the offer's availability fact.
std::string launch_why_not(const AccessFact& a, PricingOption option) {
  if (option == PricingOption::reserved) return "reserved booking (only what launches now selected)";
  switch (a.how) {
    case Access::quota_request:
      return "needs a quota request" + (a.quota.empty() ? std::string() : " (" + a.quota.substr(0, 120) + ")");
    case Access::reservation_only: return "sold only through a reservation or booking";
    case Access::sales_contact: return "sold through sales only";
    case Access::unknown: return "how to get it is not published";
    case Access::self_serve: break;
  }
  return "";
}

}  // namespace

uint32_t held_back_flags(const Offer& o, PricingOption option) {
  // A reserved price comes from the product's own price list, not the catalog row the flags judge.
  if (option == PricingOption::reserved) return 0;
  // deep_spot_discount doubts the spot price only (rank.h).
  const uint32_t doubtful = option == PricingOption::spot ? kDoubtfulPriceFlags
                                                          : (kDoubtfulPriceFlags & ~static_cast<uint32_t>(kFlagDeepSpotDiscount));
  return o.flags & doubtful;
}

bool reserved_lower_bound(const Snapshot& s, const Offer& o, PricingOption option) {
  return option == PricingOption::reserved && o.reservation >= 0 &&
         o.reservation < static_cast<int>(s.reservations.size()) &&
         s.reservations[static_cast<size_t>(o.reservation)].negotiated();
}

namespace rank_detail {

// Filters that depend only on the offer (not on the plan). Returns the reason, or "" when it passes.
std::string offer_filter(const Filters& f, const Snapshot& s, const Offer& o) {
  const Provider& p = s.providers[o.provider];
  const GpuSpec& g = s.gpus[o.gpu];
  // A provider filter selects the offers a provider runs and the offers it sells as a marketplace: "shadeform"
  // keeps every row sold through Shadeform, "lambda" Lambda's own rows and those resold (docs/snapshot.md).
  if (!f.providers.empty() && !contains(f.providers, p.id) &&
      !(o.via >= 0 && contains(f.providers, s.providers[o.via].id)))
    return "provider " + offer_seller_text(s, o) + " not selected";
  if (!f.regions.empty()) {
    bool any = false;
    for (const auto& r : f.regions) any = any || has_prefix(o.region, r);
    if (!any) return "region " + o.region + " not selected";
  }
  if (!f.gpus.empty() && !contains(f.gpus, g.id)) return "GPU " + g.id + " not selected";
  if (f.min_vram_GiB > 0 && gpu_capacity_bytes(g) < f.min_vram_GiB * kGiB)
    return fmt("%.1f GiB per GPU, below the %.1f GiB minimum", gpu_capacity_bytes(g) / kGiB, f.min_vram_GiB);
  if (f.min_gpus > 0 && o.gpu_count < f.min_gpus) return fmt("%.0f GPUs, below the minimum of %.0f", o.gpu_count, f.min_gpus);
  if (f.max_gpus > 0 && o.gpu_count > f.max_gpus) return fmt("%.0f GPUs, above the maximum of %.0f", o.gpu_count, f.max_gpus);
  switch (f.interconnect) {
    case InterconnectFilter::any: break;
    case InterconnectFilter::nvswitch:
      if (o.intra_link != LinkClass::nvswitch) return std::string("interconnect is ") + link_class_name(o.intra_link) + ", not nvswitch";
      break;
    case InterconnectFilter::nvlink:
      if (o.intra_link != LinkClass::nvswitch && o.intra_link != LinkClass::nvlink && o.intra_link != LinkClass::nvlink_bridge)
        return std::string("interconnect is ") + link_class_name(o.intra_link) + ", not NVLink";
      break;
    case InterconnectFilter::pcie:
      if (o.intra_link != LinkClass::pcie && o.intra_link != LinkClass::none)
        return std::string("interconnect is ") + link_class_name(o.intra_link) + ", not PCIe";
      break;
  }
  if (f.min_host_ram_GiB > 0 && o.host_ram_bytes < f.min_host_ram_GiB * kGiB)
    return fmt("host RAM %.0f GiB, below the %.0f GiB minimum", o.host_ram_bytes / kGiB, f.min_host_ram_GiB);
  if (f.hide_stale && (o.flags & kFlagStale)) return "stale price (captured " + o.capture_date + ")";
  if (f.hide_flagged && (o.flags & ~static_cast<uint32_t>(kFlagStale)))
    return "data-quality warning: " + offer_flag_names(o.flags).front();
  return "";
}

// The filters of one row that need no plan: the offer's own (offer_filter), the pricing option, the hourly
// price limit, and the doubtful-price hold-back. Sets the row's state and reason; false when it passes.
bool Ranker::pre_filter(RankRow& row, const Offer& o, const std::string& offer_reason) {
  const PricingOption option = row.option;
  if (!offer_reason.empty()) {
    row.why_not = offer_reason;
  } else if (!pricing_admits(f.pricing, option)) {
    row.why_not = std::string(pricing_option_name(option)) + " price (only " +
                  pricing_option_name(pricing_option_of(f.pricing)) + " selected)";
  } else if (f.launchable && (option == PricingOption::reserved || access_fact(s, o).how != Access::self_serve)) {
    row.why_not = launch_why_not(access_fact(s, o), option);
  } else if (f.launchable && (o.flags & kFlagNoLiveStock)) {
    row.why_not = "no capacity in " + o.region + " at the live check (only what launches now selected)";
  } else if (f.max_usd_per_h > 0 && row.price_usd_per_h > f.max_usd_per_h) {
    row.why_not = fmt("$%.2f/h per instance, above the $%.2f/h limit", row.price_usd_per_h, f.max_usd_per_h);
  } else if (const uint32_t doubt = f.show_doubtful ? 0u : held_back_flags(o, option)) {
    row.state = RowState::held_back;
    row.why_not = "doubtful price:";
    for (const std::string& n : offer_flag_names(doubt)) row.why_not += " " + n;
    return true;
  } else if (!f.show_doubtful && reserved_lower_bound(s, o, option)) {
    row.state = RowState::held_back;
    row.why_not = std::string("doubtful price: ") + kReservedLowerBound;
    return true;
  } else {
    return false;
  }
  row.state = RowState::filtered;
  return true;
}

}  // namespace rank_detail
}  // namespace trainfit
