// trainfit — one HTTP(S) GET for `trainfit snapshot update` and `trainfit availability` (libcurl; native CLI
// only, never the core).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace trainfit {

// Fetches `url` (http, https or file; redirects followed over http and https only, at most 5) into `body`, refusing
// a body over `max_bytes`. On failure returns false with `why` naming the problem ("HTTP 404", "Could not connect to
// server: Connection refused", "larger than 1048576 bytes"). Timeouts: 10 s to connect, 120 s in all.
struct HttpOptions {
  std::vector<std::string> headers;  // extra request headers ("Authorization: Bearer ...")
  bool keep_error_body = false;      // on an HTTP error, keep the body (an API's error document) and still fail
  const char* user_agent = "trainfit-snapshot-update/1";
};
bool http_get(const std::string& url, uint64_t max_bytes, std::string* body, std::string* why,
              const HttpOptions& options = HttpOptions());

// The address of `name` next to `url` (the part of `url` up to its last '/', then `name`).
std::string url_beside(const std::string& url, const std::string& name);

}  // namespace trainfit
