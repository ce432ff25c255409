// trainfit core — what the pieces of the snapshot's JSON reader share (snapshot_json_reader.cpp, its sections
// snapshot_json_sections.cpp and snapshot_json_offers.cpp, and the derived flags of snapshot_flags.cpp): the size
// bounds, the validation context that collects errors with their JSON pointers, and the section readers.
// Internal to the core: not installed with trainfit/*.h.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/json_reader.h"
#include "trainfit/base/format.h"
#include "storage/snapshot_internal.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit::detail::snapshot_json {

// ---------------------------------------------------------------- validation context

// The offer columns (Col, kColNames) are in snapshot_internal.h: the serializer (snapshot_writer.cpp) writes them.

// Bounds on sizes: anything beyond is "absurd" and refused (also bounds memory under fuzzing).
inline constexpr size_t kMaxGpus = 1000, kMaxProviders = 500, kMaxOffers = 200000, kMaxSources = 500;
inline constexpr size_t kMaxString = 2000;
inline constexpr int kMaxDepth = 32;
inline constexpr double kMaxPrice = 10000;  // USD per instance-hour; no real instance is near this

// "%.6g", without printf: a page load writes ~1,000 warnings' numbers with it, and musl's printf formats
// doubles in software long double arithmetic (format.h).
inline std::string fmt_num(double v) { return general(v, 6); }

// ---------------------------------------------------------------- reading the parsed document (json_reader.h)
// The parser and its small helpers are in json_reader.h: the model catalog reads with them too.
using jsonr::find_member;
using jsonr::JValue;
using jsonr::parse_json;
using jsonr::SizeType;
using jsonr::text_of;
using jsonr::type_name;

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
  // The member `key` when it is there and of the type `is` tests (any type when `is` is null); else nullptr, with an
  // error for a missing required member ("missing required field") or one of another type ("expected <what>, got
  // <type>"). `*absent_ok`: the member is absent and optional.
  const JValue* typed_member(const JValue& obj, const char* key, const std::string& ptr, bool required,
                             bool (JValue::*is)() const, const char* what, bool* absent_ok) {
    *absent_ok = false;
    const JValue* v = find_member(obj, key);
    if (!v) {
      if (required) error(ptr + "/" + key, "missing required field");
      *absent_ok = !required;
      return nullptr;
    }
    if (is && !(v->*is)()) {
      error(ptr + "/" + key, std::string("expected ") + what + ", got " + type_name(*v));
      return nullptr;
    }
    return v;
  }
  bool str(const JValue& obj, const char* key, const std::string& ptr, std::string* out, bool required = true,
           bool nonempty = false) {
    bool absent_ok = false;
    const JValue* v = typed_member(obj, key, ptr, required, &JValue::IsString, "a string", &absent_ok);
    if (!v) return absent_ok;
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
    bool absent_ok = false;
    const JValue* v = typed_member(obj, key, ptr, required, nullptr, "", &absent_ok);
    if (!v) {
      if (absent_ok && nullable) *out = -1;
      return absent_ok;
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
    bool absent_ok = false;
    const JValue* v = typed_member(obj, key, ptr, required, nullptr, "", &absent_ok);
    if (!v) return absent_ok;
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
    bool absent_ok = false;
    const JValue* v = typed_member(obj, key, ptr, required, &JValue::IsBool, "true/false", &absent_ok);
    if (!v) return absent_ok;
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
    bool absent_ok = false;
    const JValue* v = typed_member(obj, key, ptr, required, &JValue::IsArray, "an array", &absent_ok);
    if (!v) return nullptr;
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

inline std::string idx(const std::string& base, size_t i) { return base + "/" + std::to_string(i); }
// Element i of an array (the caller has checked IsArray() and the size).
inline const JValue& at(const JValue& a, size_t i) { return a[static_cast<SizeType>(i)]; }

// GPU or provider id -> index. The views point into the Snapshot's own id strings, which stay put while it is read.
using IdIndex = std::unordered_map<std::string_view, int>;

// The JSON pointer of offer row `i` (built only for messages: most rows never need one).
inline std::string row_pointer(size_t i) { return idx("/offers/rows", i); }

// ---------------------------------------------------------------- the sections (in document order)

// snapshot_json_sections.cpp: "sources"; "gpus" and "providers", each with its id -> index map (a duplicate id is
// an error); the optional "reservations" (their prices are matched to offers by attach_reservations).
void read_sources(Ctx& c, const JValue& doc, Snapshot* s);
void read_gpus(Ctx& c, const JValue& doc, Snapshot* s, IdIndex* gpu_ix);
void read_providers(Ctx& c, const JValue& doc, Snapshot* s, IdIndex* prov_ix);
void read_reservations(Ctx& c, const JValue& doc, Snapshot* s);

// snapshot_json_offers.cpp: the "offers" table (its columns, then its rows in order; unusable rows and duplicate
// ids are reported and left out); `row_of` gets each kept offer's row in the document.
void read_offers(Ctx& c, const JValue& doc, const IdIndex& gpu_ix, const IdIndex& prov_ix, Snapshot* s,
                 std::vector<size_t>* row_of);

}  // namespace trainfit::detail::snapshot_json
