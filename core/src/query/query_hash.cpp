// trainfit core — the query's link form (#model=llama-3-8b&seq_len=4096&parallel.tp=2): percent-decoding and
// -encoding, the UTF-8 check, and the link reader and writer over the key table.
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "query/query_internal.h"

namespace trainfit {
namespace query_detail {
namespace {

// Percent-decoding for hash values; rejects malformed escapes and control bytes.
bool url_decode(std::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      auto hex = [](char h) -> int {
        if (h >= '0' && h <= '9') return h - '0';
        if (h >= 'a' && h <= 'f') return h - 'a' + 10;
        if (h >= 'A' && h <= 'F') return h - 'A' + 10;
        return -1;
      };
      int hi = hex(in[i + 1]), lo = hex(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+') {
      c = ' ';
    }
    if (static_cast<unsigned char>(c) < 0x20) return false;
    out->push_back(c);
  }
  return true;
}

// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int n = 0;
    uint32_t cp = 0;
    if (c < 0x80) { ++i; continue; }
    if ((c & 0xE0) == 0xC0) { n = 1; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { n = 2; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { n = 3; cp = c & 0x07; }
    else return false;
    if (i + n >= s.size()) return false;  // truncated sequence
    for (int k = 1; k <= n; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static const uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

std::string url_encode(std::string_view in) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : in) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
        c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

std::string value_to_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return fmt_num(v.get<double>());
  if (v.is_array()) {
    std::string s;
    for (const auto& it : v) {
      if (!s.empty()) s += ",";
      s += it.is_string() ? it.get<std::string>() : it.dump();
    }
    return s;
  }
  return v.dump();
}

}  // namespace
}  // namespace query_detail

using namespace query_detail;

namespace {
Result<Query> parse_hash(std::string_view hash, bool whole) {
  if (!hash.empty() && hash.front() == '#') hash.remove_prefix(1);
  // The limit must admit every link query_to_hash can write, or a shared link would not open: the longest
  // valid query (three 256-item lists of 64-byte names, each byte percent-encoded as 3) is about 150 KB.
  // Found by fuzz_query_hash: 4 KB of '"' in a list became a 12 KB link, refused under the old 8192 limit.
  constexpr size_t kMaxLinkChars = 256 * 1024;
  if (hash.size() > kMaxLinkChars) return Error{"", "link is too long (the limit is 262144 characters)"};
  Query q = default_query();
  // Apply in key-table order (preset before model.* overrides), as for JSON.
  struct Pair {
    const Key* key;
    std::string value;
  };
  std::vector<Pair> pairs;
  size_t pos = 0;
  while (pos <= hash.size() && !hash.empty()) {
    size_t amp = hash.find('&', pos);
    if (amp == std::string_view::npos) amp = hash.size();
    std::string_view part = hash.substr(pos, amp - pos);
    pos = amp + 1;
    if (part.empty()) {
      if (amp >= hash.size()) break;
      continue;
    }
    size_t eq = part.find('=');
    std::string key, value;
    if (eq == std::string_view::npos || !url_decode(part.substr(0, eq), &key) || !url_decode(part.substr(eq + 1), &value))
      return Error{"", "malformed link parameter \"" + std::string(part.substr(0, 40)) + "\" (expected key=value)"};
    // Text from a link becomes JSON (query_to_json, the facade), which must be UTF-8: "%FF" would otherwise
    // make every later dump throw.
    if (!valid_utf8(key)) return Error{"", "link parameter name is not valid UTF-8 text"};
    if (!valid_utf8(value)) return Error{key.substr(0, 64), "is not valid UTF-8 text"};
    const Key* k = find_key(key);
    if (!k) return Error{key.substr(0, 64), "unknown key"};
    pairs.push_back({k, value});
    if (amp >= hash.size()) break;
  }
  for (const auto& k : keys()) {
    for (const auto& p : pairs) {
      if (p.key != &k) continue;
      json v;
      switch (k.kind) {
        case Kind::integer:
        case Kind::number: {
          // JSON's number grammar only: strtod alone would also take hex ("0x10"), "nan", "infinity" and
          // leading spaces, so a link could say what a JSON query cannot.
          char* end = nullptr;
          const double d = std::strtod(p.value.c_str(), &end);
          if (p.value.empty() || p.value.find_first_not_of("0123456789+-.eE") != std::string::npos ||
              end != p.value.c_str() + p.value.size())
            return Error{k.path, "must be a number, got \"" + p.value.substr(0, 40) + "\""};
          v = d;
          break;
        }
        case Kind::boolean:
          if (p.value == "true" || p.value == "1") v = true;
          else if (p.value == "false" || p.value == "0") v = false;
          else return Error{k.path, "must be true or false"};
          break;
        case Kind::text:
          v = p.value;
          break;
        case Kind::list: {
          v = json::array();
          size_t s = 0;
          while (s <= p.value.size() && !p.value.empty()) {
            size_t c = p.value.find(',', s);
            if (c == std::string::npos) c = p.value.size();
            v.push_back(p.value.substr(s, c - s));
            s = c + 1;
          }
          break;
        }
      }
      if (std::string_view(k.path).rfind("model.", 0) == 0 && q.model_id != "custom") {
        // First inline field: start from the preset (if one was named) or from scratch.
        bool had_preset = false;
        for (const auto& pp : pairs) had_preset = had_preset || std::string_view(pp.key->path) == "model";
        if (!had_preset) {
          q.model = ModelSpec{};
          q.model.name = "Custom model";
        }
        q.model.id = "custom";
        q.model_id = "custom";
      }
      try {
        std::string e = apply_value(q, k, v);
        if (!e.empty()) return Error{k.path, e};
      } catch (const std::exception& ex) {
        return Error{k.path, std::string("invalid value: ") + ex.what()};
      }
    }
  }
  if (q.model_id == "custom" && q.model.params > 0 && q.model.hidden_size == 0) q.model.arch = Arch::params_only;
  if (!whole) return q;
  return finish(std::move(q));
}
}  // namespace

Result<Query> parse_query_hash(std::string_view hash) { return parse_hash(hash, true); }
Result<Query> parse_query_hash_part(std::string_view hash) { return parse_hash(hash, false); }

std::string query_to_hash(const Query& q) {
  std::string s;
  bool wrote_parallel_key = false;  // tracked, not searched for: a value may contain the text "parallel."
  for_each_written(q, false, [&](const Key& k, const json& v) {
    if (!s.empty()) s += '&';
    s += k.path;
    s += '=';
    s += url_encode(value_to_text(v));
    wrote_parallel_key = wrote_parallel_key || std::string_view(k.path).rfind("parallel.", 0) == 0;
  });
  if (!q.train.parallel.automatic && !wrote_parallel_key) s += std::string(s.empty() ? "" : "&") + "parallel=manual";
  return s;
}

}  // namespace trainfit
