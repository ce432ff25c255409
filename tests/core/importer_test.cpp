// Importer tests on the miniature catalog in tests/fixtures/catalog (see tests/fixtures/README.md).
// Prices in the expectations are the fixture's own rows (copied from SkyPilot catalog v9 rows).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "trainfit/storage/importer.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const std::string kRoot = TRAINFIT_SOURCE_DIR;

// The real curated inputs, plus one rule for the made-up RTX 6000 Ada fixture row.
ImportInputs fixture_inputs(const std::string& catalog_dir = kRoot + "/tests/fixtures/catalog") {
  ImportInputs in;
  in.gpus_json = read_text(kRoot + "/data/inputs/gpus.json");
  in.providers_json = read_text(kRoot + "/data/inputs/providers.json");
  auto fam = nlohmann::json::parse(read_text(kRoot + "/data/inputs/instance_families.json"));
  nlohmann::json rule = nlohmann::json::object();
  rule["provider"] = "lambda";
  rule["match"] = "gpu_1x_rtx6000_ada";
  rule["gpu"] = "rtx-6000-ada";
  rule["intra_link"] = "none";
  rule["intra_link_GBps"] = 0;
  rule["inter_net"] = "none";
  rule["inter_net_Gbps"] = 0;
  rule["max_nodes"] = 1;
  rule["source"] = "test fixture";
  fam["families"].insert(fam["families"].begin(), rule);
  in.families_json = fam.dump();
  auto refs = list_catalog_files(in.providers_json);
  EXPECT_TRUE(refs.ok());
  for (const auto& r : refs.value()) in.catalogs.push_back({r, read_text(catalog_dir + "/" + r.path)});
  return in;
}

class ImporterFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto r = import_snapshot(fixture_inputs());
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    result_ = new ImportResult(std::move(r).value());
  }
  static void TearDownTestSuite() { delete result_; }
  static const Offer& offer(const std::string& id) {
    const int i = result_->snapshot.find_offer(id);
    EXPECT_GE(i, 0) << "no offer " << id;
    return result_->snapshot.offers.at(i < 0 ? 0 : i);
  }
  static std::string gpu_of(const std::string& id) { return result_->snapshot.gpus[offer(id).gpu].id; }
  static bool has_note(const std::string& code, const std::string& subject) {
    for (const auto& n : result_->notes)
      if (n.code == code && n.field.find(subject) != std::string::npos) return true;
    return false;
  }
  static ImportResult* result_;
};
ImportResult* ImporterFixture::result_ = nullptr;

TEST_F(ImporterFixture, H100PcieAndSxmGetDifferentGpusFromInstanceTypeNotAcceleratorName) {
  EXPECT_EQ(gpu_of("lambda/gpu_1x_h100_pcie/us-east-1"), "h100-pcie");
  EXPECT_EQ(gpu_of("lambda/gpu_8x_h100_sxm5/us-east-1"), "h100-sxm");
  EXPECT_EQ(gpu_of("aws/p5.48xlarge/us-east-1"), "h100-sxm");
}

TEST_F(ImporterFixture, A100FortyAndEightyGigabyteAreDistinctGpus) {
  EXPECT_EQ(gpu_of("lambda/gpu_1x_a100/us-east-1"), "a100-pcie-40gb");
  EXPECT_EQ(gpu_of("lambda/gpu_8x_a100_80gb_sxm4/us-east-1"), "a100-sxm-80gb");
  EXPECT_EQ(gpu_of("aws/p4d.24xlarge/us-east-1"), "a100-sxm-40gb");
  EXPECT_EQ(result_->snapshot.gpus[offer("lambda/gpu_1x_a100/us-east-1").gpu].memory_bytes, 40e9);
}

TEST_F(ImporterFixture, TuringQuadroRtx6000IsNotRtx6000Ada) {
  EXPECT_EQ(gpu_of("lambda/gpu_1x_rtx6000/us-east-1"), "quadro-rtx-6000");
  EXPECT_EQ(gpu_of("lambda/gpu_1x_rtx6000_ada/us-east-1"), "rtx-6000-ada");
}

