// The published snapshot's manifest (storage/manifest.h): what the writer puts in it, that it reads back, and that
// it is byte-stable. The hostile inputs are in bad_input_test.cpp (BadManifest).
#include <gtest/gtest.h>

#include <string>

#include "trainfit/storage/bundled.h"
#include "trainfit/storage/manifest.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {
namespace {

const std::string kHash(64, 'a');

SnapshotManifest bundled_manifest() {
  const Snapshot s = load_snapshot(embedded_snapshot_json()).value();
  const ManifestFile bin{"", "snapshot.bin", 1000, kHash};
  const ManifestFile text{"", "snapshot-text.json", 500, std::string(64, 'b')};
  return make_snapshot_manifest(s, bin, &text);
}

TEST(Manifest, NamesTheSnapshotItsFormatsAndTheCaptureDatesItKnows) {
  const Snapshot s = load_snapshot(embedded_snapshot_json()).value();
  const SnapshotManifest m = bundled_manifest();
  EXPECT_EQ(m.snapshot_id, s.id);
  EXPECT_EQ(m.created, s.created);
  EXPECT_EQ(m.schema_version, kSnapshotSchemaVersion);
  EXPECT_EQ(m.binary_version, static_cast<int>(kSnapshotBinaryVersion));
  EXPECT_TRUE(m.lean);
  ASSERT_EQ(m.files.size(), 2u);
  EXPECT_EQ(m.files[0].role, "snapshot");
  EXPECT_EQ(m.files[1].role, "text");
  // The oldest and newest capture dates are price_dates' first and last; each provider's lie between them and
  // are dates its offers (or the rows it sells) carry.
  const PriceDates d = price_dates(s);
  EXPECT_EQ(m.prices_oldest, d.dates.front().date);
  EXPECT_EQ(m.prices_newest, d.dates.back().date);
  ASSERT_FALSE(m.providers.empty());
  for (const ManifestProviderDates& p : m.providers) {
    EXPECT_GE(p.provider.size(), 1u);
    EXPECT_LE(p.oldest, p.newest) << p.provider;
    EXPECT_GE(p.oldest, m.prices_oldest) << p.provider;
    EXPECT_LE(p.newest, m.prices_newest) << p.provider;
    bool seen = false;
    for (const CaptureDate& c : d.dates)
      for (const std::string& id : c.providers) seen = seen || (id == p.provider && c.date == p.oldest);
    EXPECT_TRUE(seen) << p.provider << " " << p.oldest;
  }
}

TEST(Manifest, ReadsBackWhatItWritesByteForByte) {
  const SnapshotManifest m = bundled_manifest();
  const std::string text = snapshot_manifest_json(m);
  Result<SnapshotManifest> back = parse_snapshot_manifest(text);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_TRUE(back.value() == m);
  EXPECT_EQ(snapshot_manifest_json(back.value()), text);
  EXPECT_EQ(snapshot_manifest_json(bundled_manifest()), text);  // the same snapshot and files, the same bytes
  EXPECT_EQ(back->file("text")->name, "snapshot-text.json");
  EXPECT_EQ(back->file("nothing"), nullptr);
}

TEST(Manifest, AFullBinaryListsItselfAlone) {
  const Snapshot s = load_snapshot(embedded_snapshot_json()).value();
  const SnapshotManifest m = make_snapshot_manifest(s, ManifestFile{"", "snapshot-full.bin", 7, kHash}, nullptr);
  EXPECT_FALSE(m.lean);
  ASSERT_EQ(m.files.size(), 1u);
  Result<SnapshotManifest> back = parse_snapshot_manifest(snapshot_manifest_json(m));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_TRUE(back.value() == m);
}

TEST(Manifest, PlainFileNamesOnly) {
  for (const char* ok : {"snapshot.bin", "snapshot-text.json", "a", "x_1.2-3"}) EXPECT_TRUE(is_plain_file_name(ok)) << ok;
  for (const char* bad : {"", ".hidden", "../snapshot.bin", "a/b", "a\\b", "https:x", "a b", "%2e%2e"})
    EXPECT_FALSE(is_plain_file_name(bad)) << bad;
  EXPECT_FALSE(is_plain_file_name(std::string(101, 'a')));
}

}  // namespace
}  // namespace trainfit
