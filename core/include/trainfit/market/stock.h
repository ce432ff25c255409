// trainfit core — live stock: what a provider's own API says it can launch now. `trainfit availability` (the CLI,
// with the user's own key; never the static page) reads the provider's response, and the ranking marks the offers
// the response lists without capacity in their region (storage/snapshot.h kFlagNoLiveStock: a flag, shown and
// explained on every row; `launchable` leaves them out). The bundled snapshot never carries it: a check is the
// user's, at one moment, and is saved with its time (stock_report_json) for `rank --stock`.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "trainfit/base/common.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {

// One provider's live answer: every instance type its API listed, with the regions that have capacity now.
struct StockReport {
  std::string provider;    // snapshot provider id ("lambda")
  std::string checked_at;  // when the response was read (ISO 8601 UTC, "2026-12-05T01:40:00Z")
  std::string source;      // the endpoint read (or the recorded file)
  struct Entry {
    std::string instance_type;
    std::vector<std::string> regions;  // with capacity now; empty = listed, none available
  };
  std::vector<Entry> entries;
};

// The providers whose live stock trainfit reads: the endpoint, the environment variable that holds the user's key,
// and the documentation the response format is taken from.
struct StockApi {
  const char* provider;
  const char* url;
  const char* key_env;
  const char* source;
};
const StockApi* find_stock_api(std::string_view provider);
std::string stock_api_names();  // "lambda" (for messages and help)

// The provider's response body, parsed. Refuses (field + reason) anything that is not the documented shape, an
// error document from the API (its code and message), more than 100,000 entries or names over 256 bytes.
Result<StockReport> parse_stock_response(std::string_view provider, std::string_view body, std::string checked_at,
                                         std::string source);

// A saved report (stock_report_json) read back, with the same limits.
Result<StockReport> read_stock_report(std::string_view json_text);
std::string stock_report_json(const StockReport& r);

// What a report says of each of the provider's offers sold directly (resold rows, via a marketplace, are left
// alone: the marketplace's own stock decides): in stock when its instance type lists its region (an offer of
// region "any" when it lists any region), else none. apply_stock sets or clears kFlagNoLiveStock on those offers.
struct OfferStock {
  int offer = -1;
  bool listed = false;    // the response names its instance type
  bool in_stock = false;  // ... with capacity in its region
};
std::vector<OfferStock> offer_stock(const Snapshot& s, const StockReport& r);
std::vector<OfferStock> apply_stock(Snapshot& s, const StockReport& r);

}  // namespace trainfit