TEST_F(ImporterFixture, GcpOfferIsHostRowPlusGpuRowOfTheSameZone) {
  const Offer& o = offer("gcp/a3-highgpu-8g/us-central1");
  // Cheapest zone is us-central1-a: host 9.46006 + GPU 33.60609 (zone b has GPU 34.0).
  EXPECT_EQ(o.zone, "us-central1-a");
  EXPECT_NEAR(o.price_usd_per_h, 9.46006 + 33.60609, 1e-9);
  EXPECT_NEAR(o.host_usd_per_h, 9.46006, 1e-9);
  EXPECT_NEAR(o.accel_usd_per_h, 33.60609, 1e-9);
  EXPECT_EQ(o.gpu_count, 8);
  EXPECT_EQ(o.zone_count, 2);
  // Spot range over the two zones: 5.38 + 42.0 (b) .. 5.38 + 42.48592 (a).
  EXPECT_NEAR(o.spot_usd_per_h, 5.38 + 42.0, 1e-9);
  EXPECT_NEAR(o.spot_max_usd_per_h, 5.38 + 42.48592, 1e-9);
  EXPECT_NEAR(price_per_gpu_usd_per_h(o), (9.46006 + 33.60609) / 8, 1e-9);
}

TEST_F(ImporterFixture, GcpSuspectGpuRowsCarryUnverifiedPriceAndSpotAboveOnDemand) {
  const Offer& o = offer("gcp/a3-highgpu-8g/us-central1");
  EXPECT_TRUE(o.flags & kFlagUnverifiedPrice);
  EXPECT_TRUE(o.flags & kFlagSpotAboveOnDemand);  // 47.4 spot vs 43.07 on-demand
}

TEST_F(ImporterFixture, ZeroHostComponentIsFlaggedButTotalKept) {
  const Offer& o = offer("gcp/a4-highgpu-8g/us-central1");
  EXPECT_NEAR(o.price_usd_per_h, 90.216, 1e-9);
  EXPECT_EQ(o.host_usd_per_h, 0.0);
  EXPECT_TRUE(o.flags & kFlagZeroComponent);
}

TEST_F(ImporterFixture, GcpGpuRowsWithoutHostRowAreNotOffered) {
  // P4 has no GPU spec and no rule pairing it with a host.
  for (const auto& o : result_->snapshot.offers) EXPECT_EQ(o.instance_type.find("P4"), std::string::npos) << o.id;
  EXPECT_TRUE(has_note("gcp_accelerator_without_host", "P4x1"));
  EXPECT_TRUE(has_note("gcp_host_without_gpu_row", "a2-highgpu-1g"));
}

// Fixture rows: SkyPilot catalog v9 gcp/vms.csv, us-central1-a (g2-standard-4 host 0.14679 / spot 0.07502, L4 x1
// 0.56004 / 0.2862); GCP's G2 table (cloud.google.com/compute/docs/gpus#l4-gpus) gives g2-standard-4 one L4.
TEST_F(ImporterFixture, GcpG2HostJoinsItsFixedL4Count) {
  const Offer& o = offer("gcp/g2-standard-4/us-central1");
  EXPECT_EQ(gpu_of("gcp/g2-standard-4/us-central1"), "l4");
  EXPECT_EQ(o.gpu_count, 1);
  EXPECT_NEAR(o.host_usd_per_h, 0.14679, 1e-9);
  EXPECT_NEAR(o.accel_usd_per_h, 0.56004, 1e-9);
  EXPECT_NEAR(o.price_usd_per_h, 0.70683, 1e-9);
  EXPECT_NEAR(o.spot_usd_per_h, 0.36122, 1e-9);
}

TEST_F(ImporterFixture, GcpHostWhoseGpuCountHasNoRowIsSkippedWithANote) {
  // g2-standard-24 carries 2 L4 and the fixture has no L4 x2 row; n1-highmem-8 + T4:2 likewise.
  EXPECT_LT(result_->snapshot.find_offer("gcp/g2-standard-24/us-central1"), 0);
  EXPECT_TRUE(has_note("gcp_host_without_gpu_row", "g2-standard-24"));
  EXPECT_LT(result_->snapshot.find_offer("gcp/n1-highmem-8+T4:2/us-central1"), 0);
  EXPECT_TRUE(has_note("gcp_host_without_gpu_row", "n1-highmem-8+T4:2"));
  // An N1 size no rule pairs with a GPU.
  EXPECT_TRUE(has_note("unmapped_instance_type", "n1-standard-1"));
}

