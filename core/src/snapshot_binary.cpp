// trainfit core — the compact binary form of a snapshot (snapshot.h; format in docs/snapshot.md, "Binary form").
// Why: the web page loads the bundled snapshot while its wasm still runs in V8's baseline tier, where tokenising
// 219 KB of JSON and converting 11,000 numbers was ~45 ms of the load (docs/performance.md, "Load time"). The
// binary form holds what the JSON reader produces (read_snapshot_json), so loading it skips the text entirely;
// the checks that depend on the load options (derive_snapshot_flags: staleness against today's date, price
// outliers) run at load exactly as after the JSON, and the result is the same Snapshot (tests/core).
//
// Layout, all little-endian: a 32-byte header
//   "TFSB" | u32 format version | u32 snapshot schema_version | u32 0 | u64 payload bytes | u64 checksum of payload
// (snapshot_binary_checksum: FNV-1a-64 over 8-byte words)
// then the payload: strings as u32 length + bytes, doubles as IEEE-754 binary64, vectors as u32 count + items,
// in the order of the structs in snapshot.h (write_* and read_* below mirror each other line by line).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "snapshot_internal.h"
#include "trainfit/snapshot.h"

namespace trainfit {
namespace {

constexpr char kMagic[4] = {'T', 'F', 'S', 'B'};
constexpr size_t kHeaderBytes = 32;

}  // namespace

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
};

void write_billing(Writer& w, const BillingRule& b) {
  w.str(b.match);
  w.f64(b.increment_s);
  w.f64(b.minimum_s);
  w.str(b.note);
  w.str(b.source);
}

void write_payload(Writer& w, const Snapshot& s, const std::vector<size_t>& row_of,
                   const std::vector<Warning>& reader_warnings) {
  w.str(s.id);
  w.str(s.currency);
  w.str(s.created);
  w.u32(static_cast<uint32_t>(s.sources.size()));
  for (const SourceRef& r : s.sources) {
    w.str(r.id);
    w.str(r.address);
    w.str(r.capture_date);
    w.str(r.note);
  }
  w.u32(static_cast<uint32_t>(s.gpus.size()));
  for (const GpuSpec& g : s.gpus) {
    w.str(g.id);
    w.str(g.name);
    w.str(g.vendor);
    w.str(g.arch);
    w.i32(g.year);
    for (double v : {g.memory_bytes, g.mem_bandwidth_GBps, g.tflops_fp32, g.tflops_tf32, g.tflops_bf16, g.tflops_fp16,
                     g.tflops_fp8})
      w.f64(v);
    w.i32(g.nvlink_gen);
    w.f64(g.nvlink_GBps);
    w.i32(g.pcie_gen);
    w.f64(g.tdp_w);
    w.str(g.source);
    w.str(g.source_status);
    w.flag(g.spec_incomplete);
    w.str(g.spec_note);
  }
  w.u32(static_cast<uint32_t>(s.providers.size()));
  for (const Provider& p : s.providers) {
    w.str(p.id);
    w.str(p.name);
    w.str(p.capture_date);
    w.str(p.catalog_source);
    write_billing(w, p.billing);
    w.u32(static_cast<uint32_t>(p.billing_exceptions.size()));
    for (const BillingRule& b : p.billing_exceptions) write_billing(w, b);
    w.f64(p.provision_s);
    w.flag(p.bills_provisioning);
    w.flag(p.spot.available);
    w.str(p.spot.pricing);
    w.f64(p.spot.interruption_rate_per_h);
    w.f64(p.spot.notice_s);
    w.flag(p.spot.early_preemption_free);
    w.f64(p.spot.free_window_s);
    w.str(p.spot.source);
    for (double v : {p.storage_usd_per_GB_month, p.storage_read_MBps, p.storage_write_MBps, p.egress_usd_per_GB,
                     p.network_download_MBps})
      w.f64(v);
    w.str(p.notes);
    w.str(p.storage_source);
    w.str(p.egress_source);
    w.str(p.provision_source);
  }
  w.u32(static_cast<uint32_t>(s.offers.size()));
  for (const Offer& o : s.offers) {
    w.str(o.id);
    w.i32(o.provider);
    w.str(o.instance_type);
    w.str(o.region);
    w.str(o.zone);
    w.i32(o.gpu);
    w.i32(o.gpu_count);
    w.f64(o.vcpus);
    w.f64(o.host_ram_bytes);
    w.f64(o.local_disk_bytes);
    w.u8(static_cast<uint8_t>(o.intra_link));
    w.f64(o.intra_link_GBps);
    w.u8(static_cast<uint8_t>(o.inter_net));
    w.f64(o.inter_net_Gbps);
    w.f64(o.price_usd_per_h);
    w.f64(o.spot_usd_per_h);
    w.i32(o.max_nodes);
    w.str(o.capture_date);
    w.u32(o.flags);
    w.i32(o.zone_count);
    w.f64(o.spot_max_usd_per_h);
    w.f64(o.host_usd_per_h);
    w.f64(o.accel_usd_per_h);
  }
  w.u32(static_cast<uint32_t>(row_of.size()));
  for (size_t r : row_of) w.u32(static_cast<uint32_t>(r));
  w.u32(static_cast<uint32_t>(reader_warnings.size()));
  for (const Warning& x : reader_warnings) {
    w.str(x.field);
    w.str(x.code);
    w.str(x.message);
  }
}

