// trainfit core — packing a snapshot into its compact binary form (pack_snapshot, pack_snapshot_lean): the Writer
// that walks the payload's field list (snapshot_binary_internal.h). The layout is described in snapshot_binary.cpp.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "storage/snapshot_binary_internal.h"
#include "storage/snapshot_internal.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {

using namespace detail::binary;

namespace {

// ---------------------------------------------------------------- writer

class Writer {
 public:
  std::string out;
  void u8(uint8_t v) { out.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void i32(int v) { u32(static_cast<uint32_t>(v)); }
  void index(size_t v) { u32(static_cast<uint32_t>(v)); }
  void f64(double v) {
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    u64(b);
  }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    out += s;
  }
  void flag(bool b) { u8(b ? 1 : 0); }
  template <class E>
  void enum8(E e, E /*last*/) { u8(static_cast<uint8_t>(e)); }
  template <class T, class Each>
  void list(std::vector<T>& v, size_t /*min_item_bytes*/, const char* /*what*/, Each each) {
    u32(static_cast<uint32_t>(v.size()));
    for (T& x : v) each(x);
  }

  // ---- the offer table (version 4)
  void varint(uint64_t v) {
    while (v >= 0x80) {
      u8(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    u8(static_cast<uint8_t>(v));
  }
  void zigzag(int64_t v) { varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void offer_count(std::vector<Offer>& v, size_t /*min_offer_bytes*/) { varint(v.size()); }
  // A reserved price (version 5): its offer as the step from the previous price's offer index (zigzag; a flag bit
  // marks an offer the snapshot lacks, stored by id), its price in 1e-4 dollars where that is exact (as the offer
  // table's prices), else micro-dollars or a double: a few bytes instead of a double and a ~35-byte id.
  void reserved_price(ReservedPrice& x, const std::vector<Offer>& offers, int64_t& prev) {
    if (offer_index_.empty() && !offers.empty())
      for (size_t i = 0; i < offers.size(); ++i) offer_index_.emplace(offers[i].id, i);
    auto it = offer_index_.find(x.offer);
    if (it == offer_index_.end()) {
      varint(0);
      str(x.offer);
    } else {
      const int64_t k = static_cast<int64_t>(it->second);
      const int64_t d = k - prev;
      varint(((static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63)) + 1);
      prev = k;
    }
    for (uint8_t tag : {2, 1}) {
      const double scale = tag == 2 ? 1e4 : 1e6;
      const double v = std::round(x.usd_per_h * scale);
      if (v >= 0 && v < 9e15 && v / scale == x.usd_per_h) {
        u8(tag);
        varint(static_cast<uint64_t>(v));
        return;
      }
    }
    u8(0);
    f64(x.usd_per_h);
  }
  std::unordered_map<std::string, size_t> offer_index_;
  template <class Fill>
  void strings(std::vector<Offer>& /*offers*/, Fill fill) {
    Writer cols;
    fill(cols);
    varint(cols.table_.size());  // the table: every length, then every string's bytes
    for (const std::string* t : cols.table_) varint(t->size());
    for (const std::string* t : cols.table_) out += *t;
    out += cols.out;
  }
  void col_str(std::vector<Offer>& v, const char* /*name*/, SharedStr Offer::*m) {
    for (const Offer& o : v) {
      auto [it, added] = index_.try_emplace((o.*m).str(), static_cast<uint32_t>(table_.size()));
      if (added) table_.push_back(&it->first);
      varint(it->second);
    }
  }
  template <class T>
  void col(std::vector<Offer>& v, const char* /*name*/, T Offer::*m) {
    if constexpr (std::is_same_v<T, double>) {
      const int k = decimal_scale(v, m);
      u8(static_cast<uint8_t>(k));
      for (const Offer& o : v) {
        if (k == kRawDoubles) f64(o.*m);
        else zigzag(std::llround(o.*m * kPow10[k]));
      }
    } else if constexpr (std::is_enum_v<T>) {
      for (const Offer& o : v) u8(static_cast<uint8_t>(o.*m));
    } else if constexpr (std::is_same_v<T, uint32_t>) {
      for (const Offer& o : v) varint(o.*m);
    } else {
      static_assert(std::is_same_v<T, int>);
      for (const Offer& o : v) zigzag(o.*m);
    }
  }
  void ids(std::vector<Offer>& v, const std::vector<Provider>& providers) {
    std::vector<uint32_t> odd;
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i].id != offer_id_rule(v[i], providers)) odd.push_back(static_cast<uint32_t>(i));
    varint(odd.size());
    for (uint32_t i : odd) {
      varint(i);
      varint(v[i].id.size());
      out += v[i].id;
    }
  }

 private:
  // The smallest k in 0..9 for which every value of the column is an integer count of 10^-k that gives the
  // value back exactly (n / 10^k, as the reader computes it); kRawDoubles when there is none.
  template <class T>
  static int decimal_scale(const std::vector<Offer>& v, T Offer::*m) {
    for (int k = 0; k <= kMaxScale; ++k) {
      bool exact = true;
      for (const Offer& o : v) {
        const double x = o.*m * kPow10[k];
        if (!(std::fabs(x) < 9007199254740992.0) || static_cast<double>(std::llround(x)) / kPow10[k] != o.*m) {
          exact = false;
          break;
        }
      }
      if (exact) return k;
    }
    return kRawDoubles;
  }
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<const std::string*> table_;  // keys of index_, in order of first use (node-based: they stay put)
};

// ---------------------------------------------------------------- packing

// The JSON as the reader leaves it (with the reader's warnings), ready to pack.
Result<Snapshot> read_for_pack(std::string_view json_text, std::vector<Warning>* warnings) {
  SnapshotReport report;
  std::vector<size_t> row_of;
  std::optional<Snapshot> s = detail::read_snapshot_json(json_text, SnapshotLoadOptions{}, &report, &row_of);
  if (!s) return detail::first_error(report, "snapshot refused");
  // A snapshot the reader accepts kept every row (a dropped row is an error), so offer i is row i and the
  // binary form does not store the rows' numbers.
  for (size_t i = 0; i < row_of.size(); ++i)
    if (row_of[i] != i) return Error{"/offers/rows", "internal error: offer " + std::to_string(i) + " is not row " + std::to_string(i)};
  *warnings = std::move(report.warnings);
  return std::move(*s);
}

std::string pack(Snapshot& s, std::vector<Warning>& warnings) {
  Writer payload;
  payload_fields(payload, s, warnings);
  Writer w;
  w.out.append(kMagic, sizeof kMagic);
  w.u32(kSnapshotBinaryVersion);
  w.u32(static_cast<uint32_t>(s.schema_version));
  w.u32(s.text_left_out ? kBinaryFlagTextLeftOut : 0);
  w.u64(payload.out.size());
  w.u64(snapshot_binary_checksum(payload.out));
  w.out += payload.out;
  return std::move(w.out);
}

}  // namespace

Result<std::string> pack_snapshot(std::string_view json_text) {
  std::vector<Warning> warnings;
  Result<Snapshot> s = read_for_pack(json_text, &warnings);
  if (!s) return s.error();
  return pack(s.value(), warnings);
}

Result<LeanPack> pack_snapshot_lean(std::string_view json_text) {
  std::vector<Warning> warnings;
  Result<Snapshot> s = read_for_pack(json_text, &warnings);
  if (!s) return s.error();
  LeanPack out;
  out.text_json = snapshot_text_json(s.value());
  strip_snapshot_text(s.value());
  out.binary = pack(s.value(), warnings);
  return out;
}

}  // namespace trainfit
