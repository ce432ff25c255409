// trainfit — `trainfit availability` (availability_cmd.h).
#include "availability_cmd.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>

#include "http_fetch.h"
#include "snapshot_store.h"

namespace trainfit::cli {
namespace {

constexpr uint64_t kMaxResponseBytes = 8u << 20;  // Lambda's full list is a few tens of KB

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

// The offers with capacity, one per line; the others counted (the JSON lists every offer).
void print_table(const StockReport& r, const Snapshot& snap, const std::vector<OfferStock>& st) {
  int in = 0, listed_none = 0, unlisted = 0;
  for (const auto& s : st) {
    in += s.in_stock;
    listed_none += s.listed && !s.in_stock;
    unlisted += !s.listed;
  }
  std::printf("%s: live stock checked %s (%s)\n%d of %zu offers sold directly have capacity in their region now:\n",
              r.provider.c_str(), r.checked_at.c_str(), r.source.c_str(), in, st.size());
  for (const auto& s : st)
    if (s.in_stock) {
      const Offer& o = snap.offers[static_cast<size_t>(s.offer)];
      std::printf("  %-48s %s\n", o.id.c_str(), offer_display_name(snap, o).c_str());
    }
  std::printf("%d listed without capacity in their region, %d not listed by the API: `trainfit rank --stock FILE` "
              "flags them no_live_stock (--launchable leaves them out)\n",
              listed_none, unlisted);
}

}  // namespace

int run_availability(const AvailabilityArgs& a, const Snapshot& snap) {
  const StockApi* api = find_stock_api(a.provider);
  if (!api) {
    std::fprintf(stderr, "trainfit: --provider: no live stock API for \"%s\" (known: %s)\n", a.provider.c_str(),
                 stock_api_names().c_str());
    return 2;
  }
  std::string body, source;
  if (!a.response_file.empty()) {
    if (!read_whole_file(a.response_file, &body)) {
      std::fprintf(stderr, "trainfit: --response: cannot read %s\n", a.response_file.c_str());
      return 2;
    }
    source = a.response_file;
  } else {
    const std::string env = a.key_env.empty() ? api->key_env : a.key_env;
    const char* key = std::getenv(env.c_str());
    if (!key || !*key) {
      std::printf("no API key in %s: the live stock of %s was not checked and nothing was changed (rankings use the "
                  "snapshot's access facts only)\n",
                  env.c_str(), api->provider);
      return 0;
    }
    source = a.url.empty() ? api->url : a.url;
    HttpOptions opt;
    opt.user_agent = "trainfit-availability/1";
    opt.headers.push_back(std::string("Authorization: Bearer ") + key);
    opt.keep_error_body = true;  // the API's error document says why (a bad key, a rate limit)
    std::string why;
    if (!http_get(source, kMaxResponseBytes, &body, &why, opt)) {
      // The API's own error document says more than the status (a bad key, a rate limit).
      Result<StockReport> e = parse_stock_response(a.provider, body, "", source);
      if (!e && e.error().field == "response.error") why += " (" + e.error().message + ")";
      std::fprintf(stderr, "trainfit: %s: %s; nothing was changed\n", source.c_str(), why.c_str());
      return 1;
    }
  }
  Result<StockReport> r = parse_stock_response(a.provider, body, now_utc(), source);
  if (!r) {
    std::fprintf(stderr, "trainfit: %s; nothing was changed\n", r.error().to_string().c_str());
    return 2;
  }
  const std::vector<OfferStock> st = offer_stock(snap, *r);
  if (a.format == "json") {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& s : st)
      rows.push_back({{"offer", snap.offers[static_cast<size_t>(s.offer)].id}, {"listed", s.listed}, {"in_stock", s.in_stock}});
    std::printf("%s\n", nlohmann::json{{"ok", true}, {"provider", r->provider}, {"checked_at", r->checked_at},
                                       {"source", r->source}, {"offers", rows}}
                            .dump()
                            .c_str());
  } else {
    print_table(*r, snap, st);
  }
  std::string why;
  if (!a.save.empty() && !write_file_atomically(a.save, stock_report_json(*r) + "\n", &why)) {
    std::fprintf(stderr, "trainfit: --save: %s\n", why.c_str());
    return 2;
  }
  return 0;
}

bool apply_stock_file(const std::string& path, Snapshot* snap, std::string* why) {
  std::string text;
  if (!read_whole_file(path, &text)) {
    *why = "cannot read " + path;
    return false;
  }
  Result<StockReport> r = read_stock_report(text);
  if (!r) {
    *why = r.error().to_string();
    return false;
  }
  const std::vector<OfferStock> st = apply_stock(*snap, *r);
  int none = 0;
  for (const auto& s : st) none += !s.in_stock;
  std::fprintf(stderr, "trainfit: live stock of %s checked %s: %d of %zu offers flagged no_live_stock\n",
               r->provider.c_str(), r->checked_at.c_str(), none, st.size());
  return true;
}

}  // namespace trainfit::cli
