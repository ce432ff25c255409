// trainfit core — the compact binary form of a snapshot (snapshot.h; format in docs/snapshot.md, "Binary form").
// Why: the web page loads the bundled snapshot while its wasm still runs in V8's baseline tier, where tokenising
// 219 KB of JSON and converting 11,000 numbers was ~45 ms of the load (docs/performance.md, "Load time"). The
// binary form holds what the JSON reader produces (read_snapshot_json), so loading it skips the text entirely;
// the checks that depend on the load options (derive_snapshot_flags: staleness against today's date, price
// outliers) run at load exactly as after the JSON, and the result is the same Snapshot (tests/core).
//
// Layout, all little-endian: a 32-byte header
//   "TFSB" | u32 format version | u32 snapshot schema_version | u32 flags | u64 payload bytes | u64 checksum of payload
// (flags: kBinaryFlagTextLeftOut for the lean form, pack_snapshot_lean; other bits refused)
// (snapshot_binary_checksum: FNV-1a-64 over 8-byte words)
// then the payload: strings as u32 length + bytes, doubles as IEEE-754 binary64, vectors as u32 count + items,
// in the order of the structs in snapshot.h (payload_fields in snapshot_binary_internal.h: one field list for both
// directions); the offers as a columnar table (offer_table: a string table, one column per field, derived ids;
// format 4).
//
// This file reads the form (load_snapshot_binary); snapshot_binary_pack.cpp writes it (pack_snapshot).
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "storage/snapshot_binary_internal.h"
#include "storage/snapshot_internal.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {

using namespace detail::binary;

// FNV-1a's step over 8-byte little-endian words (then the last 0-7 bytes one at a time): an eighth of the
// iterations of the byte-wise hash, which matters in the browser's baseline tier, where this runs over 220 KB
// at every page load (and a byte loop inlined into the loader had V8 optimise the whole loader).
[[gnu::noinline]] uint64_t snapshot_binary_checksum(std::string_view payload) {
  constexpr uint64_t kPrime = 0x100000001b3ull;
  uint64_t h = 0xcbf29ce484222325ull;
  const size_t words = payload.size() / 8;
  const auto* b = reinterpret_cast<const unsigned char*>(payload.data());
  for (size_t i = 0; i < words; ++i, b += 8) {
    const uint64_t w = uint64_t{b[0]} | uint64_t{b[1]} << 8 | uint64_t{b[2]} << 16 | uint64_t{b[3]} << 24 |
                       uint64_t{b[4]} << 32 | uint64_t{b[5]} << 40 | uint64_t{b[6]} << 48 | uint64_t{b[7]} << 56;
    h = (h ^ w) * kPrime;
  }
  for (size_t i = words * 8; i < payload.size(); ++i)
    h = (h ^ static_cast<unsigned char>(payload[i])) * kPrime;
  return h;
}

namespace {

// ---------------------------------------------------------------- reader

// A cursor over the payload. Every read is bounds-checked; the first failure is kept (`error`) and every read
// after it returns zeros, so a decoder runs to its end without branching on each field and reports once.
class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  std::string error;  // "" = fine so far
  bool ok() const { return !failed_; }
  bool at_end() const { return pos_ == b_.size(); }

