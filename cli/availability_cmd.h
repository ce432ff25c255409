// trainfit — `trainfit availability`: a provider's live stock through its own API with the user's own key
// (market/stock.h), shown per offer and saved for `rank --stock`. The CLI's alone: the static page never asks.
#pragma once
#include <string>

#include "trainfit/engine.h"

namespace trainfit::cli {

struct AvailabilityArgs {
  std::string provider = "lambda";
  std::string url;            // the endpoint; default: the provider's documented one (StockApi::url)
  std::string response_file;  // a recorded response instead of a request (tests, offline replays)
  std::string key_env;        // the environment variable that holds the key; default: the provider's
  std::string save;           // write the report here for `rank --stock`
  std::string format = "table";
};

// Reads the stock (request or recorded response), prints it per offer of `snap`, saves it when asked. Exit codes
// as the CLI's: 0 done (also when no key is set: it says so and changes nothing), 2 bad arguments or a refused
// response, 1 the request failed (network, HTTP error).
int run_availability(const AvailabilityArgs& a, const Snapshot& snap);

// The stock report saved by `availability --save`, applied to `snap` for `rank --stock FILE`; false with `why`.
bool apply_stock_file(const std::string& path, Snapshot* snap, std::string* why);

}  // namespace trainfit::cli
