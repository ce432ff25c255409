// Snapshot loader/validator/serializer tests: the bundled snapshot, and broken documents that must be refused
// with a JSON pointer to the problem.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "trainfit/storage/snapshot.h"

namespace trainfit {
std::string_view embedded_snapshot_json();  // data/snapshot.json, compiled into trainfit_bundled
namespace {

using nlohmann::json;

// A small valid document; tests break one thing at a time.
json minimal_doc() {
  // The H100's figures as the bundled snapshot has them (from data/inputs/gpus.json: no GPU figure typed here).
  static const json bundled = json::parse(embedded_snapshot_json());
  json gpu = {{"id", "h100-sxm"}, {"name", "H100 SXM"}, {"vendor", "NVIDIA"}, {"arch", "Hopper"}, {"year", 2022},
              {"nvlink_gen", 4}, {"pcie_gen", 5}, {"tdp_w", 700}, {"source", "https://example/h100"},
              {"source_status", "verified"}};
  for (const json& g : bundled["gpus"])
    if (g["id"] == "h100-sxm")
      for (const char* f : {"memory_bytes", "mem_bandwidth_GBps", "tflops_fp32", "tflops_tf32", "tflops_bf16",
                            "tflops_fp16", "tflops_fp8", "nvlink_GBps"})
        gpu[f] = g[f];
  json billing = {{"increment_s", 1}, {"minimum_s", 60}, {"note", ""}, {"source", "https://example/billing"}};
  json spot = {{"available", true}, {"pricing", "market"}, {"interruption_rate_per_h", nullptr}, {"notice_s", 120},
               {"early_preemption_free", false}, {"free_window_s", 0}, {"source", "https://example/spot"}};
  auto provider = [&](const char* id) {
    return json{{"id", id}, {"name", id}, {"capture_date", "2026-09-20"}, {"catalog_source", "https://example/cat"},
                {"billing", billing}, {"billing_exceptions", json::array()}, {"provision_s", 300},
                {"bills_provisioning", true}, {"provision_source", "assumption"}, {"spot", spot},
                {"storage_usd_per_GB_month", 0.08}, {"storage_read_MBps", nullptr}, {"storage_write_MBps", nullptr},
                {"storage_source", "x"}, {"egress_usd_per_GB", nullptr}, {"egress_source", "x"},
                {"network_download_MBps", nullptr}, {"notes", ""}};
  };
  json cols = {"id", "provider", "instance_type", "region", "zone", "zone_count", "gpu", "gpu_count", "vcpus",
               "host_ram_GiB", "local_disk_GB", "intra_link", "intra_link_GBps", "inter_net", "inter_net_Gbps",
               "max_nodes", "price_usd_per_h", "spot_usd_per_h", "spot_max_usd_per_h", "host_usd_per_h",
               "accel_usd_per_h", "capture_date", "flags"};
  auto row = [](const char* id, const char* prov, double price, json spot_price) {
    return json{id, prov, "p5.48xlarge", "us-east-1", "use1-az1", 1, "h100-sxm", 8, 192, 2048, nullptr,
                "nvswitch", 900, "efa", 3200, 64, price, spot_price, spot_price, nullptr, nullptr, "2026-09-20", 0};
  };
  return json{{"schema_version", 1},
              {"id", "test-1"},
              {"created", "2026-11-29"},
              {"currency", "USD"},
              {"sources", json::array()},
              {"gpus", json::array({gpu})},
              {"providers", json::array({provider("aws"), provider("lambda")})},
              {"offers", {{"columns", cols},
                          {"rows", json::array({row("aws/p5.48xlarge/us-east-1", "aws", 55.04, 16.95),
                                                row("lambda/p5.48xlarge/us-east-1", "lambda", 31.92, nullptr)})}}}};
}

SnapshotReport report_of(const std::string& text, const SnapshotLoadOptions& opt = {}) {
  SnapshotReport r;
  load_snapshot_report(text, opt, &r);
  return r;
}
bool has_error(const SnapshotReport& r, const std::string& pointer, const std::string& words) {
  for (const auto& e : r.errors)
    if (e.field == pointer && e.message.find(words) != std::string::npos) return true;
  return false;
}

TEST(Snapshot, MinimalDocumentLoads) {
  auto s = load_snapshot(minimal_doc().dump());
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(s->offers.size(), 2u);
  EXPECT_EQ(s->find_gpu("h100-sxm"), 0);
  EXPECT_EQ(s->find_provider("lambda"), 1);
  EXPECT_EQ(s->find_gpu("h100"), -1);
  EXPECT_LT(s->offers[1].spot_usd_per_h, 0);  // null spot = no spot
}

TEST(Snapshot, BundledSnapshotValidatesWithZeroErrorsAndLoadsInMilliseconds) {
  const std::string_view text = embedded_snapshot_json();
  SnapshotReport r;
  const auto t0 = std::chrono::steady_clock::now();
  auto s = load_snapshot_report(text, SnapshotLoadOptions{}, &r);
  const auto t1 = std::chrono::steady_clock::now();
  ASSERT_TRUE(s.has_value()) << (r.errors.empty() ? "" : r.errors[0].to_string());
  EXPECT_TRUE(r.errors.empty());
  EXPECT_GT(s->offers.size(), 500u);
  EXPECT_EQ(s->providers.size(), 32u);  // Verda, Hyperstack, Vast.ai, three marketplaces (Shadeform, Prime Intellect, Spheron) and their clouds, v8 clouds, Azure
  std::printf("bundled snapshot: %zu bytes, %zu offers, loaded+validated in %.2f ms\n", text.size(), s->offers.size(),
              std::chrono::duration<double, std::milli>(t1 - t0).count());
  // Every offer names a known GPU with a source.
  for (const auto& o : s->offers) {
    ASSERT_GE(o.gpu, 0);
    EXPECT_FALSE(s->gpus[o.gpu].source.empty());
  }
}

TEST(Snapshot, TruncatedDocumentIsRefused) {
  const std::string text = minimal_doc().dump();
  for (size_t cut : {size_t{0}, size_t{1}, text.size() / 2, text.size() - 1}) {
    auto r = report_of(text.substr(0, cut));
    EXPECT_FALSE(r.ok()) << cut;
  }
  EXPECT_FALSE(load_snapshot(text.substr(0, text.size() / 3)).ok());
}

TEST(Snapshot, OtherSchemaVersionIsRefused) {
  json d = minimal_doc();
  d["schema_version"] = 2;
  auto r = report_of(d.dump());
  EXPECT_TRUE(has_error(r, "/schema_version", "unsupported schema_version 2"));
  d["schema_version"] = "1";
  EXPECT_TRUE(has_error(report_of(d.dump()), "/schema_version", "unsupported"));
}

TEST(Snapshot, DuplicateOfferIdIsReportedWithItsPointer) {
  json d = minimal_doc();
  d["offers"]["rows"][1][0] = d["offers"]["rows"][0][0];
  EXPECT_TRUE(has_error(report_of(d.dump()), "/offers/rows/1/0", "duplicate offer id"));
}

TEST(Snapshot, UnknownGpuAndUnknownProviderAreReported) {
  json d = minimal_doc();
  d["offers"]["rows"][0][6] = "h100";  // the catalog's ambiguous name is not a GPU id
  d["offers"]["rows"][1][1] = "azure";
  auto r = report_of(d.dump());
  EXPECT_TRUE(has_error(r, "/offers/rows/0/6", "unknown GPU \"h100\""));
  EXPECT_TRUE(has_error(r, "/offers/rows/1/1", "unknown provider \"azure\""));
}

TEST(Snapshot, NegativeAndMissingPricesAreReported) {
  json d = minimal_doc();
  d["offers"]["rows"][0][16] = -1.5;
  d["offers"]["rows"][1][16] = nullptr;  // lambda row already has no spot: no price at all
  auto r = report_of(d.dump());
  EXPECT_TRUE(has_error(r, "/offers/rows/0/16", "negative value"));
  EXPECT_TRUE(has_error(r, "/offers/rows/1", "neither an on-demand nor a spot price"));
}

TEST(Snapshot, MistypedFieldsAreReported) {
  json d = minimal_doc();
  d["offers"]["rows"][0][7] = "eight";
  d["gpus"][0]["memory_bytes"] = "80GB";
  auto r = report_of(d.dump());
  EXPECT_TRUE(has_error(r, "/offers/rows/0/7", "expected an integer"));
  EXPECT_TRUE(has_error(r, "/gpus/0/memory_bytes", "expected a number"));
}

TEST(Snapshot, MissingBillingRulesAreReported) {
  json d = minimal_doc();
  d["providers"][0].erase("billing");
  d["providers"][1]["billing"].erase("source");
  auto r = report_of(d.dump());
  EXPECT_TRUE(has_error(r, "/providers/0/billing", "missing required field"));
  EXPECT_TRUE(has_error(r, "/providers/1/billing/source", "missing required field"));
}

TEST(Snapshot, EveryErrorIsListedNotJustTheFirst) {
  json d = minimal_doc();
  d["created"] = "2026-13-01";
  d["gpus"][0].erase("source");
  d["offers"]["rows"][0][16] = -1;
  d["offers"]["rows"][1][6] = "nope";
  auto r = report_of(d.dump());
  EXPECT_EQ(r.errors.size(), 4u);
  auto one = load_snapshot(d.dump());
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.error().message.find("and 3 more errors"), std::string::npos);
}

TEST(Snapshot, AbsurdSizesAreRefused) {
  json d = minimal_doc();
  d["gpus"] = json::array();
  for (int i = 0; i < 1001; ++i) d["gpus"].push_back(json::object());
  EXPECT_TRUE(has_error(report_of(d.dump()), "/gpus", "absurd size"));
  json e = minimal_doc();
  e["gpus"][0]["memory_bytes"] = 1e15;  // a petabyte GPU
  EXPECT_TRUE(has_error(report_of(e.dump()), "/gpus/0/memory_bytes", "out of range"));
  e = minimal_doc();
  e["offers"]["rows"][0][7] = 100000;
  EXPECT_TRUE(has_error(report_of(e.dump()), "/offers/rows/0/7", "out of range"));
}

TEST(Snapshot, DeepNestingIsRefusedWithoutRecursing) {
  std::string deep(200000, '[');
  auto r = report_of(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].message.find("nested deeper"), std::string::npos);
}

