// trainfit core — shared vocabulary: errors, results, units.
// Must not depend on ImGui, GL, emscripten or iostream. Bytes are uint64_t or double (size_t is 32-bit in wasm).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

// A citation compiled into a table (a framework profile's *_source fields, the model catalog's config and parameter
// sources): kept for the reader, the CLI and the native tests; the web modules, which never show them (no facade
// document prints them, and the validation tables that read them are not linked there), compile them to "" (the
// first-visit payload budget).
#ifdef __EMSCRIPTEN__
#define TRAINFIT_SOURCE(text) ""
#else
#define TRAINFIT_SOURCE(text) text
#endif

namespace trainfit {

// Units. GB is 1e9 bytes (vendors, clouds); GiB is 2^30 bytes (what nvidia-smi and PyTorch report).
// Names carry the unit: `memory_bytes`, `bandwidth_GBps` (1e9 B/s), `price_usd_per_h`, `time_s`.
inline constexpr double kGB = 1e9;
inline constexpr double kGiB = 1073741824.0;
inline constexpr double kTB = 1e12;
inline constexpr double kHour_s = 3600.0;

// A problem with the input. `field` is a JSON pointer or a query key ("/offers/12/price_usd_per_h",
// "seq_len"); `message` says what is wrong in words a user can act on.
struct Error {
  std::string field;
  std::string message;
  std::string to_string() const { return field.empty() ? message : field + ": " + message; }
};

// Value or error; no exception ever crosses the core's API.
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error e) : v_(std::move(e)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T* operator->() const { return &std::get<0>(v_); }
  const T& operator*() const { return std::get<0>(v_); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Non-fatal findings (snapshot warnings, estimate caveats).
struct Warning {
  std::string field;
  std::string code;     // stable machine id: "spot_above_on_demand", "params_only_activations", ...
  std::string message;  // human text
  bool operator==(const Warning&) const = default;
};

// Today's date on the system clock, UTC, as YYYY-MM-DD: what every shell judges a snapshot's staleness against
// (core/src/base/clock.cpp), so that the page's two modules, the desktop app and the CLI agree on it.
std::string utc_date_today();

}  // namespace trainfit
