// trainfit core — the published price snapshot: GPUs, providers with their billing rules, offers.
// Loaded from data/snapshot.json (schema: data/snapshot.schema.json). Validation never throws: every
// problem comes back with its JSON pointer; a snapshot with errors is refused (the caller keeps the old one).
#pragma once
#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trainfit/base/common.h"

namespace trainfit {

// How GPUs inside one instance talk to each other.
enum class LinkClass {
  none,            // single GPU
  pcie,            // through the PCIe switch / host (no NVLink)
  nvlink_bridge,   // pairwise NVLink bridges (A6000, H100 NVL pairs, A100 PCIe pairs)
  nvlink,          // NVLink mesh without switch (V100 hybrid cube mesh)
  nvswitch,        // all-to-all NVLink through NVSwitch (HGX A100/H100/H200/B200)
  infinity_fabric, // AMD MI300X / MI250X
};
// How instances talk to each other.
enum class NetKind { none, ethernet, roce, efa, infiniband, tcpx };

struct GpuSpec {
  std::string id;              // stable id, e.g. "h100-sxm", "a100-sxm-80gb", "rtx-6000-ada"
  std::string name;            // display name
  std::string vendor;          // "NVIDIA", "AMD", "Intel"
  std::string arch;            // "Hopper", "Ampere", ...
  int year = 0;
  double memory_bytes = 0;     // the datasheet label in bytes (80 GB -> 80e9): shown, never used to judge a fit
  // What the driver reports to CUDA (nvidia-smi "Total", torch.cuda.mem_get_info()[1]): e.g. 81,559 MiB for an
  // H100 80GB. Every fit check uses it (gpu_capacity_bytes). 0 in an older snapshot: the loader falls back to
  // memory_bytes and warns.
  double cuda_memory_bytes = 0;
  std::string cuda_memory_source;  // where the driver figure comes from
  double mem_bandwidth_GBps = 0;   // HBM/GDDR bandwidth, 1e9 B/s
  // Dense (never with-sparsity) peak tensor throughput per dtype, TFLOPS; 0 = not supported.
  double tflops_fp32 = 0;      // vector FP32
  double tflops_tf32 = 0;
  double tflops_bf16 = 0;
  double tflops_fp16 = 0;
  double tflops_fp8 = 0;
  int nvlink_gen = 0;          // 0 = none
  double nvlink_GBps = 0;      // per GPU, bidirectional, as vendors quote it
  int pcie_gen = 0;
  double tdp_w = 0;
  std::string source;          // the checked datasheet / whitepaper address
  std::string source_status;   // "verified" | "secondary" | ...
  // A figure the estimator needs (memory, bandwidth, dense BF16/FP16) could not be checked: offers on this
  // GPU carry kFlagSpecIncomplete. The reason names the missing figure.
  bool spec_incomplete = false;
  std::string spec_note;
  // A figure the estimator uses is not published by the vendor and comes from a sourced estimate (a public
  // benchmark, the sibling card scaled by SMs x clock): offers on this GPU carry kFlagEstimatedSpec, and
  // estimated_note says which figures and how they were derived.
  bool estimated_spec = false;
  std::string estimated_note;
  bool operator==(const GpuSpec&) const = default;
};

// The device memory a fit is judged against: the driver-reported figure, or the datasheet label where the
// snapshot has none.
inline double gpu_capacity_bytes(const GpuSpec& g) { return g.cuda_memory_bytes > 0 ? g.cuda_memory_bytes : g.memory_bytes; }

struct BillingRule {
  std::string match;           // instance-type prefix this rule applies to ("" = provider default)
  double increment_s = 1;      // billing increment after the minimum (1 = per second, 3600 = hourly)
  double minimum_s = 60;       // minimum charge per billing segment (each start of an instance)
  std::string note;
  std::string source;
  bool operator==(const BillingRule&) const = default;
};

struct SpotRules {
  bool available = false;
  std::string pricing;                 // "market" | "fixed_discount" | "bid"
  double interruption_rate_per_h = 0;  // expected interruptions per instance-hour (Poisson)
  double notice_s = 0;                 // warning before reclaim
  bool early_preemption_free = false;  // e.g. GCP-style: no charge when preempted in the first minutes
  double free_window_s = 0;
  std::string source;
  bool operator==(const SpotRules&) const = default;
};

// How a new account gets an instance (availability facts, sourced and dated): launch it on demand; only after a
// quota increase is granted; only through a reservation or booking product; only by talking to sales; or not
// published. The largest cluster one can get and the quota to ask for, where published.
enum class Access { unknown, self_serve, quota_request, reservation_only, sales_contact };
struct AccessFact {
  std::string match;        // instance-type prefix of an exception ("" = the provider's default)
  Access how = Access::unknown;
  std::string detail;       // one or two sentences: what to do
  std::string quota;        // the quota to request (code / name), "" = none or not published
  std::string max_cluster;  // the largest cluster one can get, with its interconnect; "" = not published
  std::string source;
  std::string date;         // when it was read or published
  bool operator==(const AccessFact&) const = default;
};
const char* access_name(Access a);   // "self_serve", "quota_request", ... (JSON)
const char* access_label(Access a);  // "self-serve", "quota request", "reservation only", "contact sales", "unknown"
std::optional<Access> parse_access(std::string_view s);

struct Provider {
  std::string id;              // "aws", "gcp", "lambda", ...
  std::string name;
  std::string capture_date;    // ISO date the catalog rows were captured
  std::string catalog_source;  // address of the price catalog
  BillingRule billing;         // default rule
  std::vector<BillingRule> billing_exceptions;  // first matching prefix wins (OCI bare metal: 1 h minimum)
  double provision_s = 300;    // typical provisioning + boot before the job can start
  bool bills_provisioning = true;
  SpotRules spot;
  double storage_usd_per_GB_month = 0;   // persistent volume price
  double storage_read_MBps = 0;          // throughput of that volume, 1e6 B/s
  double storage_write_MBps = 0;
  double egress_usd_per_GB = 0;
  double network_download_MBps = 0;      // dataset download from outside
  std::string notes;
  // Added: where the storage/egress/provisioning figures come from. A figure that was not captured is -1
  // (null in JSON) rather than a guess; the UI shows it as unknown.
  std::string storage_source;
  std::string egress_source;
  std::string provision_source;
  AccessFact access;                         // how offers of this provider are obtained (default)
  std::vector<AccessFact> access_exceptions; // first matching instance-type prefix wins
  bool operator==(const Provider&) const = default;
};

// Data-quality flags on an offer (bit set). Warnings from validation become flags.
enum OfferFlag : uint32_t {
  kFlagNone = 0,
  kFlagSpotAboveOnDemand = 1u << 0,
  kFlagZeroComponent = 1u << 1,
  kFlagDeepSpotDiscount = 1u << 2,   // spot discount beyond 85%
  kFlagPriceOutlier = 1u << 3,       // far from the median of the same GPU elsewhere
  kFlagStale = 1u << 4,              // capture date older than the staleness limit
  kFlagUnverifiedPrice = 1u << 5,    // known-suspect source rows (e.g. GCP H100 Flex-start SKUs)
  kFlagSpecIncomplete = 1u << 6,     // GPU spec lacks a figure the estimator needs
  kFlagEstimatedSpec = 1u << 7,      // a GPU figure is a sourced estimate, not a datasheet value
  kFlagNoLiveStock = 1u << 8,        // the provider's live API listed no capacity for it when checked (market/stock.h)
};

// A string that offers share: the loaders give every offer with the same instance type (region, zone, capture
// date) the same immutable copy, so 100k offers hold a few hundred strings, not 400k (the wasm heap of
// a 100k-offer snapshot; docs/performance.md). Reads as a const std::string (str(), c_str(), ==, +, ...);
// assigning or appending makes a new copy for this offer only.
class SharedStr {
 public:
  SharedStr() = default;
  SharedStr(const char* s) : SharedStr(std::string_view(s)) {}  // NOLINT: assigned from literals, as a string
  SharedStr(std::string_view s) : p_(s.empty() ? nullptr : std::make_shared<const std::string>(s)) {}  // NOLINT
  SharedStr(const std::string& s) : SharedStr(std::string_view(s)) {}  // NOLINT
  const std::string& str() const { return p_ ? *p_ : empty_string(); }
  operator const std::string&() const { return str(); }  // NOLINT: passed where a const std::string& is read
  operator std::string_view() const { return str(); }    // NOLINT
  const char* c_str() const { return str().c_str(); }
  const char* data() const { return str().data(); }
  size_t size() const { return str().size(); }
  bool empty() const { return !p_ || p_->empty(); }
  size_t find(char c, size_t pos = 0) const { return str().find(c, pos); }
  size_t find(std::string_view t, size_t pos = 0) const { return str().find(t, pos); }
  std::string substr(size_t pos, size_t n = std::string::npos) const { return str().substr(pos, n); }
  bool starts_with(std::string_view t) const { return std::string_view(str()).starts_with(t); }
  SharedStr& operator+=(std::string_view t) { return *this = SharedStr(str() + std::string(t)); }
  bool same_copy(const SharedStr& o) const { return p_ == o.p_; }  // shared, not only equal
  friend bool operator==(const SharedStr& a, const SharedStr& b) { return a.p_ == b.p_ || a.str() == b.str(); }
  friend bool operator==(const SharedStr& a, std::string_view b) { return std::string_view(a.str()) == b; }
  friend bool operator==(const SharedStr& a, const char* b) { return std::string_view(a.str()) == b; }
  friend bool operator==(const SharedStr& a, const std::string& b) { return a.str() == b; }
  friend auto operator<=>(const SharedStr& a, const SharedStr& b) { return a.str().compare(b.str()) <=> 0; }
  friend std::string operator+(const std::string& a, const SharedStr& b) { return a + b.str(); }
  friend std::string operator+(const char* a, const SharedStr& b) { return a + b.str(); }
  friend std::string operator+(const SharedStr& a, const std::string& b) { return a.str() + b; }
  friend std::string operator+(const SharedStr& a, const char* b) { return a.str() + b; }