// The loader parses with nlohmann's SAX parser into json_reader.h's tree; these pin the rules it keeps (nlohmann's
// DOM's, and what RapidJSON 1.1.0, its parser for a while, got wrong) and its parse-error wording.

// Only the first error's message, or "" when the document loads.
std::string first_error(const std::string& text) {
  const SnapshotReport r = report_of(text);
  return r.errors.empty() ? "" : r.errors[0].to_string();
}

TEST(SnapshotParser, DuplicateKeysKeepTheLastValue) {
  const std::string text = minimal_doc().dump();  // keys sorted: "currency" comes before "gpus"
  ASSERT_EQ(text.front(), '{');
  // A second "currency" after the real one wins: the document is refused for it.
  std::string last_eur = text.substr(0, text.size() - 1) + ",\"currency\":\"EUR\"}";
  EXPECT_TRUE(has_error(report_of(last_eur), "/currency", "only USD")) << first_error(last_eur);
  // The same key first, then the real one: the real one wins and the document loads.
  std::string first_eur = "{\"currency\":\"EUR\"," + text.substr(1);
  EXPECT_TRUE(report_of(first_eur).ok()) << first_error(first_eur);
  // Inside a nested object too.
  std::string gpu = text;
  const std::string key = "\"tdp_w\":700";
  const size_t at = gpu.find(key);
  ASSERT_NE(at, std::string::npos);
  gpu.insert(at + key.size(), ",\"tdp_w\":-5");
  EXPECT_TRUE(has_error(report_of(gpu), "/gpus/0/tdp_w", "negative value -5")) << first_error(gpu);
}