// ---------------------------------------------------------------- reader

// A cursor over the payload. Every read is bounds-checked; the first failure is kept (`error`) and every read
// after it returns zeros, so a decoder runs to its end without branching on each field and reports once.
class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  std::string error;  // "" = fine so far
  bool ok() const { return error.empty(); }
  bool at_end() const { return pos_ == b_.size(); }
  size_t pos() const { return pos_; }

  void fail(const std::string& why) {
    if (error.empty()) error = why + " (at byte " + std::to_string(kHeaderBytes + pos_) + ")";
  }
  uint8_t u8() {
    if (!need(1)) return 0;
    return static_cast<uint8_t>(b_[pos_++]);
  }
  uint32_t u32() {
    if (!need(4)) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(b_[pos_ + i])) << (8 * i);
    pos_ += 4;
    return v;
  }
  uint64_t u64() {
    if (!need(8)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(b_[pos_ + i])) << (8 * i);
    pos_ += 8;
    return v;
  }
  int i32() { return static_cast<int>(u32()); }
  double f64() {
    const uint64_t bits = u64();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) {  // JSON has no NaN or infinity: the writer never wrote one
      fail("a number is not finite");
      return 0;
    }
    return v;
  }
  bool flag() {
    const uint8_t v = u8();
    if (v > 1) fail("a true/false field holds " + std::to_string(v));
    return v == 1;
  }
  void str(std::string* out) {
    const uint32_t n = u32();
    if (!need(n)) return;
    out->assign(b_.data() + pos_, n);
    pos_ += n;
  }
  // A count of items that take at least `min_item_bytes` each: refused when the rest of the payload cannot hold
  // them, so a corrupt count never becomes a huge allocation.
  uint32_t count(size_t min_item_bytes, const char* what) {
    const uint32_t n = u32();
    if (ok() && static_cast<uint64_t>(n) * min_item_bytes > b_.size() - pos_) {
      fail(std::string(what) + ": " + std::to_string(n) + " entries cannot fit in the remaining bytes");
      return 0;
    }
    return ok() ? n : 0;
  }

 private:
  bool need(size_t n) {
    if (!ok()) return false;
    if (n > b_.size() - pos_) {
      fail("truncated");
      return false;
    }
    return true;
  }
  std::string_view b_;
  size_t pos_ = 0;
};

void read_billing(Reader& r, BillingRule* b) {
  r.str(&b->match);
  b->increment_s = r.f64();
  b->minimum_s = r.f64();
  r.str(&b->note);
  r.str(&b->source);
}

