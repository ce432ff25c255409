// trainfit core — rebuilds the price snapshot from a SkyPilot catalog checkout plus curated inputs
// (data/inputs/{gpus,providers,instance_families,reservations}.json). Pure: the caller reads the files (cli/snapshot_cmd)
// and passes their text. Deterministic: the same inputs give the same bytes.
//
// Rules (docs/snapshot.md, "How the importer works"):
//  - GPU identity comes from (provider, instance-type pattern) in instance_families.json, never from the
//    catalog's AcceleratorName alone (H100 SXM vs PCIe, A100 40 vs 80 GB, Quadro RTX 6000 vs RTX 6000 Ada).
//  - GCP prices the host VM and the GPUs in separate rows: an offer is host row + GPU row of the same zone.
//  - One offer per catalog provider x instance type x region; see Offer::zone / spot_max_usd_per_h for the zones.
//  - A marketplace's catalog (providers.json "marketplace": Shadeform's "<cloud>_<shape>" instance types) gives
//    rows run by the named cloud and sold by the marketplace (Offer::via); their id keeps the marketplace's name.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "trainfit/base/common.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {

// A catalog file a provider needs. role: "vms" (one row per instance), "gcp_host" (GCP host VM rows),
// "gcp_accel" (GCP accelerator rows, empty InstanceType). path is relative to the catalog checkout root.
struct CatalogRef {
  std::string provider;
  std::string role;
  std::string path;
  // A file that may be absent (a provider whose extract has not been made yet): the caller skips it with a note
  // instead of failing, and the provider is left out of the snapshot when no offer names it.
  bool optional = false;
};
// The catalog files listed in providers.json, in file order.
Result<std::vector<CatalogRef>> list_catalog_files(std::string_view providers_json);

struct CatalogText {
  CatalogRef ref;
  std::string text;
};

struct ImportInputs {
  std::string gpus_json;        // data/inputs/gpus.json
  std::string providers_json;   // data/inputs/providers.json
  std::string families_json;    // data/inputs/instance_families.json
  // data/inputs/reservations.json: booking products (snapshot.h Reservation) with prices per provider, instance
  // type and region; a price whose offer the catalog does not have is left out with a note. "" = none.
  std::string reservations_json;
  std::vector<CatalogText> catalogs;
};

struct ImportResult {
  Snapshot snapshot;
  std::string json;             // snapshot_to_json(snapshot), the bytes to publish
  SnapshotReport report;        // validation of the result (warnings; errors make the import fail)
  std::vector<Warning> notes;   // rows skipped or doubted, aggregated by (code, provider, instance type)
  int rows_read = 0;
  int rows_used = 0;
};

Result<ImportResult> import_snapshot(const ImportInputs& in);

// RFC 4180 CSV: quoted fields, "" escapes, CRLF or LF. Error names the line of an unterminated quote.
Result<std::vector<std::vector<std::string>>> parse_csv(std::string_view text);
// '*' matches any run of characters; everything else is literal.
bool glob_match(std::string_view pattern, std::string_view s);

}  // namespace trainfit