TEST(SnapshotParser, ParseErrorsSayWhyAndWhere) {
  // nlohmann's words and position (1-based line and column), without the token it last read.
  const std::string bad = "not valid JSON (truncated or malformed): ";
  // the column is the last of the token read where a ',' or '}' should be (the string "id", columns 22-25)
  EXPECT_EQ(first_error("{\"schema_version\": 1 \"id\": \"x\"}"),
            bad + "line 1, column 25: syntax error while parsing object - unexpected string literal; expected '}'");
  EXPECT_EQ(first_error(""),
            bad + "line 1, column 1: syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal");
  EXPECT_EQ(first_error("{} x"), bad + "line 1, column 4: syntax error while parsing value - invalid literal; expected end of input");
  // A whole byte order mark is skipped; a partial one is refused.
  EXPECT_EQ(first_error("\xEF\xBB\xBF{,}"),
            bad + "line 1, column 5: syntax error while parsing object key - unexpected ','; expected string literal");
  EXPECT_EQ(first_error("\xEF{}"), bad + "line 1, column 2: syntax error while parsing value - invalid BOM; must be 0xEF 0xBB 0xBF if given");
  EXPECT_EQ(first_error("6"), "expected an object, got number");  // JSON, but not a snapshot
  const std::string text = minimal_doc().dump();
  EXPECT_EQ(first_error(text.substr(0, 100)),
            bad + "line 1, column 101: syntax error while parsing object key - invalid string: missing closing quote; expected string literal");
  // The token read last is left out: it is untrusted bytes (here invalid UTF-8), never echoed into a message.
  EXPECT_EQ(first_error("{\"a\": tru\xff}"), bad + "line 1, column 10: syntax error while parsing value - invalid literal");
}

TEST(SnapshotParser, TextThatNlohmannRefusedIsStillRefused) {
  const std::string text = minimal_doc().dump();
  auto with_name = [&](const std::string& raw) {  // the GPU's name, as raw JSON string contents
    std::string t = text;
    const std::string key = "\"name\":\"H100 SXM\"";
    const size_t at = t.find(key);
    EXPECT_NE(at, std::string::npos);
    return t.replace(at, key.size(), "\"name\":\"" + raw + "\"");
  };
  EXPECT_TRUE(report_of(with_name("H100 \xC3\xA9 \\u00e9 \\ud83d\\ude00")).ok());  // valid UTF-8 and escapes
  for (const std::string bad : {"\xff", "\xC3", "\xC0\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\\uD800",
                                "\\uDC00", "\\uD800x", "tab\there", "\\x41"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(first_error(with_name(bad)).rfind("not valid JSON (truncated or malformed)", 0), 0u)
        << first_error(with_name(bad));
  }
  for (const char* bad : {"[1,]", "{\"a\":1,}", "{'a':1}", "[NaN]", "[Infinity]", "[01]", "[1.]", "[.5]", "[+1]",
                          "[1e]", "/*c*/{}", "{\"a\" 1}", "[\"a\"\"b\"]", "{}{}", "\xEF\xBB{}"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(first_error(bad).rfind("not valid JSON (truncated or malformed)", 0), 0u) << first_error(bad);
  }
}

TEST(SnapshotParser, NumbersAreReadAsNlohmannAndStrtodReadThem) {
  auto price_doc = [](const std::string& literal) {  // the first offer's on-demand price as a raw literal
    json d = minimal_doc();
    d["offers"]["rows"][0][16] = 123456.5;
    d["offers"]["rows"][0][17] = nullptr;
    d["offers"]["rows"][0][18] = nullptr;
    std::string t = d.dump();
    const size_t at = t.find("123456.5");
    return t.replace(at, 8, literal);
  };
  for (const char* literal : {"55.04", "0.18626499999999999", "5.3832700000000004", "10.766540000000001", "1e3",
                              "1E+3", "2.5e-3", "0.000001", "9999.999999999999999999", "100000000000000000000e-20",
                              "4.35e-5", "0", "-0", "0.0", "9007.199254740993", "1.000000000000000111"}) {
    SCOPED_TRACE(literal);
    auto s = load_snapshot(price_doc(literal));
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    EXPECT_EQ(s->offers[0].price_usd_per_h, std::strtod(literal, nullptr));  // bit for bit
  }
  // Overflow is a parse error (nlohmann: "number overflow"), never infinity or a wrapped value.
  for (const char* literal : {"1e400", "1.7976931348623159e308", "1037747886482800954818827e293", "-1e309"}) {
    SCOPED_TRACE(literal);
    EXPECT_NE(first_error(price_doc(literal)).find("not valid JSON (truncated or malformed): number overflow parsing '"),
              std::string::npos) << first_error(price_doc(literal));
  }
  // Far below the smallest double: zero, as strtod gives (RapidJSON 1.1.0's own conversion, used here once, read
  // out of bounds of its power-of-ten table on the first one); a zero with a huge exponent is zero.
  for (const char* literal : {"459.1335567417496687507380771823564e-347", "1e-400", "2.4703282292062328e-324", "0e400"}) {
    SCOPED_TRACE(literal);
    auto s = load_snapshot(price_doc(literal));
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    EXPECT_EQ(s->offers[0].price_usd_per_h, std::strtod(literal, nullptr));
  }
}

TEST(SnapshotParser, SchemaVersionMustBeAnIntegerLiteral) {
  const std::string text = minimal_doc().dump();
  const std::string key = "\"schema_version\":1";
  for (const char* v : {"1.0", "1e0", "10e-1", "\"1\"", "true", "[1]", "{\"v\":1}", "18446744073709551617", "-0"}) {
    SCOPED_TRACE(v);
    std::string t = text;
    t.replace(t.find(key), key.size(), std::string("\"schema_version\":") + v);
    EXPECT_TRUE(has_error(report_of(t), "/schema_version", "unsupported schema_version ")) << first_error(t);
  }
  // The value is quoted as nlohmann printed it.
  std::string t = text;
  t.replace(t.find(key), key.size(), "\"schema_version\":{\"b\":[1.50,2],\"a\":null,\"b\":\"x\"}");
  EXPECT_EQ(first_error(t),
            "/schema_version: unsupported schema_version {\"a\":null,\"b\":\"x\"} (this build reads 1)");
  t = text;
  t.replace(t.find(key), key.size(), "\"schema_version\":1.0");
  EXPECT_EQ(first_error(t), "/schema_version: unsupported schema_version 1.0 (this build reads 1)");
}

TEST(Snapshot, ArbitraryBytesNeverCrash) {
  std::mt19937 rng(12345);
  const std::string base = minimal_doc().dump();
  for (int i = 0; i < 300; ++i) {
    std::string t = base;
    for (int k = 0; k < 1 + i % 8; ++k) t[rng() % t.size()] = static_cast<char>(rng() % 256);
    SnapshotReport r;
    auto s = load_snapshot_report(t, SnapshotLoadOptions{}, &r);
    EXPECT_EQ(s.has_value(), r.ok());  // either it loads, or it says why
    if (!s) {
      EXPECT_FALSE(r.errors.empty());
    }
  }
}

TEST(Snapshot, SuspiciousDataBecomesFlagsAndWarnings) {
  json d = minimal_doc();
  d["offers"]["rows"][0][17] = 60.0;  // spot above on-demand 55.04
  d["offers"]["rows"][0][18] = 60.0;
  SnapshotLoadOptions opt;
  opt.today = "2027-03-01";  // 162 days after the 2026-09-20 capture
  std::vector<Warning> w;
  auto s = load_snapshot(d.dump(), opt, &w);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->offers[0].flags & kFlagSpotAboveOnDemand);
  EXPECT_TRUE(s->offers[0].flags & kFlagStale);
  EXPECT_FALSE(s->offers[1].flags & kFlagSpotAboveOnDemand);
  bool found = false;
  for (const auto& x : w) found |= x.code == "spot_above_on_demand" && x.field == "/offers/rows/0";
  EXPECT_TRUE(found);
  // No "today": no staleness verdict.
  auto s2 = load_snapshot(d.dump());
  EXPECT_FALSE(s2->offers[0].flags & kFlagStale);
}

TEST(Snapshot, ZeroComponentAndDeepDiscountAreFlagged) {
  json d = minimal_doc();
  d["offers"]["rows"][0][17] = 5.0;   // 91% below 55.04
  d["offers"]["rows"][0][18] = 5.0;
  d["offers"]["rows"][1][16] = 0.0;   // a $0 price in the source
  auto s = load_snapshot(d.dump());
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->offers[0].flags & kFlagDeepSpotDiscount);
  EXPECT_TRUE(s->offers[1].flags & kFlagZeroComponent);
}