void read_payload(Reader& r, Snapshot* s, std::vector<size_t>* row_of, std::vector<Warning>* reader_warnings) {
  r.str(&s->id);
  r.str(&s->currency);
  r.str(&s->created);
  s->sources.resize(r.count(16, "sources"));
  for (SourceRef& x : s->sources) {
    r.str(&x.id);
    r.str(&x.address);
    r.str(&x.capture_date);
    r.str(&x.note);
  }
  s->gpus.resize(r.count(100, "gpus"));
  for (GpuSpec& g : s->gpus) {
    r.str(&g.id);
    r.str(&g.name);
    r.str(&g.vendor);
    r.str(&g.arch);
    g.year = r.i32();
    for (double* v : {&g.memory_bytes, &g.mem_bandwidth_GBps, &g.tflops_fp32, &g.tflops_tf32, &g.tflops_bf16,
                      &g.tflops_fp16, &g.tflops_fp8})
      *v = r.f64();
    g.nvlink_gen = r.i32();
    g.nvlink_GBps = r.f64();
    g.pcie_gen = r.i32();
    g.tdp_w = r.f64();
    r.str(&g.source);
    r.str(&g.source_status);
    g.spec_incomplete = r.flag();
    r.str(&g.spec_note);
  }
  s->providers.resize(r.count(100, "providers"));
  for (Provider& p : s->providers) {
    r.str(&p.id);
    r.str(&p.name);
    r.str(&p.capture_date);
    r.str(&p.catalog_source);
    read_billing(r, &p.billing);
    p.billing_exceptions.resize(r.count(28, "billing exceptions"));
    for (BillingRule& b : p.billing_exceptions) read_billing(r, &b);
    p.provision_s = r.f64();
    p.bills_provisioning = r.flag();
    p.spot.available = r.flag();
    r.str(&p.spot.pricing);
    p.spot.interruption_rate_per_h = r.f64();
    p.spot.notice_s = r.f64();
    p.spot.early_preemption_free = r.flag();
    p.spot.free_window_s = r.f64();
    r.str(&p.spot.source);
    for (double* v : {&p.storage_usd_per_GB_month, &p.storage_read_MBps, &p.storage_write_MBps, &p.egress_usd_per_GB,
                      &p.network_download_MBps})
      *v = r.f64();
    r.str(&p.notes);
    r.str(&p.storage_source);
    r.str(&p.egress_source);
    r.str(&p.provision_source);
  }
  const int n_gpus = static_cast<int>(s->gpus.size()), n_providers = static_cast<int>(s->providers.size());
  s->offers.resize(r.count(130, "offers"));
  for (Offer& o : s->offers) {
    r.str(&o.id);
    o.provider = r.i32();
    r.str(&o.instance_type);
    r.str(&o.region);
    r.str(&o.zone);
    o.gpu = r.i32();
    o.gpu_count = r.i32();
    o.vcpus = r.f64();
    o.host_ram_bytes = r.f64();
    o.local_disk_bytes = r.f64();
    const uint8_t link = r.u8();
    o.intra_link_GBps = r.f64();
    const uint8_t net = r.u8();
    o.inter_net_Gbps = r.f64();
    o.price_usd_per_h = r.f64();
    o.spot_usd_per_h = r.f64();
    o.max_nodes = r.i32();
    r.str(&o.capture_date);
    o.flags = r.u32();
    o.zone_count = r.i32();
    o.spot_max_usd_per_h = r.f64();
    o.host_usd_per_h = r.f64();
    o.accel_usd_per_h = r.f64();
    if (!r.ok()) return;
    // What the ranking indexes with, or switches on, is checked: a wrong value here would be a wrong read there.
    if (o.provider < 0 || o.provider >= n_providers || o.gpu < 0 || o.gpu >= n_gpus)
      r.fail("offer " + o.id + ": provider or GPU index out of range");
    if (link > static_cast<uint8_t>(LinkClass::infinity_fabric) || net > static_cast<uint8_t>(NetKind::tcpx))
      r.fail("offer " + o.id + ": unknown link or network kind");
    if (o.gpu_count < 1 || o.max_nodes < 1 || o.zone_count < 1) r.fail("offer " + o.id + ": a count below 1");
    if (o.flags & ~detail::kAllOfferFlags) r.fail("offer " + o.id + ": unknown flag bits");
    o.intra_link = static_cast<LinkClass>(link);
    o.inter_net = static_cast<NetKind>(net);
  }
  row_of->resize(r.count(4, "row index"));
  for (size_t& x : *row_of) x = r.u32();
  if (r.ok() && row_of->size() != s->offers.size()) r.fail("row index does not match the offers");
  reader_warnings->resize(r.count(12, "warnings"));
  for (Warning& x : *reader_warnings) {
    r.str(&x.field);
    r.str(&x.code);
    r.str(&x.message);
  }
  if (r.ok() && !r.at_end()) r.fail("unexpected bytes after the data");
}

}  // namespace

