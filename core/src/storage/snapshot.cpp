// trainfit core — the price snapshot: strict loader and validator (the serializer is snapshot_writer.cpp, the
// binary form snapshot_binary.cpp).
// The document format is specified in data/snapshot.schema.json and docs/snapshot.md. The loader must
// survive arbitrary (fuzzed) input: it bounds the input size and nesting depth before parsing, never lets an
// exception escape, and collects every problem with its JSON pointer instead of stopping at the first.
#include "trainfit/storage/snapshot.h"

#include <algorithm>
#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "base/json_reader.h"
#include "storage/snapshot_internal.h"

namespace trainfit {

using nlohmann::json;

// ---------------------------------------------------------------- names and small helpers

namespace {
struct LinkName { LinkClass c; const char* name; };
constexpr LinkName kLinkNames[] = {
    {LinkClass::none, "none"},           {LinkClass::pcie, "pcie"},
    {LinkClass::nvlink_bridge, "nvlink_bridge"}, {LinkClass::nvlink, "nvlink"},
    {LinkClass::nvswitch, "nvswitch"},   {LinkClass::infinity_fabric, "infinity_fabric"},
};
struct NetName { NetKind k; const char* name; };
constexpr NetName kNetNames[] = {
    {NetKind::none, "none"}, {NetKind::ethernet, "ethernet"}, {NetKind::roce, "roce"},
    {NetKind::efa, "efa"},   {NetKind::infiniband, "infiniband"}, {NetKind::tcpx, "tcpx"},
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
};

std::string fmt_num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
}  // namespace

const char* link_class_name(LinkClass c) {
  for (const auto& n : kLinkNames)
    if (n.c == c) return n.name;
  return "none";
}
const char* net_kind_name(NetKind k) {
  for (const auto& n : kNetNames)
    if (n.k == k) return n.name;
  return "none";
}
std::optional<LinkClass> parse_link_class(std::string_view s) {
  for (const auto& n : kLinkNames)
    if (s == n.name) return n.c;
  return std::nullopt;
}
std::optional<NetKind> parse_net_kind(std::string_view s) {
  for (const auto& n : kNetNames)
    if (s == n.name) return n.k;
  return std::nullopt;
}
const char* offer_flag_name(OfferFlag f) {
  for (const auto& n : kFlagNames)
    if (n.f == f) return n.name;
  return "unknown";
}
const char* offer_flag_code(OfferFlag f) {
  for (const auto& n : kFlagNames)
    if (n.f == f) return n.code;
  return "?";
}
const char* offer_flag_meaning(OfferFlag f) {
  for (const auto& n : kFlagNames)
    if (n.f == f) return n.meaning;
  return "unknown flag";
}
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

const char* access_name(Access a) {
  switch (a) {
    case Access::unknown: return "unknown";
    case Access::self_serve: return "self_serve";
    case Access::quota_request: return "quota_request";
    case Access::reservation_only: return "reservation_only";
    case Access::sales_contact: return "sales_contact";
  }
  return "unknown";
}
const char* access_label(Access a) {
  switch (a) {
    case Access::unknown: return "unknown";
    case Access::self_serve: return "self-serve";
    case Access::quota_request: return "quota request";
    case Access::reservation_only: return "reservation only";
    case Access::sales_contact: return "contact sales";
  }
  return "unknown";
}
std::optional<Access> parse_access(std::string_view s) {
  for (Access a : {Access::unknown, Access::self_serve, Access::quota_request, Access::reservation_only, Access::sales_contact})
    if (s == access_name(a)) return a;
  return std::nullopt;
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
    if (rv.terms.empty()) return Error{p + "/terms", "at least one bookable duration step"};
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

// Civil-date arithmetic: days_from_civil from H. Hinnant, "chrono-Compatible Low-Level Date Algorithms"
// (howardhinnant.github.io/date_algorithms.html), valid for the proleptic Gregorian calendar.
static std::optional<long> parse_iso_day(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  auto digits = [&](size_t a, size_t n) -> long {
    long v = 0;
    for (size_t i = a; i < a + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return -1;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  long y = digits(0, 4), m = digits(5, 2), d = digits(8, 2);
  if (y < 1900 || m < 1 || m > 12 || d < 1) return std::nullopt;
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (d > mdays[m - 1] + (m == 2 && leap ? 1 : 0)) return std::nullopt;
  y -= m <= 2;
  const long era = y / 400;
  const long yoe = y - era * 400;
  const long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

std::optional<int> days_between(std::string_view from, std::string_view to) {
  auto a = parse_iso_day(from), b = parse_iso_day(to);
  if (!a || !b) return std::nullopt;
  return static_cast<int>(*b - *a);
}

// ---------------------------------------------------------------- validation context

namespace {

// The offer columns (Col, kColNames) are in snapshot_internal.h: the serializer (snapshot_writer.cpp) writes them.
using namespace detail;  // Col and its enumerators (cId, cProvider, ...), kColNames

// Bounds on sizes: anything beyond is "absurd" and refused (also bounds memory under fuzzing).
constexpr size_t kMaxGpus = 1000, kMaxProviders = 500, kMaxOffers = 200000, kMaxSources = 500;
constexpr size_t kMaxString = 2000;
constexpr int kMaxDepth = 32;
constexpr double kMaxPrice = 10000;  // USD per instance-hour; no real instance is near this

// ---------------------------------------------------------------- reading the parsed document (RapidJSON)
// The parser and its small helpers are in json_reader.h: the model catalog reads with them too.
using jsonr::find_member;
using jsonr::JValue;
using jsonr::parse_json;
using jsonr::SizeType;
using jsonr::text_of;
using jsonr::type_name;

// A value as nlohmann::json::dump() printed it (only for the schema_version message; bounded by the depth check).
json to_nlohmann(const JValue& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType: return nullptr;
    case rapidjson::kFalseType: return false;
    case rapidjson::kTrueType: return true;
    case rapidjson::kStringType: return std::string(text_of(v));
    case rapidjson::kNumberType:
      if (v.IsUint64()) return v.GetUint64();
      if (v.IsInt64()) return v.GetInt64();
      return v.GetDouble();
    case rapidjson::kArrayType: {
      json a = json::array();
      for (SizeType i = 0; i < v.Size(); ++i) a.push_back(to_nlohmann(v[i]));
      return a;
    }
    case rapidjson::kObjectType: {
      json o = json::object();
      const auto members = v.MemberBegin();
      for (SizeType i = 0; i < v.MemberCount(); ++i)
        o[std::string(text_of(members[i].name))] = to_nlohmann(members[i].value);  // the last duplicate wins
      return o;
    }
  }
  return nullptr;
}

class Ctx {
 public:
  Ctx(SnapshotReport* r, int max_errors) : r_(r), max_(max_errors) {}
  void error(std::string ptr, std::string msg) {
    if (static_cast<int>(r_->errors.size()) >= max_) {
      ++r_->errors_dropped;
      return;
    }
    r_->errors.push_back({std::move(ptr), std::move(msg)});
  }
  void warn(std::string ptr, std::string code, std::string msg) {
    r_->warnings.push_back({std::move(ptr), std::move(code), std::move(msg)});
  }
  bool has_errors() const { return !r_->errors.empty() || r_->errors_dropped > 0; }

  // A member of an object; reports missing/mistyped and returns nullptr.
  const JValue* member(const JValue& obj, const char* key, const std::string& ptr) {
    const JValue* v = find_member(obj, key);
    if (!v) error(ptr + "/" + key, "missing required field");
    return v;
  }
  bool str(const JValue& obj, const char* key, const std::string& ptr, std::string* out, bool required = true,
           bool nonempty = false) {
    const JValue* v = find_member(obj, key);
    if (!v) {
      if (required) error(ptr + "/" + key, "missing required field");
      return !required;
    }
    if (!v->IsString()) {
      error(ptr + "/" + key, std::string("expected a string, got ") + type_name(*v));
      return false;
    }
    const std::string_view s = text_of(*v);
    if (s.size() > kMaxString) {
      error(ptr + "/" + key, "string longer than " + std::to_string(kMaxString) + " characters");
      return false;
    }
    if (nonempty && s.empty()) {
      error(ptr + "/" + key, "must not be empty");
      return false;
    }
    out->assign(s);
    return true;
  }
  // Number in [lo, hi]. With `nullable`, JSON null (or absence when !required) gives -1 ("unknown").
  bool num(const JValue& obj, const char* key, const std::string& ptr, double* out, double lo, double hi,
           bool required = true, bool nullable = false) {
    const JValue* v = find_member(obj, key);
    if (!v) {
      if (required) {
        error(ptr + "/" + key, "missing required field");
        return false;
      }
      if (nullable) *out = -1;
      return true;
    }
    return num_value(*v, [&] { return ptr + "/" + key; }, out, lo, hi, nullable);
  }
  // `where()` gives the value's JSON pointer; it is only called when there is something to report.
  template <class Where>
  bool num_value(const JValue& v, const Where& where, double* out, double lo, double hi, bool nullable) {
    if (v.IsNull() && nullable) {
      *out = -1;
      return true;
    }
    if (!v.IsNumber()) {
      error(where(), std::string("expected a number") + (nullable ? " or null" : "") + ", got " + type_name(v));
      return false;
    }
    const double d = v.GetDouble();
    if (!std::isfinite(d)) {
      error(where(), "number is not finite");
      return false;
    }
    if (d < lo || d > hi) {
      error(where(), (d < 0 && lo >= 0 ? "negative value " : "value out of range: ") + fmt_num(d) +
                         " (allowed " + fmt_num(lo) + " .. " + fmt_num(hi) + ")");
      return false;
    }
    *out = d;
    return true;
  }
  bool integer(const JValue& obj, const char* key, const std::string& ptr, int* out, int lo, int hi,
               bool required = true) {
    const JValue* v = find_member(obj, key);
    if (!v) {
      if (required) error(ptr + "/" + key, "missing required field");
      return !required;
    }
    return int_value(*v, [&] { return ptr + "/" + key; }, out, lo, hi);
  }
  template <class Where>
  bool int_value(const JValue& v, const Where& where, int* out, int lo, int hi) {
    if (!v.IsNumber()) {
      error(where(), std::string("expected an integer, got ") + type_name(v));
      return false;
    }
    const double d = v.GetDouble();
    if (!std::isfinite(d) || d != std::floor(d)) {
      error(where(), "expected an integer, got " + fmt_num(d));
      return false;
    }
    if (d < lo || d > hi) {
      error(where(), "value out of range: " + fmt_num(d) + " (allowed " + std::to_string(lo) + " .. " +
                         std::to_string(hi) + ")");
      return false;
    }
    *out = static_cast<int>(d);
    return true;
  }
  bool boolean(const JValue& obj, const char* key, const std::string& ptr, bool* out, bool required = true) {
    const JValue* v = find_member(obj, key);
    if (!v) {
      if (required) error(ptr + "/" + key, "missing required field");
      return !required;
    }
    if (!v->IsBool()) {
      error(ptr + "/" + key, std::string("expected true/false, got ") + type_name(*v));
      return false;
    }
    *out = v->GetBool();
    return true;
  }
  bool date(const JValue& obj, const char* key, const std::string& ptr, std::string* out, bool required = true) {
    std::string s;
    if (!required && !find_member(obj, key)) return true;
    if (!str(obj, key, ptr, &s)) return false;
    if (!parse_iso_day(s)) {
      error(ptr + "/" + key, "not a valid ISO date (YYYY-MM-DD): \"" + s.substr(0, 40) + "\"");
      return false;
    }
    *out = s;
    return true;
  }
  const JValue* array(const JValue& obj, const char* key, const std::string& ptr, size_t max_n,
                      bool required = true) {
    const JValue* v = find_member(obj, key);
    if (!v) {
      if (required) error(ptr + "/" + key, "missing required field");
      return nullptr;
    }
    if (!v->IsArray()) {
      error(ptr + "/" + key, std::string("expected an array, got ") + type_name(*v));
      return nullptr;
    }
    if (v->Size() > max_n) {
      error(ptr + "/" + key, "absurd size: " + std::to_string(v->Size()) + " entries (at most " +
                                 std::to_string(max_n) + ")");
      return nullptr;
    }
    return v;
  }
  bool object(const JValue& v, const std::string& ptr) {
    if (!v.IsObject()) {
      error(ptr, std::string("expected an object, got ") + type_name(v));
      return false;
    }
    return true;
  }

 private:
  SnapshotReport* r_;
  int max_;
};

std::string idx(const std::string& base, size_t i) { return base + "/" + std::to_string(i); }
// Element i of an array (the caller has checked IsArray() and the size).
const JValue& at(const JValue& a, size_t i) { return a[static_cast<SizeType>(i)]; }

[[gnu::noinline]] void read_gpu(Ctx& c, const JValue& v, const std::string& p, GpuSpec* g) {
  if (!c.object(v, p)) return;
  c.str(v, "id", p, &g->id, true, true);
  c.str(v, "name", p, &g->name, true, true);
  c.str(v, "vendor", p, &g->vendor);
  c.str(v, "arch", p, &g->arch);
  c.integer(v, "year", p, &g->year, 1990, 2100);
  c.num(v, "memory_bytes", p, &g->memory_bytes, 1e8, 1e13);  // 100 MB .. 10 TB per device
  // The driver-reported capacity (what a fit is judged against): optional for snapshots written before it
  // existed, which then fall back to the datasheet label with a warning; never above the label + 10%.
  if (find_member(v, "cuda_memory_bytes")) {
    c.num(v, "cuda_memory_bytes", p, &g->cuda_memory_bytes, 1e8, 1e13);
    c.str(v, "cuda_memory_source", p, &g->cuda_memory_source, true, true);
    if (g->memory_bytes > 0 && g->cuda_memory_bytes > g->memory_bytes * 1.1)
      c.error(p + "/cuda_memory_bytes", "more than 10% above the datasheet's memory_bytes: check the unit (bytes)");
  } else {
    c.warn(p + "/cuda_memory_bytes", "cuda_memory_missing",
           "no driver-reported capacity: fits are judged against the datasheet figure (memory_bytes)");
  }
  c.num(v, "mem_bandwidth_GBps", p, &g->mem_bandwidth_GBps, 0, 1e5);
  c.num(v, "tflops_fp32", p, &g->tflops_fp32, 0, 1e5);
  c.num(v, "tflops_tf32", p, &g->tflops_tf32, 0, 1e5);
  c.num(v, "tflops_bf16", p, &g->tflops_bf16, 0, 1e5);
  c.num(v, "tflops_fp16", p, &g->tflops_fp16, 0, 1e5);
  c.num(v, "tflops_fp8", p, &g->tflops_fp8, 0, 1e5);
  c.integer(v, "nvlink_gen", p, &g->nvlink_gen, 0, 20);
  c.num(v, "nvlink_GBps", p, &g->nvlink_GBps, 0, 1e5);
  c.integer(v, "pcie_gen", p, &g->pcie_gen, 0, 20);
  c.num(v, "tdp_w", p, &g->tdp_w, 0, 1e5);
  c.str(v, "source", p, &g->source, true, true);
  c.str(v, "source_status", p, &g->source_status, true, true);
  c.boolean(v, "spec_incomplete", p, &g->spec_incomplete, false);
  c.str(v, "spec_note", p, &g->spec_note, false);
  c.boolean(v, "estimated_spec", p, &g->estimated_spec, false);
  c.str(v, "estimated_note", p, &g->estimated_note, false);
  if (g->estimated_spec && g->estimated_note.empty())
    c.error(p + "/estimated_note", "a GPU marked estimated_spec must say which figures are estimated and how");
  if (g->spec_incomplete && g->spec_note.empty())
    c.error(p + "/spec_note", "a GPU marked spec_incomplete must say which figure is missing and why");
  // The estimator divides by the dense 16-bit rate; a zero there must be declared, not silent.
  if (!g->spec_incomplete && g->tflops_bf16 <= 0 && g->tflops_fp16 <= 0)
    c.error(p + "/tflops_fp16", "no dense 16-bit tensor rate and spec_incomplete is not set");
  if (!g->spec_incomplete && g->mem_bandwidth_GBps <= 0)
    c.error(p + "/mem_bandwidth_GBps", "memory bandwidth is 0 and spec_incomplete is not set");
}

void read_billing(Ctx& c, const JValue& v, const std::string& p, BillingRule* b, bool need_match) {
  if (!c.object(v, p)) return;
  c.str(v, "match", p, &b->match, need_match, need_match);
  c.num(v, "increment_s", p, &b->increment_s, 1e-3, 31 * 86400.0);
  c.num(v, "minimum_s", p, &b->minimum_s, 0, 31 * 86400.0);
  c.str(v, "note", p, &b->note, false);
  c.str(v, "source", p, &b->source, true, true);
}

[[gnu::noinline]] void read_provider(Ctx& c, const JValue& v, const std::string& p, Provider* pr) {
  if (!c.object(v, p)) return;
  c.str(v, "id", p, &pr->id, true, true);
  c.str(v, "name", p, &pr->name, true, true);
  c.date(v, "capture_date", p, &pr->capture_date);
  c.str(v, "catalog_source", p, &pr->catalog_source, true, true);
  if (const JValue* b = c.member(v, "billing", p)) read_billing(c, *b, p + "/billing", &pr->billing, false);
  if (const JValue* ex = c.array(v, "billing_exceptions", p, 100, false)) {
    pr->billing_exceptions.resize(ex->Size());
    for (size_t i = 0; i < ex->Size(); ++i)
      read_billing(c, at(*ex, i), idx(p + "/billing_exceptions", i), &pr->billing_exceptions[i], true);
  }
  c.num(v, "provision_s", p, &pr->provision_s, 0, 86400);
  c.boolean(v, "bills_provisioning", p, &pr->bills_provisioning);
  c.str(v, "provision_source", p, &pr->provision_source, true, true);
  if (const JValue* s = c.member(v, "spot", p)) {
    const std::string sp = p + "/spot";
    if (c.object(*s, sp)) {
      c.boolean(*s, "available", sp, &pr->spot.available);
      c.str(*s, "pricing", sp, &pr->spot.pricing, true);
      // "" = how the spot price is set is not published (Crusoe, Prime Intellect): the source says so.
      if (pr->spot.available && !pr->spot.pricing.empty() && pr->spot.pricing != "market" &&
          pr->spot.pricing != "fixed_discount" && pr->spot.pricing != "bid")
        c.error(sp + "/pricing", "expected \"market\", \"fixed_discount\", \"bid\" or \"\" (not published)");
      c.num(*s, "interruption_rate_per_h", sp, &pr->spot.interruption_rate_per_h, 0, 100, true, true);
      c.num(*s, "notice_s", sp, &pr->spot.notice_s, 0, 86400, true, true);
      c.boolean(*s, "early_preemption_free", sp, &pr->spot.early_preemption_free);
      c.num(*s, "free_window_s", sp, &pr->spot.free_window_s, 0, 86400);
      c.str(*s, "source", sp, &pr->spot.source, true, true);
    }
  }
  c.num(v, "storage_usd_per_GB_month", p, &pr->storage_usd_per_GB_month, 0, 100, true, true);
  c.num(v, "storage_read_MBps", p, &pr->storage_read_MBps, 0, 1e6, true, true);
  c.num(v, "storage_write_MBps", p, &pr->storage_write_MBps, 0, 1e6, true, true);
  c.str(v, "storage_source", p, &pr->storage_source, true, true);
  c.num(v, "egress_usd_per_GB", p, &pr->egress_usd_per_GB, 0, 100, true, true);
  c.str(v, "egress_source", p, &pr->egress_source, true, true);
  c.num(v, "network_download_MBps", p, &pr->network_download_MBps, 0, 1e6, true, true);
  c.str(v, "notes", p, &pr->notes, false);
  // Availability facts: optional (an older snapshot has none: every offer reads "unknown").
  auto access = [&](const JValue& a, const std::string& ap, AccessFact* f, bool with_match) {
    if (!c.object(a, ap)) return;
    if (with_match) c.str(a, "match", ap, &f->match, true, true);
    std::string how;
    if (c.str(a, "how", ap, &how, true)) {
      if (auto h = parse_access(how)) f->how = *h;
      else c.error(ap + "/how", "expected \"self_serve\", \"quota_request\", \"reservation_only\", \"sales_contact\" or \"unknown\"");
    }
    c.str(a, "detail", ap, &f->detail, false);
    c.str(a, "quota", ap, &f->quota, false);
    c.str(a, "max_cluster", ap, &f->max_cluster, false);
    c.str(a, "source", ap, &f->source, false);
    c.str(a, "date", ap, &f->date, false);
  };
  if (const JValue* a = find_member(v, "access")) access(*a, p + "/access", &pr->access, false);
  if (const JValue* ex = c.array(v, "access_exceptions", p, 100, false)) {
    pr->access_exceptions.resize(ex->Size());
    for (size_t i = 0; i < ex->Size(); ++i)
      access(at(*ex, i), idx(p + "/access_exceptions", i), &pr->access_exceptions[i], true);
  }
}

// One reserved-capacity product (snapshot.h Reservation); its prices are matched to offers by attach_reservations.
[[gnu::noinline]] void read_reservation(Ctx& c, const JValue& v, const std::string& p, Reservation* rv) {
  if (!c.object(v, p)) return;
  c.str(v, "id", p, &rv->id, true, true);
  c.str(v, "provider", p, &rv->provider, true, true);
  c.str(v, "name", p, &rv->name, true, true);
  if (const JValue* ts = c.array(v, "terms", p, 8)) {
    if (ts->Size() == 0) c.error(p + "/terms", "at least one bookable duration step");
    rv->terms.resize(ts->Size());
    for (size_t i = 0; i < ts->Size(); ++i) {
      const std::string tp = idx(p + "/terms", i);
      const JValue& t = at(*ts, i);
      if (!c.object(t, tp)) continue;
      double up_to_h = 0, inc_h = 0;
      // Hours in the file; the longest booking is capped at 10 years.
      if (c.num(t, "up_to_h", tp, &up_to_h, 1e-3, 87660)) rv->terms[i].up_to_s = up_to_h * kHour_s;
      if (c.num(t, "increment_h", tp, &inc_h, 1e-3, 87660)) rv->terms[i].increment_s = inc_h * kHour_s;
    }
  }
  c.str(v, "start_time_utc", p, &rv->start_time_utc, false);
  c.integer(v, "max_instances", p, &rv->max_instances, 0, 100000, false);
  c.num(v, "book_ahead_days", p, &rv->book_ahead_days, 0, 3660, false);
  c.boolean(v, "upfront", p, &rv->upfront);
  c.boolean(v, "cancellable", p, &rv->cancellable);
  c.date(v, "capture_date", p, &rv->capture_date);
  c.str(v, "source", p, &rv->source, true, true);
  c.str(v, "note", p, &rv->note, false);
  if (const JValue* ps = c.array(v, "prices", p, kMaxOffers)) {
    rv->prices.resize(ps->Size());
    for (size_t i = 0; i < ps->Size(); ++i) {
      const std::string pp = idx(p + "/prices", i);
      const JValue& x = at(*ps, i);
      if (!c.object(x, pp)) continue;
      c.str(x, "offer", pp, &rv->prices[i].offer, true, true);
      c.num(x, "usd_per_h", pp, &rv->prices[i].usd_per_h, 0, kMaxPrice);
    }
  }
}

struct OfferCells {
  // Column index of each known column (-1 = absent).
  int at[kColCount];
};

// Reads one offer row; returns false if the row is unusable.
// GPU or provider id -> index. The views point into the Snapshot's own id strings, which stay put while it is read.
using IdIndex = std::unordered_map<std::string_view, int>;

// The JSON pointer of offer row `i` (built only for messages: most rows never need one).
std::string row_pointer(size_t i) { return idx("/offers/rows", i); }

// One shared copy of each distinct instance type, region, zone and date (SharedStr). The views point into the
// parsed document, alive while the offers are read.
class StringPool {
 public:
  const SharedStr& get(std::string_view v) {
    auto [it, added] = map_.try_emplace(v);
    if (added) it->second = SharedStr(v);
    return it->second;
  }

 private:
  std::unordered_map<std::string_view, SharedStr> map_;
};

[[gnu::noinline]] bool read_offer(Ctx& c, const JValue& row, size_t row_index, const OfferCells& cols, size_t ncols,
                                  const IdIndex& gpu_ix, const IdIndex& prov_ix, StringPool& pool, Offer* o) {
  const auto p = [&] { return row_pointer(row_index); };
  if (!row.IsArray()) {
    c.error(p(), std::string("expected an array (one cell per column), got ") + type_name(row));
    return false;
  }
  if (row.Size() != ncols) {
    c.error(p(), "row has " + std::to_string(row.Size()) + " cells, the header has " + std::to_string(ncols));
    return false;
  }
  bool ok = true;
  auto cell = [&](Col k) -> const JValue* {
    return cols.at[k] < 0 ? nullptr : &at(row, static_cast<size_t>(cols.at[k]));
  };
  auto cptr = [&](Col k) { return p() + "/" + std::to_string(cols.at[k]); };
  // A string cell, checked; `put` takes it.
  auto text = [&](Col k, bool nonempty, const auto& put) {
    const JValue* v = cell(k);
    if (!v) return true;  // optional column absent
    if (!v->IsString()) {
      c.error(cptr(k), std::string(kColNames[k]) + ": expected a string, got " + type_name(*v));
      ok = false;
      return false;
    }
    const std::string_view str = text_of(*v);
    if (str.size() > kMaxString || (nonempty && str.empty())) {
      c.error(cptr(k), std::string(kColNames[k]) + (str.empty() ? ": must not be empty" : ": string too long"));
      ok = false;
      return false;
    }
    put(str);
    return true;
  };
  auto s = [&](Col k, std::string* out, bool nonempty) {
    return text(k, nonempty, [&](std::string_view str) { out->assign(str); });
  };
  auto shared = [&](Col k, SharedStr* out, bool nonempty) {
    return text(k, nonempty, [&](std::string_view str) { *out = pool.get(str); });
  };
  auto n = [&](Col k, double* out, double lo, double hi, bool nullable) {
    const JValue* v = cell(k);
    if (!v) return true;
    if (!c.num_value(*v, [&] { return cptr(k); }, out, lo, hi, nullable)) ok = false;
    return true;
  };
  auto i = [&](Col k, int* out, int lo, int hi) {
    const JValue* v = cell(k);
    if (!v) return true;
    if (!c.int_value(*v, [&] { return cptr(k); }, out, lo, hi)) ok = false;
    return true;
  };

  std::string prov, via, gpu, link, net;
  s(cId, &o->id, true);
  s(cProvider, &prov, true);
  if (const JValue* v = cell(cVia); v && !v->IsNull()) s(cVia, &via, true);  // null = sold directly
  shared(cInstance, &o->instance_type, true);
  shared(cRegion, &o->region, false);
  shared(cZone, &o->zone, false);
  i(cZoneCount, &o->zone_count, 1, 1000);
  s(cGpu, &gpu, true);
  i(cGpuCount, &o->gpu_count, 1, 1024);
  n(cVcpus, &o->vcpus, 0, 100000, true);
  double ram_gib = -1, disk_gb = -1;
  n(cRamGiB, &ram_gib, 0, 1e5, true);
  n(cDiskGB, &disk_gb, 0, 1e7, true);
  o->host_ram_bytes = ram_gib < 0 ? 0 : ram_gib * kGiB;
  o->local_disk_bytes = disk_gb < 0 ? 0 : disk_gb * kGB;
  if (s(cIntraLink, &link, true) && cell(cIntraLink)) {
    if (auto lc = parse_link_class(link)) o->intra_link = *lc;
    else { c.error(cptr(cIntraLink), "unknown intra-node link class \"" + link.substr(0, 40) + "\""); ok = false; }
  }
  n(cIntraGBps, &o->intra_link_GBps, 0, 1e5, false);
  if (s(cInterNet, &net, true) && cell(cInterNet)) {
    if (auto nk = parse_net_kind(net)) o->inter_net = *nk;
    else { c.error(cptr(cInterNet), "unknown inter-node network kind \"" + net.substr(0, 40) + "\""); ok = false; }
  }
  n(cInterGbps, &o->inter_net_Gbps, 0, 1e6, false);
  i(cMaxNodes, &o->max_nodes, 1, 100000);
  n(cPrice, &o->price_usd_per_h, 0, kMaxPrice, true);
  n(cSpot, &o->spot_usd_per_h, 0, kMaxPrice, true);
  n(cSpotMax, &o->spot_max_usd_per_h, 0, kMaxPrice, true);
  n(cHost, &o->host_usd_per_h, 0, kMaxPrice, true);
  n(cAccel, &o->accel_usd_per_h, 0, kMaxPrice, true);
  if (const JValue* v = cell(cCapture)) {
    if (v->IsString() && parse_iso_day(text_of(*v))) o->capture_date = pool.get(text_of(*v));
    else { c.error(cptr(cCapture), "capture_date: not a valid ISO date (YYYY-MM-DD)"); ok = false; }
  }
  int flags = 0;
  i(cFlags, &flags, 0, static_cast<int>(detail::kAllOfferFlags));
  o->flags = static_cast<uint32_t>(flags);

  if (!prov.empty()) {
    auto it = prov_ix.find(std::string_view(prov));
    if (it == prov_ix.end()) { c.error(cptr(cProvider), "unknown provider \"" + prov.substr(0, 60) + "\""); ok = false; }
    else o->provider = it->second;
  }
  if (!via.empty()) {
    auto it = prov_ix.find(std::string_view(via));
    if (it == prov_ix.end()) { c.error(cptr(cVia), "via: unknown provider \"" + via.substr(0, 60) + "\""); ok = false; }
    else if (it->second == o->provider) { c.error(cptr(cVia), "via names the offer's own provider \"" + via.substr(0, 60) + "\""); ok = false; }
    else o->via = it->second;
  }
  if (!gpu.empty()) {
    auto it = gpu_ix.find(std::string_view(gpu));
    if (it == gpu_ix.end()) { c.error(cptr(cGpu), "unknown GPU \"" + gpu.substr(0, 60) + "\""); ok = false; }
    else o->gpu = it->second;
  }
  if (ok && o->price_usd_per_h < 0 && o->spot_usd_per_h < 0) {
    c.error(p(), "offer has neither an on-demand nor a spot price");
    ok = false;
  }
  if (ok && o->spot_max_usd_per_h >= 0 && o->spot_usd_per_h >= 0 && o->spot_max_usd_per_h < o->spot_usd_per_h) {
    c.error(cptr(cSpotMax), "spot_max_usd_per_h is below spot_usd_per_h");
    ok = false;
  }
  if (ok && o->host_usd_per_h >= 0 && o->accel_usd_per_h >= 0 && o->price_usd_per_h >= 0 &&
      std::fabs(o->host_usd_per_h + o->accel_usd_per_h - o->price_usd_per_h) > 1e-4 * (1 + o->price_usd_per_h)) {
    c.error(cptr(cPrice), "price_usd_per_h is not host_usd_per_h + accel_usd_per_h");
    ok = false;
  }
  return ok;
}

// NOTE(perf): the loops over offers live in functions of their own ([[gnu::noinline]]; web/CMakeLists.txt stops
// wasm-opt from inlining them back), apart from the long functions around them that run once
// (load_snapshot_report, derive_flags). V8 compiles a wasm function whose loops have run long enough again with
// its optimising compiler, on a background thread: with the row loop inside it, load_snapshot_report (12 KB of
// wasm) was compiled so during every page load, ~100 ms of a core the page needed to start, for a function
// that had already run (docs/performance.md, "Load time"). Small functions run per row are cheap to optimise.

// The offer rows, in order; unusable rows and duplicate ids are reported and left out.
[[gnu::noinline]] void read_offer_rows(Ctx& c, const JValue& rows, const OfferCells& oc, size_t ncols,
                                       const IdIndex& gpu_ix, const IdIndex& prov_ix, Snapshot* s,
                                       std::vector<size_t>* row_of) {
  // Offer ids seen so far, as views into the parsed document (alive while the caller reads it).
  std::unordered_set<std::string_view> seen;
  seen.reserve(rows.Size());
  StringPool pool;
  s->offers.reserve(rows.Size());
  row_of->reserve(rows.Size());
  for (size_t i = 0; i < rows.Size(); ++i) {
    Offer o;
    const JValue& row = at(rows, i);
    if (!read_offer(c, row, i, oc, ncols, gpu_ix, prov_ix, pool, &o)) continue;
    if (!seen.insert(text_of(row[static_cast<SizeType>(oc.at[cId])])).second) {
      c.error(row_pointer(i) + "/" + std::to_string(oc.at[cId]), "duplicate offer id \"" + o.id + "\"");
      continue;
    }
    s->offers.push_back(std::move(o));
    row_of->push_back(i);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Sets flag `f` on offer i and records its warning; `msg` writes the text. Out of line (see NOTE(perf) above):
// few offers are flagged, and the text building would otherwise sit in the loops' bodies.
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

namespace detail {

std::string gpu_flag_warning(const GpuSpec& g, OfferFlag f) {
  return f == kFlagSpecIncomplete ? "GPU spec incomplete: " + g.spec_note : "GPU figures estimated: " + g.estimated_note;
}

std::optional<Snapshot> read_snapshot_json(std::string_view text, const SnapshotLoadOptions& opt, SnapshotReport* r,
                                           std::vector<size_t>* row_of_out) {
  Ctx c(r, std::max(1, opt.max_errors));
  try {
    if (text.size() > opt.max_input_bytes) {
      c.error("", "document is " + std::to_string(text.size()) + " bytes, larger than the " +
                      std::to_string(opt.max_input_bytes) + "-byte limit");
      return std::nullopt;
    }
    // Nesting is checked on the raw text before RapidJSON builds anything: a hostile document of a million
    // '[' must cost one linear scan, not a million-entry parser stack.
    if (jsonr::json_nesting_exceeds(text, kMaxDepth)) {
      c.error("", "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
      return std::nullopt;
    }
    rapidjson::Document doc;
    std::string why;
    if (!parse_json(text, &doc, &why)) {
      c.error("", "not valid JSON (truncated or malformed): " + why);
      return std::nullopt;
    }
    if (!c.object(doc, "")) return std::nullopt;

    Snapshot s;
    const JValue* sv = c.member(doc, "schema_version", "");
    if (!sv) return std::nullopt;
    // An integer literal only, as nlohmann's is_number_integer(): 1.0 and 1e0 are doubles and refused.
    if (!sv->IsInt64() || sv->GetInt64() != kSnapshotSchemaVersion) {
      c.error("/schema_version", "unsupported schema_version " + to_nlohmann(*sv).dump().substr(0, 40) +
                                     " (this build reads " + std::to_string(kSnapshotSchemaVersion) + ")");
      return std::nullopt;  // nothing else can be trusted to mean what this build thinks
    }
    s.schema_version = kSnapshotSchemaVersion;
    c.str(doc, "id", "", &s.id, true, true);
    c.date(doc, "created", "", &s.created);
    c.str(doc, "currency", "", &s.currency, true);
    if (s.currency != "USD") c.error("/currency", "only USD snapshots are supported");

    if (const JValue* src = c.array(doc, "sources", "", kMaxSources)) {
      s.sources.resize(src->Size());
      for (size_t i = 0; i < src->Size(); ++i) {
        const std::string p = idx("/sources", i);
        const JValue& v = at(*src, i);
        if (!c.object(v, p)) continue;
        c.str(v, "id", p, &s.sources[i].id, true, true);
        c.str(v, "address", p, &s.sources[i].address, true, true);
        c.date(v, "capture_date", p, &s.sources[i].capture_date);
        c.str(v, "note", p, &s.sources[i].note, false);
      }
    }

    IdIndex gpu_ix, prov_ix;
    if (const JValue* gs = c.array(doc, "gpus", "", kMaxGpus)) {
      s.gpus.resize(gs->Size());
      for (size_t i = 0; i < gs->Size(); ++i) {
        read_gpu(c, at(*gs, i), idx("/gpus", i), &s.gpus[i]);
        if (s.gpus[i].id.empty()) continue;
        if (!gpu_ix.emplace(std::string_view(s.gpus[i].id), static_cast<int>(i)).second)
          c.error(idx("/gpus", i) + "/id", "duplicate GPU id \"" + s.gpus[i].id + "\"");
      }
    }
    if (const JValue* ps = c.array(doc, "providers", "", kMaxProviders)) {
      s.providers.resize(ps->Size());
      for (size_t i = 0; i < ps->Size(); ++i) {
        read_provider(c, at(*ps, i), idx("/providers", i), &s.providers[i]);
        if (s.providers[i].id.empty()) continue;
        if (!prov_ix.emplace(std::string_view(s.providers[i].id), static_cast<int>(i)).second)
          c.error(idx("/providers", i) + "/id", "duplicate provider id \"" + s.providers[i].id + "\"");
      }
    }

    std::vector<size_t> row_of;  // offer -> its row in the document (for warnings' pointers)
    if (const JValue* off = c.member(doc, "offers", "") ; off && c.object(*off, "/offers")) {
      const JValue* cols = c.array(*off, "columns", "/offers", 64);
      const JValue* rows = c.array(*off, "rows", "/offers", kMaxOffers);
      OfferCells oc;
      std::fill(std::begin(oc.at), std::end(oc.at), -1);
      bool header_ok = cols != nullptr;
      if (cols) {
        for (size_t k = 0; k < cols->Size(); ++k) {
          const JValue& name = at(*cols, k);
          if (!name.IsString()) {
            c.error(idx("/offers/columns", k), "column name must be a string");
            header_ok = false;
            continue;
          }
          const std::string nm(text_of(name));
          bool known = false;
          for (int j = 0; j < kColCount; ++j)
            if (nm == kColNames[j]) {
              if (oc.at[j] >= 0) { c.error(idx("/offers/columns", k), "duplicate column \"" + nm + "\""); header_ok = false; }
              oc.at[j] = static_cast<int>(k);
              known = true;
            }
          if (!known) c.warn(idx("/offers/columns", k), "unknown_column", "column \"" + nm.substr(0, 60) + "\" ignored");
        }
        for (Col req : {cId, cProvider, cInstance, cRegion, cGpu, cGpuCount, cPrice, cSpot, cCapture})
          if (oc.at[req] < 0) {
            c.error("/offers/columns", std::string("missing required column \"") + kColNames[req] + "\"");
            header_ok = false;
          }
      }
      if (header_ok && rows) read_offer_rows(c, *rows, oc, cols->Size(), gpu_ix, prov_ix, &s, &row_of);
    }
    if (const JValue* rs = c.array(doc, "reservations", "", kMaxProviders, false)) {
      s.reservations.resize(rs->Size());
      for (size_t i = 0; i < rs->Size(); ++i) read_reservation(c, at(*rs, i), idx("/reservations", i), &s.reservations[i]);
    }
    if (s.providers.empty() && !c.has_errors()) c.error("/providers", "no providers");
    if (c.has_errors()) return std::nullopt;
    std::vector<Warning> orphans;
    if (Result<bool> attached = attach_reservations(s, &orphans); !attached) {
      c.error(attached.error().field, attached.error().message);
      return std::nullopt;
    }
    for (Warning& w : orphans) c.warn(std::move(w.field), std::move(w.code), std::move(w.message));
    *row_of_out = std::move(row_of);
    return s;
  } catch (const std::exception& e) {
    c.error("", std::string("internal error while reading the snapshot: ") + e.what());
  } catch (...) {
    c.error("", "internal error while reading the snapshot");
  }
  return std::nullopt;
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