TEST(Snapshot, PriceFarFromMedianOfOtherProvidersIsAnOutlier) {
  json d = minimal_doc();
  auto extra = d["offers"]["rows"][1];
  for (const char* p : {"oci", "gcp"}) {
    json prov = d["providers"][0];
    prov["id"] = p;
    d["providers"].push_back(prov);
  }
  extra[0] = "oci/x/r"; extra[1] = "oci"; extra[16] = 30.0;
  d["offers"]["rows"].push_back(extra);
  extra[0] = "gcp/x/r"; extra[1] = "gcp"; extra[16] = 160.0;  // $20 per GPU-hour vs a median of provider medians of $5.43
  d["offers"]["rows"].push_back(extra);
  auto s = load_snapshot(d.dump());
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_TRUE(s->offers[3].flags & kFlagPriceOutlier);
  EXPECT_FALSE(s->offers[1].flags & kFlagPriceOutlier);
}

TEST(Snapshot, SerializerIsDeterministicAndRoundTrips) {
  auto s = load_snapshot(minimal_doc().dump());
  ASSERT_TRUE(s.ok());
  const std::string a = snapshot_to_json(*s);
  EXPECT_EQ(a, snapshot_to_json(*s));
  auto s2 = load_snapshot(a);
  ASSERT_TRUE(s2.ok()) << s2.error().to_string();
  EXPECT_EQ(snapshot_to_json(*s2), a);
  EXPECT_EQ(s2->offers[0].host_ram_bytes, 2048 * kGiB);
}

TEST(Snapshot, DaysBetweenUsesTheCalendar) {
  EXPECT_EQ(days_between("2026-09-20", "2026-11-29"), 70);
  EXPECT_EQ(days_between("2024-02-28", "2024-03-01"), 2);  // leap year
  EXPECT_FALSE(days_between("2026-02-30", "2026-03-01").has_value());
  EXPECT_FALSE(days_between("yesterday", "2026-03-01").has_value());
}

// ---------------------------------------------------------------- binary form (pack_snapshot)

std::string read_source_file(const std::string& rel) {
  std::string out;
  if (std::FILE* f = std::fopen((std::string(TRAINFIT_SOURCE_DIR) + "/" + rel).c_str(), "rb")) {
    char buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    std::fclose(f);
  }
  return out;
}