Result<std::string> pack_snapshot(std::string_view json_text) {
  SnapshotReport report;
  std::vector<size_t> row_of;
  std::optional<Snapshot> s = detail::read_snapshot_json(json_text, SnapshotLoadOptions{}, &report, &row_of);
  if (!s) {
    if (report.errors.empty()) return Error{"", "snapshot refused"};
    Error e = report.errors.front();
    const size_t n = report.errors.size() + static_cast<size_t>(report.errors_dropped);
    if (n > 1) e.message += " (and " + std::to_string(n - 1) + " more errors)";
    return e;
  }
  Writer payload;
  write_payload(payload, *s, row_of, report.warnings);
  Writer w;
  w.out.append(kMagic, sizeof kMagic);
  w.u32(kSnapshotBinaryVersion);
  w.u32(static_cast<uint32_t>(s->schema_version));
  w.u32(0);
  w.u64(payload.out.size());
  w.u64(snapshot_binary_checksum(payload.out));
  w.out += payload.out;
  return w.out;
}

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
  const uint32_t version = h.u32(), schema = h.u32();
  h.u32();
  const uint64_t size = h.u64(), sum = h.u64();
  if (version != kSnapshotBinaryVersion)
    return refuse("format version " + std::to_string(version) + " (this build reads " +
                  std::to_string(kSnapshotBinaryVersion) + ")");
  if (schema != static_cast<uint32_t>(kSnapshotSchemaVersion))
    return refuse("schema_version " + std::to_string(schema) + " (this build reads " +
                  std::to_string(kSnapshotSchemaVersion) + ")");
  const std::string_view payload = bytes.substr(kHeaderBytes);
  if (size != payload.size())
    return refuse("payload is " + std::to_string(payload.size()) + " bytes, the header says " + std::to_string(size));
  if (snapshot_binary_checksum(payload) != sum) return refuse("checksum mismatch (the file is damaged)");
  Snapshot s;
  s.schema_version = kSnapshotSchemaVersion;
  std::vector<size_t> row_of;
  Reader p(payload);
  try {
    read_payload(p, &s, &row_of, &r->warnings);
  } catch (const std::exception& e) {  // std::bad_alloc on a device out of memory
    p.fail(std::string("internal error: ") + e.what());
  }
  if (!p.ok()) return refuse(p.error);
  if (!detail::derive_snapshot_flags(s, row_of, opt, r)) return std::nullopt;
  return s;
}

Result<Snapshot> load_snapshot_binary(std::string_view bytes, const SnapshotLoadOptions& opt,
                                      std::vector<Warning>* warnings) {
  SnapshotReport r;
  std::optional<Snapshot> s = load_snapshot_binary_report(bytes, opt, &r);
  if (warnings) warnings->insert(warnings->end(), r.warnings.begin(), r.warnings.end());
  if (!s) return r.errors.empty() ? Error{"", "binary snapshot refused"} : r.errors.front();
  return std::move(*s);
}

}  // namespace trainfit