// One N1 host type carries different GPUs (SkyPilot's default host: n1-highmem-4 for T4 x1, n1-highmem-8 for T4 x2
// and V100 x1); each pair is its own offer named host+ACCEL:count. Rows: catalog v9 us-central1-a.
TEST_F(ImporterFixture, GcpN1HostJoinsEveryAttachedGpuRuleAsItsOwnOffer) {
  const Offer& t4 = offer("gcp/n1-highmem-4+T4:1/us-central1");
  EXPECT_EQ(gpu_of("gcp/n1-highmem-4+T4:1/us-central1"), "t4");
  EXPECT_EQ(t4.instance_type, "n1-highmem-4+T4:1");
  EXPECT_NEAR(t4.host_usd_per_h, 0.23661, 1e-9);
  EXPECT_NEAR(t4.accel_usd_per_h, 0.35, 1e-9);
  EXPECT_NEAR(t4.price_usd_per_h, 0.58661, 1e-9);
  const Offer& v = offer("gcp/n1-highmem-8+V100:1/us-central1");
  EXPECT_EQ(gpu_of("gcp/n1-highmem-8+V100:1/us-central1"), "v100-sxm2-16gb");
  EXPECT_EQ(v.gpu_count, 1);
  EXPECT_NEAR(v.price_usd_per_h, 0.47321 + 2.48, 1e-9);
  EXPECT_NEAR(v.spot_usd_per_h, 0.15896 + 1.2338, 1e-9);
  EXPECT_NEAR(v.host_ram_bytes, 52 * kGiB, 1);
}

TEST_F(ImporterFixture, CheapestZoneRepresentsRegionAndSpotRangeIsKept) {
  const Offer& o = offer("aws/p5.48xlarge/us-east-1");
  EXPECT_EQ(o.zone_count, 3);
  EXPECT_EQ(o.zone, "use1-az1");  // all zones tie at 55.04: smallest zone name wins
  EXPECT_NEAR(o.price_usd_per_h, 55.04, 1e-9);
  EXPECT_NEAR(o.spot_usd_per_h, 16.95, 1e-9);
  EXPECT_NEAR(o.spot_max_usd_per_h, 55.04, 1e-9);  // one zone's spot equals on-demand
  EXPECT_NEAR(o.local_disk_bytes, 8 * 3800e9, 1);
  EXPECT_NEAR(o.host_ram_bytes, 2048 * kGiB, 1);
  EXPECT_EQ(o.intra_link, LinkClass::nvswitch);
  EXPECT_EQ(o.inter_net, NetKind::efa);
  EXPECT_EQ(o.inter_net_Gbps, 3200);
}

TEST_F(ImporterFixture, SpotDiscountBeyondEightyFivePercentIsFlagged) {
  // p6-b300: 15.98 spot vs 142.416 on-demand = 88.8% off.
  EXPECT_TRUE(offer("aws/p6-b300.48xlarge/us-west-2").flags & kFlagDeepSpotDiscount);
  EXPECT_FALSE(offer("aws/p5.48xlarge/us-east-1").flags & kFlagDeepSpotDiscount);  // 69% off
}

TEST_F(ImporterFixture, MissingOnDemandPriceKeepsSpotOnlyOfferAndSkipsPricelessRow) {
  const Offer& o = offer("aws/p5e.48xlarge/ap-southeast-2");
  EXPECT_LT(o.price_usd_per_h, 0);
  EXPECT_NEAR(o.spot_usd_per_h, 44.82, 1e-9);
  EXPECT_LT(result_->snapshot.find_offer("aws/p5e.48xlarge/us-east-2"), 0);
  EXPECT_TRUE(has_note("no_price", "p5e.48xlarge"));
}

// RunPod (tests/fixtures/catalog/v8/runpod, real rows of the v8 file; quirks in data/raw/skypilot-catalog/SOURCE.md).
TEST_F(ImporterFixture, RunPodGigabytesUnderTheMebibyteKeyAreReadAsGigabytes) {
  // GpuInfo says "SizeInMiB: 80" for an 80 GB A100: providers.json declares per_gpu_GB, so no mismatch note.
  const Offer& o = offer("runpod/1x_A100-80GB_SECURE/any");
  EXPECT_EQ(result_->snapshot.gpus[o.gpu].id, "a100-pcie-80gb");
  EXPECT_EQ(result_->snapshot.gpus[o.gpu].memory_bytes, 80e9);
  EXPECT_FALSE(has_note("catalog_gpu_memory_mismatch", "runpod/"));
}