// Loads `json_text` both ways with `opt` and expects the same Snapshot and warnings.
void expect_binary_loads_like_json(const std::string& json_text, const SnapshotLoadOptions& opt) {
  std::vector<Warning> wj, wb;
  Result<Snapshot> from_json = load_snapshot(json_text, opt, &wj);
  ASSERT_TRUE(from_json.ok()) << from_json.error().to_string();
  Result<std::string> packed = pack_snapshot(json_text);
  ASSERT_TRUE(packed.ok()) << packed.error().to_string();
  Result<Snapshot> from_bin = load_snapshot_binary(packed.value(), opt, &wb);
  ASSERT_TRUE(from_bin.ok()) << from_bin.error().to_string();
  EXPECT_TRUE(from_bin.value() == from_json.value());
  EXPECT_TRUE(wb == wj);
  EXPECT_TRUE(from_bin->warnings == from_json->warnings);
}

TEST(SnapshotBinary, TheBundledSnapshotLoadsToWhatItsJsonLoadsToOnAnyDay) {
  // The staleness flags and warnings depend on the day of the load: they are made at load in both forms.
  for (const char* today : {"", "2026-11-29", "2027-06-01"}) {
    SCOPED_TRACE(today);
    SnapshotLoadOptions opt;
    opt.today = today;
    expect_binary_loads_like_json(std::string(embedded_snapshot_json()), opt);
  }
  SnapshotLoadOptions strict;  // other thresholds: other flags, still the same result both ways
  strict.outlier_factor = 1.5;
  strict.deep_spot_discount = 0.5;
  expect_binary_loads_like_json(std::string(embedded_snapshot_json()), strict);
}

TEST(SnapshotBinary, EveryFieldTheReaderFillsSurvivesThePacking) {
  // Every field of every struct away from its default (a field the packing forgot would come back default), a
  // billing exception, an unknown column (a reader warning, kept), and an offer flag from the file.
  json d = minimal_doc();
  json& g = d["gpus"][0];
  g["spec_incomplete"] = true;
  g["spec_note"] = "no FP8 figure published";
  d["sources"] = json::array({{{"id", "src"}, {"address", "https://example/src"}, {"capture_date", "2026-09-01"},
                               {"note", "a note"}}});
  for (json& p : d["providers"]) {
    p["billing"]["match"] = "";
    p["billing_exceptions"] = json::array({{{"match", "BM."}, {"increment_s", 3600}, {"minimum_s", 3600},
                                            {"note", "bare metal: hourly"}, {"source", "https://example/bm"}}});
    p["spot"]["interruption_rate_per_h"] = 0.07;
    p["spot"]["early_preemption_free"] = true;
    p["spot"]["free_window_s"] = 60;
    p["storage_read_MBps"] = 250;
    p["storage_write_MBps"] = 200;
    p["egress_usd_per_GB"] = 0.09;
    p["network_download_MBps"] = 100;
    p["notes"] = "notes";
    p["bills_provisioning"] = false;
  }
  d["offers"]["columns"].push_back("extra_column");
  d["offers"]["columns"].push_back("via");  // the marketplace that sells the offer: the second row, through aws
  for (json& r : d["offers"]["rows"]) {
    r[2] = "BM.GPU.H100.8";  // instance type: takes the billing exception
    r[5] = 2;                // zone_count
    r[10] = 30000;           // local_disk_GB
    r[19] = 10.0;            // host_usd_per_h
    r[20] = r[16].get<double>() - 10.0;  // accel_usd_per_h: host + accel = the price
    r[22] = 32;              // flags: unverified_price, from the file
    r.push_back("ignored");
    r.push_back(r[1] == "lambda" ? json("aws") : json(nullptr));
  }
  SnapshotLoadOptions opt;
  opt.today = "2026-11-29";
  Result<Snapshot> s = load_snapshot(d.dump(), opt, nullptr);
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  ASSERT_FALSE(s->warnings.empty());
  EXPECT_EQ(s->offers[0].local_disk_bytes, 30000 * 1e9);
  EXPECT_EQ(s->offers[0].flags & kFlagUnverifiedPrice, kFlagUnverifiedPrice);
  EXPECT_EQ(s->offers[1].via, 0);
  expect_binary_loads_like_json(d.dump(), opt);
}

