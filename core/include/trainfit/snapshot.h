// trainfit core — the published price snapshot: GPUs, providers with their billing rules, offers.
// Loaded from data/snapshot.json (schema: data/snapshot.schema.json). Validation never throws: every
// problem comes back with its JSON pointer; a snapshot with errors is refused (the caller keeps the old one).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "trainfit/common.h"

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
  double memory_bytes = 0;     // usable device memory in bytes (datasheet GB figure * 1e9 unless noted)
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
};

struct BillingRule {
  std::string match;           // instance-type prefix this rule applies to ("" = provider default)
  double increment_s = 1;      // billing increment after the minimum (1 = per second, 3600 = hourly)
  double minimum_s = 60;       // minimum charge per billing segment (each start of an instance)
  std::string note;
  std::string source;
};

struct SpotRules {
  bool available = false;
  std::string pricing;                 // "market" | "fixed_discount" | "bid"
  double interruption_rate_per_h = 0;  // expected interruptions per instance-hour (Poisson)
  double notice_s = 0;                 // warning before reclaim
  bool early_preemption_free = false;  // e.g. GCP-style: no charge when preempted in the first minutes
  double free_window_s = 0;
  std::string source;
};

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
};

struct Offer {
  std::string id;              // unique: provider/instance_type/region[/zone]
  int provider = -1;           // index into Snapshot::providers
  std::string instance_type;
  std::string region;
  std::string zone;
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
  std::string capture_date;
  uint32_t flags = kFlagNone;
};

struct SourceRef {
  std::string id;
  std::string address;
  std::string capture_date;
  std::string note;
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
  std::vector<Warning> warnings;   // validation warnings kept with the data

  int find_gpu(const std::string& id) const;
  int find_provider(const std::string& id) const;
};

}  // namespace trainfit
