// trainfit core — live stock (market/stock.h): the providers' responses read, saved and applied to a snapshot.
#include "trainfit/market/stock.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace trainfit {

namespace {

using json = nlohmann::json;

constexpr size_t kMaxEntries = 100000;
constexpr size_t kMaxName = 256;
constexpr size_t kMaxRegions = 1000;

// Lambda Cloud API, GET /instance-types: {"data": {"<type>": {"instance_type": {"name": ...}, "regions_with_capacity_
// available": [{"name": "us-east-1", "description": ...}, ...]}}}, "the regions, if any, in which each instance type
// is currently available"; errors as {"error": {"code": ..., "message": ...}}. Auth: the API key as a bearer token.
constexpr StockApi kApis[] = {
    {"lambda", "https://cloud.lambdalabs.com/api/v1/instance-types", "LAMBDA_API_KEY",
     "Lambda Cloud API docs, https://cloud.lambdalabs.com/api/v1/docs (GET /instance-types, "
     "regions_with_capacity_available)"},
};

Error bad(const std::string& field, const std::string& why) { return Error{field, why}; }

// A name from the response: a string of 1-256 bytes without control characters (it is printed and saved).
bool good_name(const json& v, std::string* out) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > kMaxName) return false;
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return false;
  *out = s;
  return true;
}

Result<StockReport> parse_lambda(const json& doc, StockReport r) {
  if (doc.contains("error") && doc["error"].is_object()) {
    const json& e = doc["error"];
    std::string code, message;
    good_name(e.value("code", json()), &code);
    if (e.contains("message") && e["message"].is_string()) message = e["message"].get<std::string>().substr(0, 300);
    return bad("response.error", "the Lambda API answered " + (code.empty() ? std::string("an error") : code) +
                                     (message.empty() ? "" : ": " + message));
  }
  if (!doc.contains("data") || !doc["data"].is_object()) return bad("response.data", "missing or not an object");
  const json& data = doc["data"];
  if (data.size() > kMaxEntries) return bad("response.data", "more than 100,000 instance types");
  for (auto it = data.begin(); it != data.end(); ++it) {
    const std::string at = "response.data." + it.key().substr(0, kMaxName);
    StockReport::Entry e;
    if (!good_name(json(it.key()), &e.instance_type)) return bad(at, "instance type name empty, over 256 bytes or not text");
    if (!it.value().is_object()) return bad(at, "expected an object");
    const json& regions = it.value().contains("regions_with_capacity_available")
                              ? it.value()["regions_with_capacity_available"]
                              : json();
    if (!regions.is_array()) return bad(at + ".regions_with_capacity_available", "missing or not an array");
    if (regions.size() > kMaxRegions) return bad(at + ".regions_with_capacity_available", "more than 1,000 regions");
    for (size_t i = 0; i < regions.size(); ++i) {
      std::string name;
      if (!regions[i].is_object() || !good_name(regions[i].value("name", json()), &name))
        return bad(at + ".regions_with_capacity_available[" + std::to_string(i) + "].name",
                   "missing, empty, over 256 bytes or not text");
      e.regions.push_back(std::move(name));
    }
    r.entries.push_back(std::move(e));
  }
  return r;
}

}  // namespace

const StockApi* find_stock_api(std::string_view provider) {
  for (const StockApi& a : kApis)
    if (provider == a.provider) return &a;
  return nullptr;
}

std::string stock_api_names() {
  std::string out;
  for (const StockApi& a : kApis) out += (out.empty() ? "" : ", ") + std::string(a.provider);
  return out;
}

Result<StockReport> parse_stock_response(std::string_view provider, std::string_view body, std::string checked_at,
                                         std::string source) {
  if (!find_stock_api(provider))
    return bad("provider", "no live stock API for \"" + std::string(provider.substr(0, 64)) + "\" (known: " +
                               stock_api_names() + ")");
  const json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return bad("response", "not a JSON object");
  StockReport r;
  r.provider = std::string(provider);
  r.checked_at = std::move(checked_at);
  r.source = std::move(source);
  return parse_lambda(doc, std::move(r));
}

std::string stock_report_json(const StockReport& r) {
  json entries = json::array();
  for (const auto& e : r.entries) entries.push_back({{"instance_type", e.instance_type}, {"regions", e.regions}});
  return json{{"format", "trainfit-stock-1"}, {"provider", r.provider}, {"checked_at", r.checked_at},
              {"source", r.source}, {"entries", entries}}
      .dump(1);
}

Result<StockReport> read_stock_report(std::string_view text) {
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return bad("stock", "not a JSON object");
  if (doc.value("format", json()) != "trainfit-stock-1")
    return bad("stock.format", "expected \"trainfit-stock-1\" (a file saved by trainfit availability --save)");
  StockReport r;
  if (!good_name(doc.value("provider", json()), &r.provider) || !find_stock_api(r.provider))
    return bad("stock.provider", "expected one of: " + stock_api_names());
  if (!good_name(doc.value("checked_at", json()), &r.checked_at)) return bad("stock.checked_at", "missing or not text");
  good_name(doc.value("source", json()), &r.source);
  const json& entries = doc.contains("entries") ? doc["entries"] : json();
  if (!entries.is_array()) return bad("stock.entries", "missing or not an array");
  if (entries.size() > kMaxEntries) return bad("stock.entries", "more than 100,000 entries");
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string at = "stock.entries[" + std::to_string(i) + "]";
    const json& e = entries[i];
    StockReport::Entry out;
    if (!e.is_object() || !good_name(e.value("instance_type", json()), &out.instance_type))
      return bad(at + ".instance_type", "missing, empty, over 256 bytes or not text");
    const json& regions = e.contains("regions") ? e["regions"] : json();
    if (!regions.is_array() || regions.size() > kMaxRegions)
      return bad(at + ".regions", "missing, not an array or over 1,000 regions");
    for (size_t k = 0; k < regions.size(); ++k) {
      std::string name;
      if (!good_name(regions[k], &name))
        return bad(at + ".regions[" + std::to_string(k) + "]", "empty, over 256 bytes or not text");
      out.regions.push_back(std::move(name));
    }
    r.entries.push_back(std::move(out));
  }
  return r;
}

std::vector<OfferStock> offer_stock(const Snapshot& s, const StockReport& r) {
  std::vector<OfferStock> out;
  const int p = s.find_provider(r.provider);
  if (p < 0) return out;
  for (size_t i = 0; i < s.offers.size(); ++i) {
    const Offer& o = s.offers[i];
    if (o.provider != p || o.via >= 0) continue;
    OfferStock st;
    st.offer = static_cast<int>(i);
    const bool any_region = o.region == kAnyRegion;  // in stock wherever the type has capacity
    for (const auto& e : r.entries) {
      if (e.instance_type != o.instance_type) continue;
      st.listed = true;
      const bool here = any_region ? !e.regions.empty()
                                   : std::find(e.regions.begin(), e.regions.end(), o.region) != e.regions.end();
      st.in_stock = st.in_stock || here;
    }
    out.push_back(st);
  }
  return out;
}

std::vector<OfferStock> apply_stock(Snapshot& s, const StockReport& r) {
  std::vector<OfferStock> out = offer_stock(s, r);
  for (const OfferStock& st : out) {
    uint32_t& flags = s.offers[static_cast<size_t>(st.offer)].flags;
    flags = st.in_stock ? (flags & ~static_cast<uint32_t>(kFlagNoLiveStock)) : (flags | kFlagNoLiveStock);
  }
  return out;
}

}  // namespace trainfit