TEST_F(ImporterFixture, RunPodPlainH100IsThePcieCardAndTheSuffixesNameSxmAndEdition) {
  EXPECT_EQ(gpu_of("runpod/1x_H100_SECURE/any"), "h100-pcie");  // GpuInfo Name 'H100 PCIe'
  EXPECT_EQ(gpu_of("runpod/8x_H100-SXM_SECURE/any"), "h100-sxm");
  EXPECT_EQ(offer("runpod/8x_H100-SXM_SECURE/any").intra_link, LinkClass::nvswitch);
  EXPECT_EQ(gpu_of("runpod/1x_A100-80GB-SXM_SECURE/any"), "a100-sxm-80gb");  // A100-80GB alone is PCIe (above)
  EXPECT_EQ(gpu_of("runpod/2x_RTXPRO6000_SECURE/any"), "rtx-pro-6000-blackwell-server");
  EXPECT_EQ(gpu_of("runpod/2x_RTXPRO6000-WK_SECURE/any"), "rtx-pro-6000-blackwell-workstation");
  EXPECT_EQ(offer("runpod/1x_H100_SECURE/any").zone_count, 2);  // AP-IN-1 and AP-IN-2: every data centre is a zone of one offer
}

TEST_F(ImporterFixture, RunPodSpotPriceEqualToPriceIsNoSpotPrice) {
  const Offer& o = offer("runpod/1x_H100_SECURE/any");
  EXPECT_EQ(o.price_usd_per_h, 2.89);
  EXPECT_LT(o.spot_usd_per_h, 0) << "the catalog's SpotPrice 2.89 is the on-demand price again";
  EXPECT_TRUE(has_note("spot_equal_to_price", "runpod/"));
}

TEST(Importer, ASpotPriceBelowPriceStillCountsWhereEqualMeansNone) {
  ImportInputs in = fixture_inputs();
  for (auto& c : in.catalogs)
    if (c.ref.provider == "runpod")  // made-up row: the real v8 file has SpotPrice == Price everywhere
      c.text += "1x_L40S_SECURE,L40S,1.0,12.0,62.0,IN,0.5,0.99,AP-IN-1,\"{'Gpus': [{'Name': 'L40S', 'Manufacturer': "
                "'Nvidia', 'Count': 1, 'MemoryInfo': {'SizeInMiB': 48}}], 'TotalGpuMemoryInMiB': 48}\"\n";
  auto r = import_snapshot(in);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const auto& s = r.value().snapshot;
  const int i = s.find_offer("runpod/1x_L40S_SECURE/any");
  ASSERT_GE(i, 0);
  EXPECT_EQ(s.offers[i].spot_usd_per_h, 0.5);
}

TEST_F(ImporterFixture, RunPodMultiGpuB300HostRamGrowingWithTheSquareIsDividedByTheGpuCount) {
  // 1x B300: 503 GiB; 2x: 2,012 GiB (4x, not 2x: SkyPilot's fetcher scales the per-pod figure by the count twice).
  EXPECT_EQ(offer("runpod/1x_B300_SECURE/any").host_ram_bytes, 503.0 * 1073741824.0);
  EXPECT_EQ(offer("runpod/2x_B300_SECURE/any").host_ram_bytes, 1006.0 * 1073741824.0);
  EXPECT_EQ(offer("runpod/2x_B300_SECURE/any").vcpus, 86);  // vCPUs are right as they are
  EXPECT_TRUE(has_note("host_ram_times_gpu_count", "runpod/2x_B300_SECURE"));
  EXPECT_FALSE(has_note("host_ram_times_gpu_count", "runpod/1x_B300_SECURE"));
}

TEST_F(ImporterFixture, RunPodMi300xIsAnAmdGpuLinkedByInfinityFabric) {
  const Offer& two = offer("runpod/2x_MI300X_SECURE/any");
  const GpuSpec& g = result_->snapshot.gpus[two.gpu];
  EXPECT_EQ(g.id, "mi300x");
  EXPECT_EQ(g.vendor, "AMD");
  EXPECT_EQ(two.intra_link, LinkClass::infinity_fabric);
  EXPECT_EQ(offer("runpod/1x_MI300X_SECURE/any").intra_link, LinkClass::none);
}

TEST_F(ImporterFixture, RunPodRtxPro4500ServerEditionIsNotTheWorkstationCard) {
  // "RTXPRO4500-SE" (Server Edition: 165 W, 800 GB/s) has no complete datasheet entry and stays out; the plain
  // RTXPRO4500 rule must not catch it.
  EXPECT_EQ(gpu_of("runpod/2x_RTXPRO4500_SECURE/any"), "rtx-pro-4500-blackwell");
  EXPECT_LT(result_->snapshot.find_offer("runpod/1x_RTXPRO4500-SE_SECURE/any"), 0);
  EXPECT_TRUE(has_note("unmapped_instance_type", "runpod/1x_RTXPRO4500-SE_SECURE"));
}

