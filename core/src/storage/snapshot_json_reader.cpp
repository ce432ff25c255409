// trainfit core — the snapshot's strict JSON reader (snapshot_internal.h, read_snapshot_json): bounds, parse, then
// the document's sections in order (snapshot_json_sections.cpp, snapshot_json_offers.cpp) and the reserved prices.
// The document format is specified in data/snapshot.schema.json and docs/snapshot.md. The loader must
// survive arbitrary (fuzzed) input: it bounds the input size and nesting depth before parsing, never lets an
// exception escape, and collects every problem with its JSON pointer instead of stopping at the first.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/snapshot_json_internal.h"

namespace trainfit::detail {

using namespace snapshot_json;  // Ctx, the section readers, JValue and the jsonr helpers

namespace {

using nlohmann::json;

// A value as nlohmann::json::dump() printed it (only for the schema_version message; bounded by the depth check).
json to_nlohmann(const JValue& v) {
  switch (v.GetType()) {
    case jsonr::kNullType: return nullptr;
    case jsonr::kFalseType: return false;
    case jsonr::kTrueType: return true;
    case jsonr::kStringType: return std::string(text_of(v));
    case jsonr::kNumberType:
      if (v.IsUint64()) return v.GetUint64();
      if (v.IsInt64()) return v.GetInt64();
      return v.GetDouble();
    case jsonr::kArrayType: {
      json a = json::array();
      for (SizeType i = 0; i < v.Size(); ++i) a.push_back(to_nlohmann(v[i]));
      return a;
    }
    case jsonr::kObjectType: {
      json o = json::object();
      const auto members = v.MemberBegin();
      for (SizeType i = 0; i < v.MemberCount(); ++i)
        o[std::string(text_of(members[i].name))] = to_nlohmann(members[i].value);  // the last duplicate wins
      return o;
    }
  }
  return nullptr;
}

// The bounds checked on the raw text, before anything is parsed: false (with the error) when it is too large or
// nested too deep.
bool text_within_bounds(Ctx& c, std::string_view text, const SnapshotLoadOptions& opt) {
  if (text.size() > opt.max_input_bytes) {
    c.error("", "document is " + std::to_string(text.size()) + " bytes, larger than the " +
                    std::to_string(opt.max_input_bytes) + "-byte limit");
    return false;
  }
  // Nesting is checked on the raw text before the parser builds anything: a hostile document of a million
  // '[' must cost one linear scan, not a million-entry parser stack.
  if (jsonr::json_nesting_exceeds(text, kMaxDepth)) {
    c.error("", "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
    return false;
  }
  return true;
}

// The document's head: schema_version (false when it is not this build's: nothing else is read), id, created,
// currency.
bool read_head(Ctx& c, const JValue& doc, Snapshot* s) {
  const JValue* sv = c.member(doc, "schema_version", "");
  if (!sv) return false;
  // An integer literal only, as nlohmann's is_number_integer(): 1.0 and 1e0 are doubles and refused.
  if (!sv->IsInt64() || sv->GetInt64() != kSnapshotSchemaVersion) {
    c.error("/schema_version", "unsupported schema_version " + to_nlohmann(*sv).dump().substr(0, 40) +
                                   " (this build reads " + std::to_string(kSnapshotSchemaVersion) + ")");
    return false;  // nothing else can be trusted to mean what this build thinks
  }
  s->schema_version = kSnapshotSchemaVersion;
  c.str(doc, "id", "", &s->id, true, true);
  c.date(doc, "created", "", &s->created);
  c.str(doc, "currency", "", &s->currency, true);
  if (s->currency != "USD") c.error("/currency", "only USD snapshots are supported");
  return true;
}

// The reserved prices onto their offers (attach_reservations): false (with the error) when they do not fit; a
// price naming an offer the snapshot lacks is a warning.
bool attach_reserved_prices(Ctx& c, Snapshot& s) {
  std::vector<Warning> orphans;
  if (Result<bool> attached = attach_reservations(s, &orphans); !attached) {
    c.error(attached.error().field, attached.error().message);
    return false;
  }
  for (Warning& w : orphans) c.warn(std::move(w.field), std::move(w.code), std::move(w.message));
  return true;
}

}  // namespace

std::optional<Snapshot> read_snapshot_json(std::string_view text, const SnapshotLoadOptions& opt, SnapshotReport* r,
                                           std::vector<size_t>* row_of_out) {
  Ctx c(r, std::max(1, opt.max_errors));
  try {
    if (!text_within_bounds(c, text, opt)) return std::nullopt;
    jsonr::Document doc;
    std::string why;
    if (!parse_json(text, &doc, &why)) {
      c.error("", "not valid JSON (truncated or malformed): " + why);
      return std::nullopt;
    }
    if (!c.object(doc, "")) return std::nullopt;

    Snapshot s;
    if (!read_head(c, doc, &s)) return std::nullopt;
    read_sources(c, doc, &s);
    IdIndex gpu_ix, prov_ix;
    read_gpus(c, doc, &s, &gpu_ix);
    read_providers(c, doc, &s, &prov_ix);
    std::vector<size_t> row_of;  // offer -> its row in the document (for warnings' pointers)
    read_offers(c, doc, gpu_ix, prov_ix, &s, &row_of);
    read_reservations(c, doc, &s);
    if (s.providers.empty() && !c.has_errors()) c.error("/providers", "no providers");
    if (c.has_errors()) return std::nullopt;
    if (!attach_reserved_prices(c, s)) return std::nullopt;
    *row_of_out = std::move(row_of);
    return s;
  } catch (const std::exception& e) {
    c.error("", std::string("internal error while reading the snapshot: ") + e.what());
  } catch (...) {
    c.error("", "internal error while reading the snapshot");
  }
  return std::nullopt;
}

}  // namespace trainfit::detail