 private:
  static const std::string& empty_string() {
    static const std::string e;
    return e;
  }
  std::shared_ptr<const std::string> p_;
};

struct Offer {
  std::string id;              // unique: provider/instance_type/region[/zone]
  int provider = -1;           // index into Snapshot::providers: the cloud that runs the hardware
  // The marketplace that sells it, when it is sold through one ("massedcompute via shadeform"): an index into
  // Snapshot::providers (the marketplace is a provider record with its own billing rules), -1 = sold directly.
  // Never the provider itself. The same hardware sold directly and through a marketplace is two offers.
  int via = -1;
  SharedStr instance_type;     // shared with the other offers of the same value (SharedStr)
  SharedStr region;
  SharedStr zone;
  int gpu = -1;                // index into Snapshot::gpus
  int gpu_count = 0;           // GPUs per instance
  double vcpus = 0;
  double host_ram_bytes = 0;
  double local_disk_bytes = 0;
  LinkClass intra_link = LinkClass::none;
  double intra_link_GBps = 0;  // per GPU, bidirectional
  NetKind inter_net = NetKind::none;
  double inter_net_Gbps = 0;   // per instance
  double price_usd_per_h = -1; // on-demand, per instance; < 0 = not offered on demand
  double spot_usd_per_h = -1;  // per instance; < 0 = no spot
  int max_nodes = 1;           // how many of these instances can be clustered (1 = no multi-node)
  SharedStr capture_date;
  uint32_t flags = kFlagNone;
  // Added. One offer aggregates the zones of a region: `zone` is the zone with the cheapest on-demand price
  // (cheapest spot when there is no on-demand), `spot_usd_per_h` the cheapest spot in any zone of the
  // region and `spot_max_usd_per_h` the dearest (< 0 = no spot).
  int zone_count = 1;
  double spot_max_usd_per_h = -1;
  // Providers that price the host VM and the accelerators apart (GCP): the two on-demand components of
  // `price_usd_per_h` in the representative zone; < 0 = not priced apart.
  double host_usd_per_h = -1;
  double accel_usd_per_h = -1;
  // Derived at load from Snapshot::reservations (not an offer column): the reserved-capacity price per instance-hour
  // of the booking product `reservation` (index into Snapshot::reservations); < 0 / -1 = none.
  double reserved_usd_per_h = -1;
  int reservation = -1;
  bool operator==(const Offer&) const = default;
};

// The region of an offer sold alike in every region of its provider (an importer option, e.g. RunPod): its zones
// are the provider's data centres everywhere, and a launch names no region.
inline constexpr const char* kAnyRegion = "any";

// Per-GPU price of an offer (on-demand if `spot` is false); < 0 when not offered or gpu_count is 0.
double price_per_gpu_usd_per_h(const Offer& o, bool spot = false);
// Stable names used in JSON ("nvswitch", "efa", "spot_above_on_demand", ...).
const char* link_class_name(LinkClass c);
const char* net_kind_name(NetKind k);
std::optional<LinkClass> parse_link_class(std::string_view s);
std::optional<NetKind> parse_net_kind(std::string_view s);
const char* offer_flag_name(OfferFlag f);  // one bit
std::vector<std::string> offer_flag_names(uint32_t flags);
const char* offer_flag_code(OfferFlag f);     // one letter for tables ("D" deep_spot_discount)
const char* offer_flag_meaning(OfferFlag f);  // a short phrase for legends and tooltips
std::optional<OfferFlag> parse_offer_flag(std::string_view name);
inline constexpr OfferFlag kAllOfferFlagBits[] = {kFlagSpotAboveOnDemand, kFlagZeroComponent, kFlagDeepSpotDiscount,
                                                  kFlagPriceOutlier,      kFlagStale,         kFlagUnverifiedPrice,
                                                  kFlagSpecIncomplete,    kFlagEstimatedSpec};

struct SourceRef {
  std::string id;
  std::string address;
  std::string capture_date;
  std::string note;
  bool operator==(const SourceRef&) const = default;
};

// A booking product that sells capacity for a fixed term paid whether used or not (EC2 Capacity Blocks for ML,
// a 1-year reserved VM, a weekly cluster): the durations it can be booked for, its booking terms, and its price
// per offer. A job on it pays the whole booked term (booked_term_s, billing.h); what the job leaves unused is
// the term's idle tail.
struct TermStep {
  double up_to_s = 0;      // durations up to this one are booked in steps of increment_s (after the previous step)
  double increment_s = 0;
  bool operator==(const TermStep&) const = default;
};
struct ReservedPrice {
  std::string offer;        // an offer id of this snapshot, sold by the product's provider
  double usd_per_h = -1;    // per instance-hour of the booked term (an upfront total divided by the term's hours)
  bool operator==(const ReservedPrice&) const = default;
};
struct Reservation {
  std::string id;           // "aws-capacity-blocks"
  std::string provider;     // the provider id that sells it (the offers' seller)
  std::string name;         // "EC2 Capacity Blocks for ML"
  // Bookable durations: from 0 (or the previous step's up_to_s) up to up_to_s in steps of increment_s, steps in
  // increasing order; the last up_to_s is the longest single booking (longer jobs book consecutive terms).
  // Empty only for a negotiated contract (negotiated() below).
  std::vector<TermStep> terms;
  std::string start_time_utc;   // bookings start and end at this time of day ("11:30"); "" = any time
  int max_instances = 0;        // per booking; 0 = not published
  // The fewest instances a booking holds (Lambda's 1-Click Clusters start at 16 GPUs, two 8-GPU nodes): a job on
  // fewer pays for this many. 0 = no minimum published (a booking of one instance).
  int min_instances = 0;
  double book_ahead_days = 0;   // how far ahead a booking can be made; 0 = not published
  bool upfront = false;         // paid in full when booked
  bool cancellable = false;
  bool cancellable_published = true;  // false: whether it can be cancelled is not published (JSON: no "cancellable")
  std::string capture_date;     // when the prices were read
  std::string source;           // the price list / documentation address
  std::string note;
  std::vector<ReservedPrice> prices;
  // A contract whose term is agreed with the provider's sales and not published (Hyperstack's reserved contracts,
  // Nebius's commitment discounts): it has no bookable durations (terms empty; the JSON says "negotiated": true),
  // its prices are the lowest published ("from") rates, and a job on it books only its own run, so its cost is a
  // lower bound on what the contract costs.
  bool negotiated() const { return terms.empty(); }
  bool operator==(const Reservation&) const = default;
};

struct Snapshot {
  int schema_version = 0;
  std::string id;
  std::string currency = "USD";
  std::string created;         // ISO date
  std::vector<SourceRef> sources;
  std::vector<GpuSpec> gpus;
  std::vector<Provider> providers;
  std::vector<Offer> offers;
  std::vector<Reservation> reservations;  // reserved-capacity products; their prices set Offer::reserved_usd_per_h
  std::vector<Warning> warnings;   // validation warnings kept with the data
  // Set by the loader, not stored in the file: the date staleness was judged against (SnapshotLoadOptions::today;
  // "" = not judged) and the limit used.
  std::string judged_on;
  double stale_after_days = 0;
  // Set by the binary loader from the header of a lean file (pack_snapshot_lean): the long text fields
  // (snapshot_text_fields) were left out and are empty until apply_snapshot_text fills them. Not in the JSON.
  bool text_left_out = false;

