// trainfit — HTTP(S) GET through libcurl (http_fetch.h).
#include "http_fetch.h"

#include <curl/curl.h>

#include <mutex>

namespace trainfit {
namespace {

struct Sink {
  std::string* body;
  uint64_t max_bytes;
  bool too_big = false;
};

size_t on_data(char* data, size_t size, size_t n, void* user) {
  Sink* s = static_cast<Sink*>(user);
  const uint64_t add = static_cast<uint64_t>(size) * n;
  if (s->body->size() + add > s->max_bytes) {
    s->too_big = true;
    return 0;  // curl stops with CURLE_WRITE_ERROR
  }
  s->body->append(data, size * n);
  return size * n;
}

}  // namespace

bool http_get(const std::string& url, uint64_t max_bytes, std::string* body, std::string* why, const HttpOptions& options) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  body->clear();
  CURL* c = curl_easy_init();
  if (!c) {
    *why = "cannot start libcurl";
    return false;
  }
  char err[CURL_ERROR_SIZE] = {0};
  Sink sink{body, max_bytes};
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https,file");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_FAILONERROR, options.keep_error_body ? 0L : 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, options.user_agent);
  curl_slist* headers = nullptr;
  for (const std::string& h : options.headers) headers = curl_slist_append(headers, h.c_str());
  if (headers) curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  const CURLcode rc = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(c);
  curl_slist_free_all(headers);
  if (rc == CURLE_OK && options.keep_error_body && status >= 400) {
    *why = "HTTP " + std::to_string(status);
    return false;
  }
  if (rc == CURLE_OK) return true;
  if (sink.too_big) *why = "larger than " + std::to_string(max_bytes) + " bytes";
  else if (rc == CURLE_HTTP_RETURNED_ERROR) *why = "HTTP " + std::to_string(status);
  else *why = std::string(curl_easy_strerror(rc)) + (err[0] ? std::string(": ") + err : "");
  return false;
}

std::string url_beside(const std::string& url, const std::string& name) {
  // The path ends at the query or fragment; the file's address replaces the last path segment.
  const size_t end = url.find_first_of("?#");
  const std::string path = url.substr(0, end);
  const size_t slash = path.rfind('/');
  return (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + name;
}

}  // namespace trainfit
