// trainfit — one HTTP(S) GET for `trainfit snapshot update` (libcurl; native CLI only, never the core).
#pragma once
#include <cstdint>
#include <string>

namespace trainfit {

// Fetches `url` (http, https or file; redirects followed over http and https only, at most 5) into `body`, refusing
// a body over `max_bytes`. On failure returns false with `why` naming the problem ("HTTP 404", "Could not connect to
// server: Connection refused", "larger than 1048576 bytes"). Timeouts: 10 s to connect, 120 s in all.
bool http_get(const std::string& url, uint64_t max_bytes, std::string* body, std::string* why);

// The address of `name` next to `url` (the part of `url` up to its last '/', then `name`).
std::string url_beside(const std::string& url, const std::string& name);

}  // namespace trainfit