  void fail(const std::string& why) {
    if (failed_) return;
    failed_ = true;
    error = why + " (at byte " + std::to_string(kHeaderBytes + pos_) + ")";
  }
  // NOTE(perf): the scalar reads are inlined into the field readers, and read little-endian words with one
  // memcpy where the machine is little-endian (wasm, x86, ARM): the bundled snapshot's ~40,000 reads ran as
  // calls and byte loops in the browser's baseline wasm tier (~5 ms of the page load, profile).
  [[gnu::always_inline]] uint8_t u8() {
    if (!need(1)) return 0;
    return static_cast<uint8_t>(b_[pos_++]);
  }
  [[gnu::always_inline]] uint32_t u32() { return le<uint32_t>(); }
  [[gnu::always_inline]] uint64_t u64() { return le<uint64_t>(); }
  // The field-list forms (payload_fields): each fills its argument.
  void u32(uint32_t& v) { v = u32(); }
  void i32(int& v) { v = static_cast<int>(u32()); }
  void index(size_t& v) { v = u32(); }
  void f64(double& v) {
    const uint64_t bits = u64();
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) {  // JSON has no NaN or infinity: the writer never wrote one
      fail("a number is not finite");
      v = 0;
    }
  }
  void flag(bool& b) {
    const uint8_t v = u8();
    if (v > 1) fail("a true/false field holds " + std::to_string(v));
    b = v == 1;
  }
  void str(std::string& out) {
    const uint32_t n = u32();
    if (!need(n)) return;
    out.assign(b_.data() + pos_, n);
    pos_ += n;
  }
  template <class E>
  void enum8(E& e, E last) {
    const uint8_t v = u8();
    if (v > static_cast<uint8_t>(last)) fail("unknown link or network kind " + std::to_string(v));
    e = ok() ? static_cast<E>(v) : E{};
  }
  // A count of items that take at least `min_item_bytes` each: refused when the rest of the payload cannot hold
  // them, so a corrupt count never becomes a huge allocation.
  template <class T, class Each>
  void list(std::vector<T>& v, size_t min_item_bytes, const char* what, Each each) {
    const uint32_t n = u32();
    if (ok() && static_cast<uint64_t>(n) * min_item_bytes > b_.size() - pos_)
      fail(std::string(what) + ": " + std::to_string(n) + " entries cannot fit in the remaining bytes");
    v.resize(ok() ? n : 0);
    for (T& x : v) {
      if (!ok()) return;
      each(x);
    }
  }

  // ---- the offer table (version 4): every count, index and length checked against what is left
  void reserved_price(ReservedPrice& x, const std::vector<Offer>& offers, int64_t& prev) {
    const uint64_t z = varint();
    if (!ok()) return;
    if (z == 0) {
      str(x.offer);
    } else {
      const uint64_t u = z - 1;
      const int64_t k = prev + static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
      if (k < 0 || static_cast<uint64_t>(k) >= offers.size()) {
        fail("a reserved price names offer " + std::to_string(k) + " of " + std::to_string(offers.size()));
        return;
      }
      x.offer = offers[static_cast<size_t>(k)].id;
      prev = k;
    }
    const uint8_t tag = u8();
    if (tag == 2) x.usd_per_h = static_cast<double>(varint()) / 1e4;
    else if (tag == 1) x.usd_per_h = static_cast<double>(varint()) / 1e6;
    else if (tag == 0) f64(x.usd_per_h);
    else fail("a reserved price's encoding tag is " + std::to_string(tag));
  }

  uint64_t varint() {
    // Most values take one byte (indices into small tables, counts, flags): read those without the loop.
    if (!failed_ && pos_ < b_.size() && !(static_cast<uint8_t>(b_[pos_]) & 0x80)) return static_cast<uint8_t>(b_[pos_++]);
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint8_t b = u8();
      if (!ok()) return 0;
      if (shift == 63 && b > 1) break;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    fail("a variable-length integer is longer than 64 bits");
    return 0;
  }
  int64_t zigzag() {
    const uint64_t u = varint();
    return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
  }
  void offer_count(std::vector<Offer>& v, size_t min_offer_bytes) {
    const uint64_t n = varint();
    if (ok() && n > kMaxOffers) fail("offers: " + std::to_string(n) + " (at most " + std::to_string(kMaxOffers) + ")");
    if (ok() && n * min_offer_bytes > b_.size() - pos_)
      fail("offers: " + std::to_string(n) + " cannot fit in the remaining bytes");
    v.resize(ok() ? static_cast<size_t>(n) : 0);
  }
  template <class Fill>
  void strings(std::vector<Offer>& /*offers*/, Fill fill) {
    const uint64_t n = varint();
    if (ok() && n > b_.size() - pos_) fail("string table: " + std::to_string(n) + " strings cannot fit");
    if (!ok()) return;
    std::vector<uint64_t> lengths(static_cast<size_t>(n));
    uint64_t total = 0;
    for (uint64_t& len : lengths) {
      len = varint();
      total += len;
      if (ok() && total > b_.size() - pos_) fail("string table: the strings run past the end");
      if (!ok()) return;
    }
    table_.clear();
    table_.reserve(lengths.size());
    for (uint64_t len : lengths) {
      table_.emplace_back(b_.substr(pos_, static_cast<size_t>(len)));
      pos_ += static_cast<size_t>(len);
    }
    fill(*this);
  }
  void col_str(std::vector<Offer>& v, const char* name, SharedStr Offer::*m) {
    for (Offer& o : v) {
      const uint64_t i = varint();
      if (ok() && i >= table_.size())
        fail(std::string("offer column ") + name + ": string index " + std::to_string(i) + " out of range (the table has " +
             std::to_string(table_.size()) + ")");
      if (!ok()) return;
      o.*m = table_[static_cast<size_t>(i)];  // the table's copy, shared
    }
  }
  template <class T>
  void col(std::vector<Offer>& v, const char* name, T Offer::*m) {
    if constexpr (std::is_same_v<T, double>) {
      const uint8_t k = u8();
      if (ok() && k != kRawDoubles && k > kMaxScale) fail(std::string("offer column ") + name + ": unknown number encoding " + std::to_string(k));
      for (Offer& o : v) {
        if (!ok()) return;
        if (k == kRawDoubles) f64(o.*m);
        else o.*m = static_cast<double>(zigzag()) / kPow10[k];
      }
    } else if constexpr (std::is_enum_v<T>) {
      for (Offer& o : v) {
        if (!ok()) return;
        enum8(o.*m, last_of(T{}));
      }
    } else if constexpr (std::is_same_v<T, uint32_t>) {
      for (Offer& o : v) {
        const uint64_t x = varint();
        if (ok() && x > UINT32_MAX) fail(std::string("offer column ") + name + ": value out of range");
        if (!ok()) return;
        o.*m = static_cast<uint32_t>(x);
      }
    } else {
      static_assert(std::is_same_v<T, int>);
      for (Offer& o : v) {
        const int64_t x = zigzag();
        if (ok() && (x < INT32_MIN || x > INT32_MAX)) fail(std::string("offer column ") + name + ": value out of range");
        if (!ok()) return;
        o.*m = static_cast<int>(x);
      }
    }
  }
  void ids(std::vector<Offer>& v, const std::vector<Provider>& providers) {
    if (!ok()) return;
    for (Offer& o : v) o.id = offer_id_rule(o, providers);
    const uint64_t n = varint();
    if (ok() && n > v.size()) fail("offer ids: " + std::to_string(n) + " exceptions for " + std::to_string(v.size()) + " offers");
    for (uint64_t k = 0; k < n && ok(); ++k) {
      const uint64_t i = varint(), len = varint();
      if (ok() && i >= v.size()) fail("offer ids: offer " + std::to_string(i) + " out of range");
      if (ok() && len > b_.size() - pos_) fail("offer ids: truncated");
      if (!ok()) return;
      v[static_cast<size_t>(i)].id.assign(b_.substr(pos_, static_cast<size_t>(len)));
      pos_ += static_cast<size_t>(len);
    }
  }

 private:
  [[gnu::always_inline]] bool need(size_t n) {
    if (failed_) return false;
    if (n > b_.size() - pos_) {
      fail("truncated");
      return false;
    }
    return true;
  }
  template <class U>
  [[gnu::always_inline]] U le() {
    if (!need(sizeof(U))) return 0;
    U v = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&v, b_.data() + pos_, sizeof v);
    } else {
      for (size_t i = 0; i < sizeof v; ++i) v |= static_cast<U>(static_cast<uint8_t>(b_[pos_ + i])) << (8 * i);
    }
    pos_ += sizeof v;
    return v;
  }
  static LinkClass last_of(LinkClass) { return LinkClass::infinity_fabric; }
  static NetKind last_of(NetKind) { return NetKind::tcpx; }
  bool failed_ = false;
  std::string_view b_;
  size_t pos_ = 0;
  std::vector<SharedStr> table_;  // the offer table's strings, one copy each, shared by the offers
};