TEST(Importer, RefusesUnknownValuesOfTheRunPodQuirkKeys) {
  ImportInputs in = fixture_inputs();
  auto fam = nlohmann::json::parse(in.families_json);
  fam["families"][0]["catalog_host_ram"] = "maybe";
  const std::string good_fam = in.families_json;
  in.families_json = fam.dump();
  auto r = import_snapshot(in);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().field.find("/catalog_host_ram"), std::string::npos) << r.error().to_string();
  in.families_json = good_fam;
  const std::string good_prov = in.providers_json;
  auto prov = nlohmann::json::parse(in.providers_json);
  for (auto& p : prov["providers"])
    if (p["id"] == "runpod") p["catalog"][0]["spot_equal_to_price"] = true;
  in.providers_json = prov.dump();
  r = import_snapshot(in);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().field.find("/spot_equal_to_price"), std::string::npos) << r.error().to_string();
  prov = nlohmann::json::parse(good_prov);
  for (auto& p : prov["providers"])
    if (p["id"] == "runpod") p["catalog"][0]["one_region"] = "eu-west";  // only "any" (kAnyRegion) is meant
  in.providers_json = prov.dump();
  r = import_snapshot(in);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().field.find("/one_region"), std::string::npos) << r.error().to_string();
}

// RunPod prices a configuration alike in every data centre: with "one_region": "any" its rows in every country
// are the zones of one offer, which a launch recipe names no region for.
TEST_F(ImporterFixture, RunPodDataCentresOfEveryCountryAreOneOffer) {
  const Offer& o = offer("runpod/1x_H100_SECURE/any");
  EXPECT_EQ(o.region, kAnyRegion);
  EXPECT_EQ(o.zone_count, 2);
  EXPECT_LT(result_->snapshot.find_offer("runpod/1x_H100_SECURE/IN"), 0);
}

TEST_F(ImporterFixture, UnmappedInstanceTypeIsSkippedWithANote) {
  EXPECT_LT(result_->snapshot.find_offer("aws/zz9.large/us-east-1"), 0);
  EXPECT_TRUE(has_note("unmapped_instance_type", "zz9.large"));
}

TEST_F(ImporterFixture, SingleGpuInstanceHasNoIntraNodeLink) {
  EXPECT_EQ(offer("lambda/gpu_1x_h100_pcie/us-east-1").intra_link, LinkClass::none);
}

TEST_F(ImporterFixture, OciBareMetalKeepsItsHourMinimumRule) {
  const auto& s = result_->snapshot;
  const Provider& oci = s.providers[s.find_provider("oci")];
  ASSERT_EQ(oci.billing_exceptions.size(), 1u);
  EXPECT_EQ(oci.billing_exceptions[0].match, "BM.");
  EXPECT_EQ(oci.billing_exceptions[0].minimum_s, 3600);
  EXPECT_GE(s.find_offer("oci/BM.GPU.H100.8/eu-amsterdam-1"), 0);
}

// Vast.ai (tests/fixtures/catalog/v8/vast): AcceleratorName "H100" covers SXM and NVL, "A100" 40 and 80 GB; the
// instance type and GpuInfo's memory tell them apart. GpuInfo's SizeInMiB is the whole instance's here.
TEST_F(ImporterFixture, VastH100SxmAndNvlAreTwoGpusByInstanceType) {
  EXPECT_EQ(gpu_of("vast/1x-H100_SXM-32-65536/Texas, US, NA"), "h100-sxm");
  EXPECT_EQ(gpu_of("vast/1x-H100_NVL-32-65536/Bulgaria, BG, EU"), "h100-nvl");
}

TEST_F(ImporterFixture, VastA100FortyAndEightyGigabyteComeFromTheCatalogMemory) {
  // Same instance type, 40,960 vs 81,920 MiB per GPU (the second row is made up: the real extract has no 80 GB SXM4).
  EXPECT_EQ(gpu_of("vast/1x-A100_SXM4-32-65536/Georgia, US, NA"), "a100-sxm-40gb");
  EXPECT_EQ(gpu_of("vast/1x-A100_SXM4-32-65536/Texas, US, NA"), "a100-sxm-80gb");
  EXPECT_EQ(gpu_of("vast/1x-A100_PCIE-32-65536/Oklahoma, US, NA"), "a100-pcie-80gb");
}