TEST(SnapshotBinary, TheChecksumIsFnv1aOverEightByteWordsThenTheTailBytes) {
  // docs/snapshot.md: h = 0xcbf29ce484222325; per 8-byte little-endian word w: h = (h ^ w) * 0x100000001b3; then
  // per remaining byte c: h = (h ^ c) * 0x100000001b3 (mod 2^64).
  auto by_hand = [](std::string_view p) {
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i = 0;
    for (; i + 8 <= p.size(); i += 8) {
      uint64_t w = 0;
      for (int k = 7; k >= 0; --k) w = (w << 8) | static_cast<unsigned char>(p[i + k]);
      h = (h ^ w) * 0x100000001b3ull;
    }
    for (; i < p.size(); ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 0x100000001b3ull;
    return h;
  };
  EXPECT_EQ(snapshot_binary_checksum(""), 0xcbf29ce484222325ull);  // FNV-1a's offset basis
  EXPECT_EQ(snapshot_binary_checksum("a"), 0xaf63dc4c8601ec8cull);  // = FNV-1a-64("a"), the published test value
  for (std::string_view p : {"abcdefg", "abcdefgh", "abcdefghi", "0123456789abcdefXYZ"})
    EXPECT_EQ(snapshot_binary_checksum(p), by_hand(p)) << p;
}

TEST(SnapshotBinary, TheCommittedBinaryAndSidecarAreTheLeanPackingOfTheCommittedJson) {
  // data/snapshot.bin (lean) and data/snapshot-text.json are what the web page loads; scripts/update-snapshot
  // rewrites all three files.
  const char* how = "trainfit snapshot pack data/snapshot.json data/snapshot.bin --lean data/snapshot-text.json";
  const std::string json_text = read_source_file("data/snapshot.json");
  const std::string bin = read_source_file("data/snapshot.bin");
  const std::string text = read_source_file("data/snapshot-text.json");
  ASSERT_FALSE(json_text.empty());
  ASSERT_FALSE(bin.empty()) << "data/snapshot.bin is missing: " << how;
  ASSERT_FALSE(text.empty()) << "data/snapshot-text.json is missing: " << how;
  Result<LeanPack> packed = pack_snapshot_lean(json_text);
  ASSERT_TRUE(packed.ok());
  EXPECT_TRUE(packed->binary == bin) << "data/snapshot.bin is out of date: " << how;
  EXPECT_TRUE(packed->text_json == text) << "data/snapshot-text.json is out of date: " << how;
}

TEST(SnapshotBinary, DamagedOrForeignFilesAreRefusedWithTheReason) {
  const std::string good = pack_snapshot(embedded_snapshot_json()).value();
  auto refusal = [](const std::string& bytes) {
    Result<Snapshot> r = load_snapshot_binary(bytes, SnapshotLoadOptions{});
    return r.ok() ? std::string("loaded") : r.error().message;
  };
  EXPECT_NE(refusal(std::string(embedded_snapshot_json())).find("not a trainfit binary snapshot"), std::string::npos);
  EXPECT_NE(refusal("").find("not a trainfit binary snapshot"), std::string::npos);
  std::string newer = good;
  newer[4] = 7;  // format version 7 (this build reads 6)
  EXPECT_NE(refusal(newer).find("format version 7 (this build reads 6)"), std::string::npos);
  std::string older = good;
  older[4] = 5;  // version 5 (no reservation min_instances): refused, with what to do
  EXPECT_NE(refusal(older).find("format version 5 (this build reads 6; re-pack it"), std::string::npos);
  std::string schema = good;
  schema[8] = 9;
  EXPECT_NE(refusal(schema).find("schema_version 9"), std::string::npos);
  // Truncated anywhere (header, payload) or with a flipped bit: refused, never loaded.
  for (size_t n = 0; n < good.size(); n += 997) EXPECT_NE(refusal(good.substr(0, n)), "loaded") << n;
  EXPECT_NE(refusal(good.substr(0, good.size() - 1)), "loaded");
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    std::string bad = good;
    bad[32 + rng() % (good.size() - 32)] ^= static_cast<char>(1u << (rng() % 8));
    EXPECT_NE(refusal(bad).find("checksum"), std::string::npos);
  }
  EXPECT_NE(refusal(good + "x").find("payload is"), std::string::npos);
}

// Format 4 (docs/snapshot.md, "Binary form"): offers as columns over one string table, ids derived by the rule
// provider/instance_type/region, numbers as decimal-scaled integers where that is exact.
TEST(SnapshotBinary, OfferIdsOffTheRuleAndNonDecimalPricesSurviveThePacking) {
  json d = minimal_doc();
  d["offers"]["rows"][0][0] = "my-own-id";                 // not provider/instance_type/region: stored as is
  d["offers"]["rows"][1][16] = 1.0 / 3;                    // no exact decimal: the column falls back to binary64
  d["offers"]["rows"][0][9] = 1536.5;                      // host RAM in GiB, half a GiB: scaled by 10
  SnapshotLoadOptions opt;
  expect_binary_loads_like_json(d.dump(), opt);
  Result<Snapshot> s = load_snapshot_binary(pack_snapshot(d.dump()).value(), opt);
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(s->offers[0].id, "my-own-id");
  EXPECT_EQ(s->offers[1].id, "lambda/p5.48xlarge/us-east-1");
  EXPECT_EQ(s->offers[1].price_usd_per_h, 1.0 / 3);
}

TEST(SnapshotBinary, OffersShareOneCopyOfEachInstanceTypeRegionZoneAndDate) {
  // No per-offer copies of the strings offers repeat (the 100k-offer heap); both readers share them.
  const std::string text(embedded_snapshot_json());
  for (bool binary : {false, true}) {
    SCOPED_TRACE(binary ? "binary" : "json");
    Result<Snapshot> s = binary ? load_snapshot_binary(pack_snapshot(text).value(), SnapshotLoadOptions{})
                                : load_snapshot(text, SnapshotLoadOptions{}, nullptr);
    ASSERT_TRUE(s.ok());
    int pairs = 0;
    for (size_t i = 1; i < s->offers.size(); ++i) {
      const Offer &a = s->offers[i - 1], &b = s->offers[i];
      if (a.instance_type == b.instance_type) {
        ++pairs;
        EXPECT_TRUE(a.instance_type.same_copy(b.instance_type)) << b.id;
      }
      if (a.capture_date == b.capture_date) {
        EXPECT_TRUE(a.capture_date.same_copy(b.capture_date)) << b.id;
      }
      if (a.region == b.region) {
        EXPECT_TRUE(a.region.same_copy(b.region)) << b.id;
      }
    }
    EXPECT_GT(pairs, 100);  // an instance type's regions are listed together
  }
}

// Puts the payload's size and checksum into a binary snapshot's header (an altered payload that is read, not
// refused as damaged).
std::string with_checksum(std::string b) {
  const uint64_t h = snapshot_binary_checksum(std::string_view(b).substr(32));
  for (int i = 0; i < 8; ++i) b[24 + i] = static_cast<char>(h >> (8 * i));
  for (int i = 0; i < 8; ++i) b[16 + i] = static_cast<char>(static_cast<uint64_t>(b.size() - 32) >> (8 * i));
  return b;
}