// What the ranking indexes with, or switches on, is checked: a wrong value there would be a wrong read later.
void check_payload(Reader& r, const Snapshot& s) {
  const int n_gpus = static_cast<int>(s.gpus.size()), n_providers = static_cast<int>(s.providers.size());
  for (const Offer& o : s.offers) {
    if (o.provider < 0 || o.provider >= n_providers || o.gpu < 0 || o.gpu >= n_gpus)
      r.fail("offer " + o.id + ": provider or GPU index out of range");
    if (o.via < -1 || o.via >= n_providers || (o.via >= 0 && o.via == o.provider))
      r.fail("offer " + o.id + ": via index out of range or the offer's own provider");
    if (o.gpu_count < 1 || o.max_nodes < 1 || o.zone_count < 1) r.fail("offer " + o.id + ": a count below 1");
    if (o.flags & ~detail::kAllOfferFlags) r.fail("offer " + o.id + ": unknown flag bits");
  }
  if (!r.at_end()) r.fail("unexpected bytes after the data");
}

}  // namespace

std::optional<Snapshot> load_snapshot_binary_report(std::string_view bytes, const SnapshotLoadOptions& opt,
                                                    SnapshotReport* report) {
  SnapshotReport local;
  SnapshotReport* r = report ? report : &local;
  *r = SnapshotReport{};
  auto refuse = [&](const std::string& why) {
    r->errors.push_back({"", "binary snapshot: " + why});
    return std::nullopt;
  };
  if (bytes.size() > opt.max_input_bytes) return refuse("larger than the input limit");
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return refuse("not a trainfit binary snapshot");
  Reader h(bytes.substr(sizeof kMagic, kHeaderBytes - sizeof kMagic));
  const uint32_t version = h.u32(), schema = h.u32(), flags = h.u32();
  const uint64_t size = h.u64(), sum = h.u64();
  // Older versions (1-3: row-wise offers) are refused rather than read: the page ships its snapshot.bin with its
  // wasm, and falls back to the JSON, which every version reads.
  if (version != kSnapshotBinaryVersion)
    return refuse("format version " + std::to_string(version) + " (this build reads " +
                  std::to_string(kSnapshotBinaryVersion) + (version < kSnapshotBinaryVersion ? "; re-pack it from the JSON with `trainfit snapshot pack`" : "") + ")");
  if (schema != static_cast<uint32_t>(kSnapshotSchemaVersion))
    return refuse("schema_version " + std::to_string(schema) + " (this build reads " +
                  std::to_string(kSnapshotSchemaVersion) + ")");
  if (flags & ~kBinaryFlagTextLeftOut) return refuse("unknown header flags " + std::to_string(flags));
  const std::string_view payload = bytes.substr(kHeaderBytes);
  if (size != payload.size())
    return refuse("payload is " + std::to_string(payload.size()) + " bytes, the header says " + std::to_string(size));
  if (snapshot_binary_checksum(payload) != sum) return refuse("checksum mismatch (the file is damaged)");
  Snapshot s;
  s.schema_version = kSnapshotSchemaVersion;
  s.text_left_out = (flags & kBinaryFlagTextLeftOut) != 0;
  Reader p(payload);
  try {
    payload_fields(p, s, r->warnings);
    if (p.ok()) check_payload(p, s);
  } catch (const std::exception& e) {  // std::bad_alloc on a device out of memory
    p.fail(std::string("internal error: ") + e.what());
  }
  if (!p.ok()) return refuse(p.error);
  if (Result<bool> attached = attach_reservations(s); !attached) return refuse(attached.error().to_string());
  std::vector<size_t> row_of(s.offers.size());
  for (size_t i = 0; i < row_of.size(); ++i) row_of[i] = i;
  if (!detail::derive_snapshot_flags(s, row_of, opt, r)) return std::nullopt;
  return s;
}

Result<Snapshot> load_snapshot_binary(std::string_view bytes, const SnapshotLoadOptions& opt,
                                      std::vector<Warning>* warnings) {
  SnapshotReport r;
  std::optional<Snapshot> s = load_snapshot_binary_report(bytes, opt, &r);
  if (warnings) warnings->insert(warnings->end(), r.warnings.begin(), r.warnings.end());
  if (!s) return detail::first_error(r, "binary snapshot refused");
  return std::move(*s);
}

}  // namespace trainfit