TEST_F(ImporterFixture, VastRtx4090ClaimingFortyEightGigabytesIsJudgedWithItsTwentyFourGigabyteSpec) {
  const Offer& hk = offer("vast/1x-RTX_4090-32-65536/Hong Kong, HK, AS");
  const GpuSpec& g = result_->snapshot.gpus[hk.gpu];
  EXPECT_EQ(g.id, "rtx-4090");
  EXPECT_EQ(g.memory_bytes, 24e9);
  EXPECT_LT(gpu_capacity_bytes(g), 30e9);  // 24,564 MiB reported by the driver, not 48 GB
  EXPECT_TRUE(has_note("catalog_gpu_memory_mismatch", "vast/1x-RTX_4090"));
  // 2x RTX 4090 says 49,128 MiB for the instance: 24,564 per GPU, no mismatch.
  EXPECT_FALSE(has_note("catalog_gpu_memory_mismatch", "vast/2x-RTX_4090"));
}

TEST_F(ImporterFixture, VastZeroSpotPriceMeansNoSpotAndVastSellsDirectly) {
  const Offer& o = offer("vast/1x-H100_SXM-32-65536/Texas, US, NA");
  EXPECT_LT(o.spot_usd_per_h, 0);
  EXPECT_EQ(o.price_usd_per_h, 1.87);
  EXPECT_EQ(o.via, -1);
  EXPECT_EQ(result_->snapshot.providers[o.provider].id, "vast");
  EXPECT_TRUE(has_note("zero_spot_price", "vast/"));
  EXPECT_TRUE(has_note("unmapped_instance_type", "8x-Tesla_V100"));  // SXM2 or PCIe not stated
}

// Shadeform (tests/fixtures/catalog/v8/shadeform): InstanceType "<cloud>_<shape>"; the cloud runs the row, Shadeform
// sells it (via). GpuInfo's SizeInMiB is in GB there.
TEST_F(ImporterFixture, ShadeformRowIsRunByItsCloudAndSoldViaShadeform) {
  const auto& s = result_->snapshot;
  const Offer& o = offer("shadeform/massedcompute_A6000x8/kansascity-usa-1");
  EXPECT_EQ(s.providers[o.provider].id, "massedcompute");
  ASSERT_GE(o.via, 0);
  EXPECT_EQ(s.providers[o.via].id, "shadeform");
  EXPECT_EQ(offer_seller_text(s, o), "massedcompute via shadeform");
  EXPECT_EQ(gpu_of("shadeform/massedcompute_A6000x8/kansascity-usa-1"), "rtx-a6000");
  EXPECT_EQ(o.capture_date, s.providers[o.via].capture_date) << "the row's date is its catalog's";
}

TEST_F(ImporterFixture, TheSameHardwareSoldDirectlyAndThroughShadeformStaysTwoOffers) {
  const Offer& direct = offer("lambda/gpu_1x_h100_pcie/us-east-1");
  const Offer& resold = offer("shadeform/lambdalabs_H100/saltlakecity-usa-1");
  EXPECT_EQ(direct.provider, resold.provider);
  EXPECT_EQ(direct.gpu, resold.gpu);
  EXPECT_EQ(direct.via, -1);
  EXPECT_GE(resold.via, 0);
  EXPECT_NE(direct.price_usd_per_h, resold.price_usd_per_h);
}

TEST_F(ImporterFixture, ShadeformGigabytesUnderTheMebibyteKeyAreReadAsGigabytes) {
  // "SizeInMiB: 48" for an A6000, "40" / "80" for A100 SXM4: per-GPU GB, no mismatch, and enough to tell 40 from 80.
  EXPECT_FALSE(has_note("catalog_gpu_memory_mismatch", "shadeform/"));
  EXPECT_EQ(gpu_of("shadeform/denvr_A100-sxm4/calgary-canada-1"), "a100-sxm-40gb");
  EXPECT_EQ(gpu_of("shadeform/denvr_A100-sxm4-80GB/houston-usa-1"), "a100-sxm-80gb");
}

TEST_F(ImporterFixture, ShadeformGaudiRowIsLeftOut) {
  EXPECT_LT(result_->snapshot.find_offer("shadeform/denvr_Gaudi2x8/houston-usa-1"), 0);
  EXPECT_TRUE(has_note("unmapped_instance_type", "denvr_Gaudi2x8"));
}

