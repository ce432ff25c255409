// trainfit core — the published snapshot's manifest (manifest.h): the writer and the strict reader of untrusted
// manifests. The reader checks every field before a caller downloads anything it names; a problem comes back with
// its JSON pointer and never throws.
#include <optional>
#include <set>
#include <string>

#include "base/json_reader.h"
#include "trainfit/base/json_text.h"
#include "trainfit/storage/manifest.h"

namespace trainfit {
namespace {

using jsonr::JValue;

constexpr int kMaxDepth = 6;               // root > prices > providers > provider > ... (4 used)
constexpr size_t kMaxIdChars = 200;
constexpr size_t kMaxProviders = 1000;

std::string quoted(std::string_view s) { return "\"" + json_escape(s) + "\""; }

bool is_hex64(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool is_date(std::string_view s) { return s.size() == 10 && days_between(s, s).has_value(); }

// A snapshot id: printable ASCII without quotes or backslashes, as the importer writes them
// ("skypilot-2026-12-04-1a2b3c4d"); shown to users, so no control characters.
bool is_plain_id(std::string_view s) {
  if (s.empty() || s.size() > kMaxIdChars) return false;
  for (char c : s)
    if (c < 0x21 || c > 0x7e || c == '"' || c == '\\') return false;
  return true;
}

// Refuses any member of `obj` not in `known`.
std::optional<Error> only_known(const JValue& obj, const std::string& at, std::initializer_list<std::string_view> known) {
  for (auto m = obj.MemberBegin(); m != obj.MemberEnd(); ++m) {
    const std::string_view key = jsonr::text_of(m->name);
    bool ok = false;
    for (std::string_view k : known) ok = ok || k == key;
    if (!ok) return Error{json_pointer(at, key), "unknown field"};
  }
  return std::nullopt;
}

// Member `key` of `obj` as a string that `check` accepts; `what` says what it must be.
std::optional<Error> read_string(const JValue& obj, const std::string& at, const char* key, bool (*check)(std::string_view),
                                 const char* what, std::string* out) {
  const std::string here = json_pointer(at, key);
  const JValue* v = jsonr::find_member(obj, key);
  if (!v) return Error{here, "missing"};
  if (!v->IsString()) return Error{here, std::string("must be a string, not ") + jsonr::type_name(*v)};
  const std::string_view s = jsonr::text_of(*v);
  if (!check(s)) return Error{here, std::string("must be ") + what};
  *out = std::string(s);
  return std::nullopt;
}

std::optional<Error> read_int(const JValue& obj, const std::string& at, const char* key, int64_t lo, int64_t hi, int64_t* out) {
  const std::string here = json_pointer(at, key);
  const JValue* v = jsonr::find_member(obj, key);
  if (!v) return Error{here, "missing"};
  if (!v->IsInt64()) return Error{here, std::string("must be a whole number, not ") + jsonr::type_name(*v)};
  const int64_t n = v->GetInt64();
  if (n < lo || n > hi) return Error{here, "must be from " + std::to_string(lo) + " to " + std::to_string(hi) + ", not " + std::to_string(n)};
  *out = n;
  return std::nullopt;
}

std::optional<Error> read_prices(const JValue& root, SnapshotManifest& m) {
  const JValue* p = jsonr::find_member(root, "prices");
  if (!p) return Error{"/prices", "missing"};
  if (!p->IsObject()) return Error{"/prices", std::string("must be an object, not ") + jsonr::type_name(*p)};
  if (auto e = only_known(*p, "/prices", {"oldest", "newest", "providers"})) return e;
  if (auto e = read_string(*p, "/prices", "oldest", is_date, "a date (YYYY-MM-DD)", &m.prices_oldest)) return e;
  if (auto e = read_string(*p, "/prices", "newest", is_date, "a date (YYYY-MM-DD)", &m.prices_newest)) return e;
  if (m.prices_newest < m.prices_oldest) return Error{"/prices/newest", "is before /prices/oldest"};
  const JValue* prov = jsonr::find_member(*p, "providers");
  if (!prov) return Error{"/prices/providers", "missing"};
  if (!prov->IsObject()) return Error{"/prices/providers", std::string("must be an object, not ") + jsonr::type_name(*prov)};
  if (prov->MemberCount() > kMaxProviders) return Error{"/prices/providers", "more than " + std::to_string(kMaxProviders) + " providers"};
  std::set<std::string> seen;
  for (auto it = prov->MemberBegin(); it != prov->MemberEnd(); ++it) {
    ManifestProviderDates d;
    d.provider = std::string(jsonr::text_of(it->name));
    const std::string at = json_pointer("/prices/providers", d.provider);
    if (!is_plain_id(d.provider)) return Error{at, "a provider id must be printable ASCII without quotes"};
    if (!seen.insert(d.provider).second) return Error{at, "listed twice"};
    if (!it->value.IsObject()) return Error{at, std::string("must be an object, not ") + jsonr::type_name(it->value)};
    if (auto e = only_known(it->value, at, {"oldest", "newest"})) return e;
    if (auto e = read_string(it->value, at, "oldest", is_date, "a date (YYYY-MM-DD)", &d.oldest)) return e;
    if (auto e = read_string(it->value, at, "newest", is_date, "a date (YYYY-MM-DD)", &d.newest)) return e;
    if (d.newest < d.oldest) return Error{at + "/newest", "is before " + at + "/oldest"};
    if (d.oldest < m.prices_oldest || d.newest > m.prices_newest)
      return Error{at, "its dates fall outside /prices/oldest .. /prices/newest"};
    m.providers.push_back(std::move(d));
  }
  return std::nullopt;
}

std::optional<Error> read_files(const JValue& root, SnapshotManifest& m) {
  const JValue* f = jsonr::find_member(root, "files");
  if (!f) return Error{"/files", "missing"};
  if (!f->IsArray()) return Error{"/files", std::string("must be an array, not ") + jsonr::type_name(*f)};
  if (f->Size() < 1 || f->Size() > 2) return Error{"/files", "must list the binary snapshot and, when lean, its text sidecar (1 or 2 files)"};
  for (jsonr::SizeType i = 0; i < f->Size(); ++i) {
    const std::string at = "/files/" + std::to_string(i);
    const JValue& v = (*f)[i];
    if (!v.IsObject()) return Error{at, std::string("must be an object, not ") + jsonr::type_name(v)};
    if (auto e = only_known(v, at, {"role", "name", "bytes", "sha256"})) return e;
    ManifestFile file;
    const char* want = i == 0 ? "snapshot" : "text";
    if (auto e = read_string(v, at, "role", [](std::string_view s) { return s == "snapshot" || s == "text"; },
                             "\"snapshot\" or \"text\"", &file.role))
      return e;
    if (file.role != want) return Error{at + "/role", std::string("must be \"") + want + "\" (the binary first, then its sidecar)"};
    if (auto e = read_string(v, at, "name", is_plain_file_name,
                             "a plain file name (letters, digits, '.', '_', '-'; no folder, not starting with '.')", &file.name))
      return e;
    int64_t bytes = 0;
    if (auto e = read_int(v, at, "bytes", 1, static_cast<int64_t>(kMaxPublishedFileBytes), &bytes)) return e;
    file.bytes = static_cast<uint64_t>(bytes);
    if (auto e = read_string(v, at, "sha256", is_hex64, "64 lowercase hex digits (a SHA-256)", &file.sha256)) return e;
    if (i == 1 && file.name == m.files[0].name) return Error{at + "/name", "is the binary's name too"};
    m.files.push_back(std::move(file));
  }
  if (m.lean && m.files.size() != 2) return Error{"/files", "a lean binary needs its text sidecar listed as the second file"};
  if (!m.lean && m.files.size() != 1) return Error{"/files", "a full binary has no text sidecar; list the binary alone"};
  return std::nullopt;
}

std::optional<Error> read_manifest(const JValue& root, SnapshotManifest& m) {
  if (!root.IsObject()) return Error{"", std::string("a manifest must be a JSON object, not ") + jsonr::type_name(root)};
  std::string format;
  if (auto e = read_string(root, "", "format", [](std::string_view s) { return s == kManifestFormat; },
                           "\"trainfit-snapshot-manifest\" (not a trainfit snapshot manifest)", &format))
    return e;
  int64_t n = 0;
  if (auto e = read_int(root, "", "version", 1, 1000000, &n)) return e;
  if (n != kManifestVersion)
    return Error{"/version", "is " + std::to_string(n) + "; this build reads version " + std::to_string(kManifestVersion) +
                                 (n > kManifestVersion ? " (a newer trainfit is needed)" : "")};
  m.version = static_cast<int>(n);
  if (auto e = only_known(root, "", {"format", "version", "snapshot_id", "created", "schema_version", "binary_version",
                                     "lean", "prices", "files"}))
    return e;
  if (auto e = read_string(root, "", "snapshot_id", is_plain_id, "1-200 printable ASCII characters without quotes", &m.snapshot_id))
    return e;
  if (auto e = read_string(root, "", "created", is_date, "a date (YYYY-MM-DD)", &m.created)) return e;
  if (auto e = read_int(root, "", "schema_version", 1, 1000000, &n)) return e;
  m.schema_version = static_cast<int>(n);
  if (auto e = read_int(root, "", "binary_version", 1, 1000000, &n)) return e;
  m.binary_version = static_cast<int>(n);
  const JValue* lean = jsonr::find_member(root, "lean");
  if (!lean) return Error{"/lean", "missing"};
  if (!lean->IsBool()) return Error{"/lean", std::string("must be true or false, not ") + jsonr::type_name(*lean)};
  m.lean = lean->GetBool();
  if (auto e = read_prices(root, m)) return e;
  return read_files(root, m);
}

std::string file_json(const ManifestFile& f) {
  return "  {\"role\": " + quoted(f.role) + ", \"name\": " + quoted(f.name) + ", \"bytes\": " + std::to_string(f.bytes) +
         ", \"sha256\": " + quoted(f.sha256) + "}";
}

}  // namespace

const ManifestFile* SnapshotManifest::file(std::string_view role) const {
  for (const ManifestFile& f : files)
    if (f.role == role) return &f;
  return nullptr;
}

bool is_plain_file_name(std::string_view name) {
  if (name.empty() || name.size() > 100 || name[0] == '.') return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
      return false;
  return true;
}

SnapshotManifest make_snapshot_manifest(const Snapshot& s, const ManifestFile& binary, const ManifestFile* text) {
  SnapshotManifest m;
  m.snapshot_id = s.id;
  m.created = s.created;
  m.schema_version = s.schema_version;
  m.binary_version = static_cast<int>(kSnapshotBinaryVersion);
  m.lean = text != nullptr;
  const PriceDates dates = price_dates(s);
  if (!dates.dates.empty()) {
    m.prices_oldest = dates.dates.front().date;
    m.prices_newest = dates.dates.back().date;
  }
  // Per provider, in the snapshot's order: the oldest and newest date among the dates that name it.
  for (const Provider& p : s.providers) {
    ManifestProviderDates d{p.id, "", ""};
    for (const CaptureDate& c : dates.dates) {
      bool named = false;
      for (const std::string& id : c.providers) named = named || id == p.id;
      if (!named) continue;
      if (d.oldest.empty() || c.date < d.oldest) d.oldest = c.date;
      if (d.newest.empty() || c.date > d.newest) d.newest = c.date;
    }
    if (!d.oldest.empty()) m.providers.push_back(std::move(d));
  }
  m.files.push_back(binary);
  m.files.back().role = "snapshot";
  if (text) {
    m.files.push_back(*text);
    m.files.back().role = "text";
  }
  return m;
}

std::string snapshot_manifest_json(const SnapshotManifest& m) {
  std::string out = "{\n";
  out += " \"format\": " + quoted(kManifestFormat) + ",\n";
  out += " \"version\": " + std::to_string(m.version) + ",\n";
  out += " \"snapshot_id\": " + quoted(m.snapshot_id) + ",\n";
  out += " \"created\": " + quoted(m.created) + ",\n";
  out += " \"schema_version\": " + std::to_string(m.schema_version) + ",\n";
  out += " \"binary_version\": " + std::to_string(m.binary_version) + ",\n";
  out += std::string(" \"lean\": ") + (m.lean ? "true" : "false") + ",\n";
  out += " \"prices\": {\"oldest\": " + quoted(m.prices_oldest) + ", \"newest\": " + quoted(m.prices_newest) +
         ", \"providers\": {";
  for (size_t i = 0; i < m.providers.size(); ++i) {
    const ManifestProviderDates& d = m.providers[i];
    out += (i ? ",\n  " : "\n  ") + quoted(d.provider) + ": {\"oldest\": " + quoted(d.oldest) + ", \"newest\": " + quoted(d.newest) + "}";
  }
  out += m.providers.empty() ? "}},\n" : "\n }},\n";
  out += " \"files\": [\n";
  for (size_t i = 0; i < m.files.size(); ++i) out += file_json(m.files[i]) + (i + 1 < m.files.size() ? ",\n" : "\n");
  out += " ]\n}\n";
  return out;
}

Result<SnapshotManifest> parse_snapshot_manifest(std::string_view text) {
  if (text.size() > kMaxManifestBytes)
    return Error{"", "the manifest is " + std::to_string(text.size()) + " bytes, over the " + std::to_string(kMaxManifestBytes) + "-byte limit"};
  if (jsonr::json_nesting_exceeds(text, kMaxDepth)) return Error{"", "the manifest nests deeper than a manifest does"};
  jsonr::Document doc;
  std::string why;
  if (!jsonr::parse_json(text, &doc, &why)) return Error{"", "not valid JSON (truncated or malformed): " + why};
  SnapshotManifest m;
  if (std::optional<Error> e = read_manifest(doc, m)) return *e;
  return m;
}

}  // namespace trainfit