TEST(SnapshotBinary, BadOfferCountsStringIndicesAndTruncationsAreRefusedWithTheReason) {
  // minimal_doc's two offers: the string table holds, in order of first use, the instance type, the region, the
  // zone and the date, preceded by the offer count (1 byte), the table's count (1) and the 4 lengths (1 each);
  // the columns follow it: provider (2 bytes), via (2), then the instance type's string indices (2).
  const std::string good = pack_snapshot(minimal_doc().dump()).value();
  const std::string table = "p5.48xlargeus-east-1use1-az12026-09-20";
  const size_t at = good.find(table);
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(good[at - 6], 2);  // the offer count
  ASSERT_EQ(good[at - 5], 4);  // the table's count
  auto refusal = [](const std::string& bytes) {
    Result<Snapshot> r = load_snapshot_binary(with_checksum(bytes), SnapshotLoadOptions{});
    return r.ok() ? std::string("loaded") : r.error().message;
  };
  ASSERT_EQ(refusal(good), "loaded");
  std::string bad = good;
  bad[at + table.size() + 4] = 9;  // offer 0's instance type: string 9 of 4
  EXPECT_NE(refusal(bad).find("offer column instance_type: string index 9 out of range (the table has 4)"),
            std::string::npos) << refusal(bad);
  bad = good;
  bad[at - 6] = 100;  // 100 offers in the bytes of 2
  EXPECT_NE(refusal(bad).find("offers: 100 cannot fit in the remaining bytes"), std::string::npos) << refusal(bad);
  bad = good;
  bad[at - 6] = 1;  // 1 offer: the second's cells are left over
  EXPECT_NE(refusal(bad), "loaded");
  bad = good;
  bad[at - 5] = 100;  // 100 strings in the table
  EXPECT_NE(refusal(bad).find("string table"), std::string::npos) << refusal(bad);
  bad = good;
  bad[at - 4] = static_cast<char>(0xff);  // the first length as two bytes: 16,383, past the end
  bad[at - 3] = 0x7f;
  EXPECT_NE(refusal(bad).find("string table: the strings run past the end"), std::string::npos) << refusal(bad);
  bad = good;
  bad[at - 6] = static_cast<char>(0xff);  // a variable-length count that never ends
  bad.resize(at - 5);
  EXPECT_NE(refusal(bad).find("truncated"), std::string::npos) << refusal(bad);
  // Cut anywhere in the offer table: refused, never loaded.
  for (size_t n = at - 6; n < good.size(); ++n) EXPECT_NE(refusal(good.substr(0, n)), "loaded") << n;
}

// The checksum stops accidental damage; a payload altered on purpose (checksum recomputed) must still be read
// safely: refused with a reason, or loaded with every index and kind in range. Run under ASan in scripts/test.
TEST(SnapshotBinary, AlteredPayloadsWithValidChecksumsNeverCrashTheReader) {
  const std::string good = pack_snapshot(minimal_doc().dump()).value();
  ASSERT_TRUE(load_snapshot_binary(with_checksum(good), SnapshotLoadOptions{}).ok());
  std::mt19937 rng(11);
  int loaded = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string bad = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) bad[32 + rng() % (bad.size() - 32)] = static_cast<char>(rng());
    if (rng() % 4 == 0) bad.resize(32 + rng() % (bad.size() - 32));
    Result<Snapshot> r = load_snapshot_binary(with_checksum(bad), SnapshotLoadOptions{});
    if (!r.ok()) {
      ++refused;
      EXPECT_FALSE(r.error().message.empty());
      continue;
    }
    ++loaded;
    for (const Offer& o : r->offers) {
      ASSERT_TRUE(o.gpu >= 0 && o.gpu < static_cast<int>(r->gpus.size()));
      ASSERT_TRUE(o.provider >= 0 && o.provider < static_cast<int>(r->providers.size()));
      ASSERT_TRUE(std::isfinite(o.price_usd_per_h) && std::isfinite(o.spot_usd_per_h));
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(loaded, 0);  // string bytes and prices can change without breaking the structure
}


// ---- the lean form and its text sidecar (snapshot_text.cpp; docs/snapshot.md, "Lean form and text sidecar")

namespace {
// A document with every text field the sidecar carries filled (EveryFieldTheReaderFillsSurvivesThePacking's
// kind): GPU notes and sources, provider notes, billing and exception notes/sources, spot/storage/egress/
// provision/catalog sources, the sources list's notes.
std::string text_rich_doc() {
  json d = minimal_doc();
  for (json& g : d["gpus"]) {
    g["spec_incomplete"] = true;
    g["spec_note"] = "no FP8 figure published \"quoted\"\n";
    g["source"] = "https://example/" + g["id"].get<std::string>();
  }
  d["sources"] = json::array({{{"id", "src"}, {"address", "https://example/src"}, {"capture_date", "2026-09-01"},
                               {"note", "a note, \u00e9"}}});
  for (json& p : d["providers"]) {
    p["billing"]["note"] = "per second";
    p["billing"]["source"] = "https://example/billing";
    p["billing_exceptions"] = json::array({{{"match", "BM."}, {"increment_s", 3600}, {"minimum_s", 3600},
                                            {"note", "bare metal: hourly"}, {"source", "https://example/bm"}},
                                           {{"match", "X."}, {"increment_s", 60}, {"minimum_s", 60}, {"note", ""}, {"source", "https://example/x"}}});
    p["notes"] = "notes of " + p["id"].get<std::string>();
    p["catalog_source"] = "https://example/catalog";
  }
  return d.dump();
}

Snapshot load_bin(const std::string& bytes) {
  SnapshotLoadOptions opt;
  opt.today = "2026-11-29";
  Result<Snapshot> s = load_snapshot_binary(bytes, opt);
  EXPECT_TRUE(s.ok()) << s.error().to_string();
  return s.ok() ? std::move(s.value()) : Snapshot{};
}
}  // namespace