// Prime Intellect (v8/primeintellect): "<cloud>__<shape>" types, the GPU read from UpstreamCloudId (the cloud's own
// shape name), spot priced in a row of its own ("__SPOT"), partner data centres that name no known cloud.
TEST_F(ImporterFixture, PrimeIntellectSpotRowJoinsItsOnDemandTypeAndTheCloudComesFromThePrefix) {
  const auto& s = result_->snapshot;
  const Offer& o = offer("primeintellect/datacrunch__1xH200_141GB__44__182/IS");
  EXPECT_EQ(s.providers[o.provider].id, "verda");
  EXPECT_EQ(s.providers[o.via].id, "primeintellect");
  EXPECT_EQ(s.gpus[o.gpu].id, "h200-sxm");
  EXPECT_GT(o.price_usd_per_h, 0);
  EXPECT_GT(o.spot_usd_per_h, 0) << "the __SPOT row is the spot price of the same instance type";
  EXPECT_LT(s.find_offer("primeintellect/datacrunch__1xH200_141GB__44__182__SPOT/IS"), 0);
  // Hyperstack's plain n3-H100x1 is PCIe, as Hyperstack's own rule says; the type name does not tell.
  EXPECT_EQ(gpu_of("primeintellect/hyperstack__1xH100_80GB__28__180/CA"), "h100-pcie");
  const Offer& roan = offer("primeintellect/dc_roan__8xH100_80GB__104__1024/US");
  EXPECT_EQ(s.providers[roan.provider].id, "primeintellect");
  EXPECT_EQ(roan.via, -1) << "a partner data centre with no provider record is Prime Intellect's own row";
}

// Spheron (v8/spheron): the Provider column names the cloud; AcceleratorName carries the form factor, except where
// the instance type contradicts it.
TEST_F(ImporterFixture, SpheronCloudComesFromItsProviderColumnAndTheFormFactorFromItsNames) {
  const auto& s = result_->snapshot;
  const Offer& dc = offer("spheron/1H100.80S.32V_FIN-03_500/Finland 3");
  EXPECT_EQ(s.providers[dc.provider].id, "verda");
  EXPECT_EQ(s.providers[dc.via].id, "spheron");
  EXPECT_EQ(s.gpus[dc.gpu].id, "h100-sxm");
  EXPECT_GT(dc.spot_usd_per_h, 0);
  // "H100_NVL" at 80 GB per GPU is Hyperstack's bridged H100 PCIe, not the 94 GB H100 NVL; Spheron runs it itself.
  const Offer& nvl = offer("spheron/n3-H100x8-NVLink__CANADA-1/CANADA-1");
  EXPECT_EQ(s.gpus[nvl.gpu].id, "h100-pcie");
  EXPECT_EQ(nvl.intra_link, LinkClass::nvlink_bridge);
  EXPECT_EQ(nvl.via, -1);
  // Massed Compute's SXM4 labelled A100_80G_PCIE: the instance type wins.
  EXPECT_EQ(gpu_of("spheron/gpu_1x_a100_SXM4_us-central-3/us-central-3"), "a100-sxm-80gb");
}

// The fixture catalog has no Lium or Yotta file and no offer on an RTX 3070: their records stay in the inputs, out
// of the snapshot, each with a note.
TEST_F(ImporterFixture, ProvidersAndGpusWithoutOffersAreLeftOutWithANote) {
  const auto& s = result_->snapshot;
  EXPECT_LT(s.find_provider("lium"), 0);
  EXPECT_LT(s.find_provider("yotta"), 0);
  EXPECT_TRUE(has_note("provider_without_offers", "lium/"));
  EXPECT_LT(s.find_gpu("rtx-3070"), 0);
  EXPECT_TRUE(has_note("gpu_without_offers", "rtx-3070"));
  EXPECT_GE(s.find_provider("shadeform"), 0) << "a marketplace that sells offers stays";
  EXPECT_GE(s.find_provider("massedcompute"), 0) << "a cloud that runs resold offers stays";
}

