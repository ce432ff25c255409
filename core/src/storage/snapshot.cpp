// trainfit core — the price snapshot's names, lookups and loading entry points: link, network, flag and access
// names; offer display names and lookups; days between ISO dates; load_snapshot_report and load_snapshot, which
// run the JSON reader (snapshot_json_reader.cpp) and the derived checks (snapshot_flags.cpp). The serializer is
// snapshot_writer.cpp, the binary form snapshot_binary.cpp, the reservations' matching snapshot_reservations.cpp.
#include "trainfit/storage/snapshot.h"

#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/snapshot_internal.h"
#include "trainfit/base/enum_names.h"

namespace trainfit {

// ---------------------------------------------------------------- names and small helpers

namespace {
constexpr EnumName<LinkClass> kLinkNames[] = {
    {LinkClass::none, "none"},           {LinkClass::pcie, "pcie"},
    {LinkClass::nvlink_bridge, "nvlink_bridge"}, {LinkClass::nvlink, "nvlink"},
    {LinkClass::nvswitch, "nvswitch"},   {LinkClass::infinity_fabric, "infinity_fabric"},
};
constexpr EnumName<NetKind> kNetNames[] = {
    {NetKind::none, "none"}, {NetKind::ethernet, "ethernet"}, {NetKind::roce, "roce"},
    {NetKind::efa, "efa"},   {NetKind::infiniband, "infiniband"}, {NetKind::tcpx, "tcpx"},
};
// Access: its name (JSON, CLI flags) and its label (tables, UI).
constexpr EnumName<Access> kAccessNames[] = {
    {Access::unknown, "unknown"},           {Access::self_serve, "self_serve"},
    {Access::quota_request, "quota_request"}, {Access::reservation_only, "reservation_only"},
    {Access::sales_contact, "sales_contact"},
};
constexpr EnumName<Access> kAccessLabels[] = {
    {Access::unknown, "unknown"},           {Access::self_serve, "self-serve"},
    {Access::quota_request, "quota request"}, {Access::reservation_only, "reservation only"},
    {Access::sales_contact, "contact sales"},
};
struct FlagName { OfferFlag f; const char* name; const char* code; const char* meaning; };
// Name (JSON), one-letter code (CLI table, UI column) and meaning (legends, tooltips) of each flag; the
// thresholds are SnapshotLoadOptions' defaults.
constexpr FlagName kFlagNames[] = {
    {kFlagSpotAboveOnDemand, "spot_above_on_demand", "S", "spot price above on-demand"},
    {kFlagZeroComponent, "zero_component", "Z", "a price component is zero"},
    {kFlagDeepSpotDiscount, "deep_spot_discount", "D", "spot over 85% below on-demand"},
    {kFlagPriceOutlier, "price_outlier", "O", "over 2.5x from the median price of the same GPU"},
    {kFlagStale, "stale", "T", "price captured over 90 days ago"},
    {kFlagUnverifiedPrice, "unverified_price", "U", "source rows known to be suspect"},
    {kFlagSpecIncomplete, "spec_incomplete", "G", "GPU datasheet figures missing"},
    {kFlagEstimatedSpec, "estimated_spec", "E", "GPU figures estimated, not from a datasheet"},
    {kFlagNoLiveStock, "no_live_stock", "N", "no capacity at the live check"},
};
// The flag's row, or a row of the answers for a flag that is not in the table.
const FlagName& flag_row(OfferFlag f) {
  static constexpr FlagName kUnknown = {OfferFlag{}, "unknown", "?", "unknown flag"};
  for (const auto& n : kFlagNames)
    if (n.f == f) return n;
  return kUnknown;
}
}  // namespace

const char* link_class_name(LinkClass c) { return enum_name(kLinkNames, c, "none"); }
const char* net_kind_name(NetKind k) { return enum_name(kNetNames, k, "none"); }
std::optional<LinkClass> parse_link_class(std::string_view s) { return enum_value(kLinkNames, s); }
std::optional<NetKind> parse_net_kind(std::string_view s) { return enum_value(kNetNames, s); }
const char* access_name(Access a) { return enum_name(kAccessNames, a, "unknown"); }
const char* access_label(Access a) { return enum_name(kAccessLabels, a, "unknown"); }
std::optional<Access> parse_access(std::string_view s) { return enum_value(kAccessNames, s); }
const char* offer_flag_name(OfferFlag f) { return flag_row(f).name; }
const char* offer_flag_code(OfferFlag f) { return flag_row(f).code; }
const char* offer_flag_meaning(OfferFlag f) { return flag_row(f).meaning; }
std::optional<OfferFlag> parse_offer_flag(std::string_view name) {
  for (const auto& n : kFlagNames)
    if (name == n.name) return n.f;
  return std::nullopt;
}
std::vector<std::string> offer_flag_names(uint32_t flags) {
  std::vector<std::string> out;
  for (const auto& n : kFlagNames)
    if (flags & n.f) out.push_back(n.name);
  return out;
}

std::string offer_display_name(const Snapshot& s, const Offer& o) {
  const std::string_view type = o.instance_type;
  const bool marketplace = o.via >= 0 || type.find("__") != std::string_view::npos;
  if (!marketplace || o.gpu < 0 || o.gpu >= static_cast<int>(s.gpus.size()) || o.gpu_count <= 0)
    return std::string(type);
  const GpuSpec& g = s.gpus[static_cast<size_t>(o.gpu)];
  // The GPU's display name without the vendor prefix and any parenthesised note ("NVIDIA A10G (AWS g5)" -> "A10G").
  std::string_view gname = g.name;
  if (!g.vendor.empty() && gname.substr(0, g.vendor.size()) == g.vendor && gname.size() > g.vendor.size() &&
      gname[g.vendor.size()] == ' ')
    gname.remove_prefix(g.vendor.size() + 1);
  if (const size_t paren = gname.find(" ("); paren != std::string_view::npos) gname = gname.substr(0, paren);
  std::string out = std::to_string(o.gpu_count) + "x " + std::string(gname);
  // The datasheet memory (1e9 bytes) unless the name already carries it ("H100 SXM5 80GB").
  if (g.memory_bytes > 0 && gname.find("GB") == std::string_view::npos)
    out += " " + std::to_string(static_cast<long long>(std::llround(g.memory_bytes / 1e9))) + " GB";
  // The GPU link when it is more than PCIe: it tells apart a marketplace's NVLink and PCIe variants of one host.
  static constexpr const char* kLink[] = {"", "", "NVLink bridge", "NVLink", "NVSwitch", "Infinity Fabric"};
  const auto li = static_cast<size_t>(o.intra_link);
  if (o.gpu_count > 1 && li < std::size(kLink) && kLink[li][0]) out += std::string(", ") + kLink[li];
  if (o.vcpus > 0) out += ", " + std::to_string(static_cast<long long>(std::llround(o.vcpus))) + " vCPU";
  if (o.host_ram_bytes > 0)
    out += ", " + std::to_string(static_cast<long long>(std::llround(o.host_ram_bytes / 1073741824.0))) + " GiB RAM";
  return out;
}

double price_per_gpu_usd_per_h(const Offer& o, bool spot) {
  const double p = spot ? o.spot_usd_per_h : o.price_usd_per_h;
  if (p < 0 || o.gpu_count <= 0) return -1;
  return p / o.gpu_count;
}

std::string offer_seller_text(const Snapshot& s, const Offer& o) {
  const int np = static_cast<int>(s.providers.size());
  std::string t = o.provider >= 0 && o.provider < np ? s.providers[static_cast<size_t>(o.provider)].id : std::string("?");
  if (o.via >= 0 && o.via < np) t += " via " + s.providers[static_cast<size_t>(o.via)].id;
  return t;
}

int Snapshot::find_gpu(const std::string& id) const {
  for (size_t i = 0; i < gpus.size(); ++i)
    if (gpus[i].id == id) return static_cast<int>(i);
  return -1;
}
int Snapshot::find_provider(const std::string& id) const {
  for (size_t i = 0; i < providers.size(); ++i)
    if (providers[i].id == id) return static_cast<int>(i);
  return -1;
}
int Snapshot::find_offer(const std::string& id) const {
  for (size_t i = 0; i < offers.size(); ++i)
    if (offers[i].id == id) return static_cast<int>(i);
  return -1;
}

const Reservation* reservation_of(const Snapshot& s, const Offer& o) {
  return o.reservation >= 0 && static_cast<size_t>(o.reservation) < s.reservations.size()
             ? &s.reservations[static_cast<size_t>(o.reservation)]
             : nullptr;
}

const AccessFact& access_fact(const Snapshot& s, const Offer& o) {
  const int np = static_cast<int>(s.providers.size());
  if (o.provider >= 0 && o.provider < np) {
    const Provider& runs = s.providers[static_cast<size_t>(o.provider)];
    const std::string& t = o.instance_type;
    for (const AccessFact& f : runs.access_exceptions)
      if (t.size() >= f.match.size() && t.compare(0, f.match.size(), f.match) == 0) return f;
  }
  const int seller = o.via >= 0 && o.via < np ? o.via : o.provider;
  static const AccessFact kUnknown;
  return seller >= 0 && seller < np ? s.providers[static_cast<size_t>(seller)].access : kUnknown;
}

std::optional<int> days_between(std::string_view from, std::string_view to) {
  auto a = detail::parse_iso_day(from), b = detail::parse_iso_day(to);
  if (!a || !b) return std::nullopt;
  return static_cast<int>(*b - *a);
}

// ---------------------------------------------------------------- loading

namespace detail {

Error first_error(const SnapshotReport& r, const char* none) {
  if (r.errors.empty()) return Error{"", none};
  Error e = r.errors.front();
  const size_t n = r.errors.size() + static_cast<size_t>(r.errors_dropped);
  if (n > 1) e.message += " (and " + std::to_string(n - 1) + " more errors)";
  return e;
}

}  // namespace detail

std::optional<Snapshot> load_snapshot_report(std::string_view text, const SnapshotLoadOptions& opt,
                                             SnapshotReport* report) {
  SnapshotReport local;
  SnapshotReport* r = report ? report : &local;
  *r = SnapshotReport{};
  std::vector<size_t> row_of;
  std::optional<Snapshot> s = detail::read_snapshot_json(text, opt, r, &row_of);
  if (!s || !detail::derive_snapshot_flags(*s, row_of, opt, r)) return std::nullopt;
  return s;
}

Result<Snapshot> load_snapshot(std::string_view json_text, const SnapshotLoadOptions& opt,
                               std::vector<Warning>* warnings) {
  SnapshotReport r;
  auto s = load_snapshot_report(json_text, opt, &r);
  if (warnings) warnings->insert(warnings->end(), r.warnings.begin(), r.warnings.end());
  if (!s) return detail::first_error(r, "snapshot refused");
  return std::move(*s);
}

Result<Snapshot> load_snapshot(std::string_view json_text, std::vector<Warning>* warnings) {
  return load_snapshot(json_text, SnapshotLoadOptions{}, warnings);
}

}  // namespace trainfit