TEST(SnapshotText, TheLeanBinaryWithItsSidecarAppliedIsTheFullSnapshot) {
  for (const std::string& doc : {text_rich_doc(), std::string(embedded_snapshot_json())}) {
    ASSERT_TRUE(pack_snapshot(doc).ok()) << pack_snapshot(doc).error().to_string();
    const Snapshot full = load_bin(pack_snapshot(doc).value());
    Result<LeanPack> lean = pack_snapshot_lean(doc);
    ASSERT_TRUE(lean.ok()) << lean.error().to_string();
    Snapshot s = load_bin(lean->binary);
    EXPECT_TRUE(s.text_left_out);
    EXPECT_FALSE(full.text_left_out);
    // Before the sidecar: every number, id, name, offer and flag already there; only the text is empty.
    Snapshot stripped = full;
    strip_snapshot_text(stripped);
    // (The warnings that quote a GPU's note quote the empty one until the sidecar is applied.)
    EXPECT_TRUE(s.sources == stripped.sources && s.gpus == stripped.gpus && s.providers == stripped.providers);
    EXPECT_TRUE(s.offers == full.offers) << "every offer, price and flag is in the lean form";
    EXPECT_EQ(s.warnings.size(), full.warnings.size());
    EXPECT_TRUE(s.gpus[0].source.empty());
    EXPECT_FALSE(full.gpus[0].source.empty());
    Result<size_t> n = apply_snapshot_text(s, lean->text_json);
    ASSERT_TRUE(n.ok()) << n.error().to_string();
    EXPECT_GT(n.value(), 0u);
    EXPECT_TRUE(s == full) << "lean + sidecar differs from the full snapshot";
    EXPECT_LT(lean->binary.size(), pack_snapshot(doc).value().size());
  }
}

TEST(SnapshotText, ABadSidecarIsRefusedWithTheFieldAndLeavesTheSnapshotUnchanged) {
  const std::string doc = text_rich_doc();
  const LeanPack lean = pack_snapshot_lean(doc).value();
  const Snapshot before = load_bin(lean.binary);
  const json good = json::parse(lean.text_json);
  const std::string gpu = before.gpus[0].id, prov = before.providers[0].id;
  auto edited = [&](auto edit) {
    json j = good;
    edit(j);
    return j.dump();
  };
  struct Case {
    std::string text, field, words;
  };
  const std::vector<Case> cases = {
      {"", "", "not JSON"},
      {"{\"format\": ", "", "not JSON"},
      {"[]", "", "must be a JSON object"},
      {edited([](json& j) { j["format"] = "other"; }), "/format", "not a trainfit text sidecar"},
      {edited([](json& j) { j["version"] = 2; }), "/version", "this build reads version 1"},
      {edited([](json& j) { j["snapshot_id"] = "another"; }), "/snapshot_id", "belongs to another snapshot"},
      {edited([](json& j) { j.erase("snapshot_id"); }), "/snapshot_id", "missing"},
      {edited([](json& j) { j["extra"] = 1; }), "/extra", "unknown field"},
      {edited([](json& j) { j["gpus"]["no-such-gpu"] = {{"source", "x"}}; }), "/gpus/no-such-gpu", "no record with this id"},
      {edited([&](json& j) { j["gpus"][gpu]["memory_bytes"] = "1"; }), "/gpus/" + gpu + "/memory_bytes", "unknown field"},
      {edited([&](json& j) { j["gpus"][gpu]["id"] = "other"; }), "/gpus/" + gpu + "/id", "unknown field"},
      {edited([&](json& j) { j["gpus"][gpu]["source"] = 3; }), "/gpus/" + gpu + "/source", "must be a string"},
      {edited([&](json& j) { j["gpus"][gpu] = "x"; }), "/gpus/" + gpu, "must be an object"},
      {edited([](json& j) { j["providers"] = json::array(); }), "/providers", "must be an object"},
      {edited([&](json& j) { j["providers"][prov]["billing_exceptions"].erase(0); }),
       "/providers/" + prov + "/billing_exceptions", "1 entries; the snapshot's provider has 2"},
      {edited([&](json& j) { j["providers"][prov]["billing_exceptions"][0]["match"] = "Y."; }),
       "/providers/" + prov + "/billing_exceptions/0/match", "must be the snapshot's exception match \"BM.\""},
      {edited([&](json& j) { j["providers"][prov]["billing_exceptions"][1]["increment_s"] = 1; }),
       "/providers/" + prov + "/billing_exceptions/1/increment_s", "unknown field"},
      {std::string(100, '[') + std::string(100, ']'), "", "nests deeper"},
      {std::string(9u << 20, ' '), "", "bytes (at most"},
  };
  for (const Case& c : cases) {
    Snapshot s = before;
    Result<size_t> r = apply_snapshot_text(s, c.text);
    ASSERT_FALSE(r.ok()) << c.text.substr(0, 300);
    EXPECT_EQ(r.error().field, c.field) << r.error().to_string();
    EXPECT_NE(r.error().message.find(c.words), std::string::npos) << r.error().to_string() << " (expected " << c.words << ")";
    EXPECT_TRUE(s == before) << "a refused sidecar changed the snapshot: " << r.error().to_string();
  }
  // A snapshot that has its text (the full binary, the JSON) is never overwritten.
  Snapshot full = load_bin(pack_snapshot(doc).value());
  const Snapshot kept = full;
  Result<size_t> r = apply_snapshot_text(full, lean.text_json);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("already holds its text"), std::string::npos);
  EXPECT_TRUE(full == kept);
}

TEST(SnapshotText, TheHeaderFlagSaysTheTextIsLeftOutAndUnknownFlagsAreRefused) {
  const LeanPack lean = pack_snapshot_lean(text_rich_doc()).value();
  EXPECT_EQ(static_cast<uint8_t>(lean.binary[12]), kBinaryFlagTextLeftOut);  // the header's flags word
  EXPECT_EQ(pack_snapshot(text_rich_doc()).value()[12], 0);
  std::string odd = lean.binary;
  odd[12] = 2;
  Result<Snapshot> r = load_snapshot_binary(odd, SnapshotLoadOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown header flags 2"), std::string::npos);
}

}  // namespace
}  // namespace trainfit