TEST(Importer, CatalogEntriesSayWhetherTheirFileMayBeAbsent) {
  auto refs = list_catalog_files(read_text(kRoot + "/data/inputs/providers.json"));
  ASSERT_TRUE(refs.ok());
  bool aws_required = false, lium_optional = false;
  for (const auto& r : refs.value()) {
    if (r.provider == "aws") aws_required = !r.optional;
    if (r.provider == "lium") lium_optional = r.optional;
  }
  EXPECT_TRUE(aws_required);
  EXPECT_TRUE(lium_optional);
  auto bad = list_catalog_files(R"({"providers":[{"id":"x","catalog":[{"role":"vms","path":"a.csv","optional":"yes"}]}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().field.find("optional"), std::string::npos);
}

TEST_F(ImporterFixture, OutputValidatesAndReserializesToTheSameBytes) {
  SnapshotReport r;
  auto s = load_snapshot_report(result_->json, SnapshotLoadOptions{}, &r);
  ASSERT_TRUE(s.has_value()) << (r.errors.empty() ? "" : r.errors[0].to_string());
  // Loading adds derived flags; serialising the importer-flag subset again must give the same bytes.
  for (auto& o : s->offers) o.flags &= (kFlagUnverifiedPrice | kFlagSpecIncomplete);
  EXPECT_EQ(snapshot_to_json(*s), result_->json);
}

TEST(Importer, IsDeterministic) {
  auto a = import_snapshot(fixture_inputs());
  auto b = import_snapshot(fixture_inputs());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.value().json, b.value().json);
  EXPECT_EQ(a.value().snapshot.id, b.value().snapshot.id);
}

TEST(Importer, RefusesAFamilyRuleNamingAnUnknownGpu) {
  ImportInputs in = fixture_inputs();
  auto fam = nlohmann::json::parse(in.families_json);
  fam["families"][0]["gpu"] = "h100-imaginary";
  in.families_json = fam.dump();
  auto r = import_snapshot(in);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("h100-imaginary"), std::string::npos);
}

TEST(Importer, RefusesAnAttachedRuleThatIsNotAGcpRuleOrNotABoolean) {
  ImportInputs in = fixture_inputs();
  auto fam = nlohmann::json::parse(in.families_json);
  fam["families"][0]["attached"] = true;  // the Lambda fixture rule: no gcp_accelerator
  in.families_json = fam.dump();
  auto r = import_snapshot(in);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().field.find("/attached"), std::string::npos) << r.error().to_string();
  fam["families"][0]["attached"] = "yes";
  in.families_json = fam.dump();
  r = import_snapshot(in);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("true or false"), std::string::npos) << r.error().to_string();
}

TEST(Importer, RefusesRaggedCsvRows) {
  ImportInputs in = fixture_inputs();
  in.catalogs[0].text += "p5.48xlarge,H100,8.0\n";
  EXPECT_FALSE(import_snapshot(in).ok());
}

// The bundled data/snapshot.json must be exactly what the importer makes from the catalog extract kept in the
// repository (data/raw/skypilot-catalog, SOURCE.md there).
TEST(Importer, BundledSnapshotIsReproducibleFromTheRepositoryCatalog) {
  const std::string cat = kRoot + "/data/raw/skypilot-catalog";
  ASSERT_FALSE(read_text(cat + "/v9/aws/vms.csv").empty()) << "catalog extract missing under " << cat;
  ImportInputs in;
  in.gpus_json = read_text(kRoot + "/data/inputs/gpus.json");
  in.providers_json = read_text(kRoot + "/data/inputs/providers.json");
  in.families_json = read_text(kRoot + "/data/inputs/instance_families.json");
  in.reservations_json = read_text(kRoot + "/data/inputs/reservations.json");
  const auto refs = list_catalog_files(in.providers_json);
  ASSERT_TRUE(refs.ok());
  for (const auto& r : refs.value()) in.catalogs.push_back({r, read_text(cat + "/" + r.path)});
  auto res = import_snapshot(in);
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  EXPECT_EQ(res.value().json, read_text(kRoot + "/data/snapshot.json"));
}

TEST(Csv, HandlesQuotedCommasEscapedQuotesAndCrlf) {
  auto r = parse_csv("a,b,c\r\n1,\"x, \"\"y\"\"\",\n,,\n");
  ASSERT_TRUE(r.ok());
  const auto& rows = r.value();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][1], "x, \"y\"");
  EXPECT_EQ(rows[1][2], "");
  EXPECT_EQ(rows[2].size(), 3u);
  EXPECT_FALSE(parse_csv("a,\"unterminated\n").ok());
}

TEST(Glob, MatchesStarsAndLiterals) {
  EXPECT_TRUE(glob_match("gpu_*_h100_sxm5", "gpu_8x_h100_sxm5"));
  EXPECT_FALSE(glob_match("gpu_*_h100_sxm5", "gpu_1x_h100_pcie"));
  EXPECT_TRUE(glob_match("*-a100-pci*", "epyc-genoa-a100-pcie_1x2v4gb"));
  EXPECT_FALSE(glob_match("p5.48xlarge", "p5e.48xlarge"));
  EXPECT_TRUE(glob_match("a3-edgegpu-8g*", "a3-edgegpu-8g-nolssd"));
}

}  // namespace
}  // namespace trainfit