  bool operator==(const Snapshot&) const = default;
  int find_gpu(const std::string& id) const;
  int find_provider(const std::string& id) const;
  int find_offer(const std::string& id) const;
};

// Checks `s.reservations` (ids unique, terms increasing or none for a negotiated contract, prices on offers their provider sells, one product per
// offer) and sets each priced offer's reserved_usd_per_h and reservation. Both readers call it after the offers;
// the error names the field ("/reservations/0/prices/3/offer: ..."). A price naming an offer the snapshot does not
// have is not an error (a trimmed or rebuilt snapshot keeps its products): it prices nothing and, when `warnings`
// is given, adds a "reservation_without_offer" warning.
Result<bool> attach_reservations(Snapshot& s, std::vector<Warning>* warnings = nullptr);

// The booking product that prices offer `o` (Offer::reservation), or nullptr when it has none.
const Reservation* reservation_of(const Snapshot& s, const Offer& o);

// The availability fact of offer `o`: an exception of the provider that runs it matching its instance type, else
// the default of the provider that sells it (a marketplace's own terms for what it resells).
const AccessFact& access_fact(const Snapshot& s, const Offer& o);

// "massedcompute via shadeform", or the provider id alone when sold directly. The provider whose terms bill the
// offer is seller_of (billing.h).
std::string offer_seller_text(const Snapshot& s, const Offer& o);

// ---- loading, validation, serialisation (core/src/storage/snapshot.cpp, snapshot_json_*.cpp, snapshot_flags.cpp, snapshot_writer.cpp) ----
inline constexpr int kSnapshotSchemaVersion = 1;

struct SnapshotLoadOptions {
  std::string today;                   // ISO date; "" = skip the staleness check
  double stale_after_days = 90;        // capture older than this (relative to `today`) -> kFlagStale
  double deep_spot_discount = 0.85;    // spot below (1 - this) x on-demand -> kFlagDeepSpotDiscount
  double outlier_factor = 2.5;         // per-GPU price beyond median x/÷ this -> kFlagPriceOutlier
  uint64_t max_input_bytes = 32ull << 20;  // refuse larger documents outright (bounded memory)
  int max_errors = 200;                // stop collecting after this many (the count is still reported)
};

// Every problem found, each with the JSON pointer into the document and the reason.
struct SnapshotReport {
  std::vector<Error> errors;
  std::vector<Warning> warnings;
  int errors_dropped = 0;              // errors beyond max_errors, counted but not listed
  bool ok() const { return errors.empty() && errors_dropped == 0; }
};

// Parse + validate. Returns the snapshot only when there are no errors; warnings become offer flags and are
// also copied to Snapshot::warnings. Never throws, never recurses on input depth.
std::optional<Snapshot> load_snapshot_report(std::string_view json_text, const SnapshotLoadOptions& opt,
                                             SnapshotReport* report);
// Convenience: the first error (with the total count) or the snapshot; warnings appended if non-null.
Result<Snapshot> load_snapshot(std::string_view json_text, std::vector<Warning>* warnings = nullptr);
Result<Snapshot> load_snapshot(std::string_view json_text, const SnapshotLoadOptions& opt,
                               std::vector<Warning>* warnings);
// Deterministic JSON (same snapshot -> same bytes). Offers are written as {"columns": [...], "rows": [...]}.
std::string snapshot_to_json(const Snapshot& s);
// ---- compact binary form (core/src/storage/snapshot_binary.cpp; docs/snapshot.md, "Binary form") ----
// What the web page loads for the bundled snapshot (data/snapshot.bin, made from data/snapshot.json by
// `trainfit snapshot pack`): the JSON's content as the reader leaves it, before the checks that depend on the
// load options, which run at load as after the JSON. Loading it with the same options gives the same Snapshot
// and warnings as loading the JSON. Little-endian, versioned, checksummed; a damaged or foreign file is refused.
// 3: Offer::via; 4: offers as columns; 5: reservations; 6: a reservation's min_instances and cancellable_published
inline constexpr uint32_t kSnapshotBinaryVersion = 6;
// Reads and checks the JSON, then packs it; a JSON the reader refuses is refused (its first error).
Result<std::string> pack_snapshot(std::string_view json_text);
std::optional<Snapshot> load_snapshot_binary_report(std::string_view bytes, const SnapshotLoadOptions& opt,
                                                    SnapshotReport* report);
Result<Snapshot> load_snapshot_binary(std::string_view bytes, const SnapshotLoadOptions& opt,
                                      std::vector<Warning>* warnings = nullptr);
// The lean form the web page loads first (docs/snapshot.md, "Lean form and text sidecar"): the same format with
// header flag kBinaryFlagTextLeftOut and the long text fields empty (GPU datasheet sources and notes, provider
// notes and billing/spot/storage/egress/provision/catalog sources, the sources list's notes: what only the
// Snapshot tab and tooltips show), plus the text sidecar JSON (snapshot_text_json) that puts them back.
inline constexpr uint32_t kBinaryFlagTextLeftOut = 1;
struct LeanPack {
  std::string binary;     // data/snapshot.bin
  std::string text_json;  // data/snapshot-text.json
};
Result<LeanPack> pack_snapshot_lean(std::string_view json_text);

// ---- the text sidecar (core/src/storage/snapshot_text.cpp) ----
// {"format": "trainfit-snapshot-text", "version": 1, "snapshot_id": ..., "sources": {id: {"note": ...}},
//  "gpus": {id: {field: text}}, "providers": {id: {field: text, "billing_exceptions": [{match, note, source}]}}};
// deterministic, empty fields omitted.
std::string snapshot_text_json(const Snapshot& s);
// Empties the fields the sidecar carries and sets Snapshot::text_left_out.
void strip_snapshot_text(Snapshot& s);
// Fills a lean snapshot's text from its sidecar (untrusted input): only when the snapshot has its text left out
// and the sidecar's snapshot_id is the snapshot's id; only the known text fields of records the snapshot has;
// never a number, id or flag. Any problem refuses the whole sidecar (Error names the field) and leaves the
// snapshot unchanged. Returns the number of fields filled; clears text_left_out.
Result<size_t> apply_snapshot_text(Snapshot& s, std::string_view sidecar_json);

// The header's checksum of the payload: FNV-1a-64 applied to 8-byte little-endian words, then to the last 0-7
// bytes one at a time (docs/snapshot.md).
uint64_t snapshot_binary_checksum(std::string_view payload);

// The name an offer is shown under. A marketplace row (sold through one, or a marketplace's own row keyed
// "<cloud>__<N>x<GPU>_<mem>__<vcpus>__<ram>") reads from its own fields: "8x RTX 6000 Ada Generation 48 GB,
// 80 vCPU, 480 GiB RAM" (GPU count and name, datasheet memory, the GPU link when more than PCIe, vCPUs, host RAM;
// a field that is 0 is left out).
// Any other offer is shown under its instance type. The raw instance type stays in Offer::instance_type.
std::string offer_display_name(const Snapshot& s, const Offer& o);

// When the prices were captured (not when the snapshot was built): each distinct offer capture date, oldest
// first, with the providers whose offers carry it, and the age of the oldest against Snapshot::judged_on.
struct CaptureDate {
  std::string date;
  std::vector<std::string> providers;  // provider ids, in snapshot order
  int offers = 0;
};
struct PriceDates {
  std::vector<CaptureDate> dates;
  std::optional<int> age_days;   // of the oldest capture; nullopt when judged_on or the date is unknown
  bool stale = false;            // some offer carries kFlagStale
};
PriceDates price_dates(const Snapshot& s);
// One line for headers: "2026-09-20" or "2026-09-20 (aws, gcp), 2026-10-01 (lambda)".
std::string price_dates_text(const PriceDates& d);
// The command that refreshes the bundled prices (README, docs/snapshot.md "Updating it").
inline constexpr const char* kRefreshPricesCommand = "scripts/update-snapshot /path/to/skypilot-catalog";

// Days from `from` to `to` (ISO YYYY-MM-DD); nullopt if either is not a valid date.
std::optional<int> days_between(std::string_view from, std::string_view to);

}  // namespace trainfit
