// trainfit core — the text sidecar of a lean binary snapshot (snapshot.h; docs/snapshot.md, "Lean form and text
// sidecar"). Why: about half of the bundled snapshot.bin's gzipped bytes were long text (datasheet addresses, provider
// notes, billing and spot sources) that only the Snapshot tab and tooltips show, while the first-visit payload was
// over its 500 KB budget. The page loads the lean binary first and applies this sidecar after its
// first frame. The text fields are listed once (gpu_text, provider_text, source_text, billing_text) for the writer,
// the stripper and the reader.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/json_reader.h"
#include "storage/snapshot_internal.h"
#include "trainfit/base/json_text.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {
namespace {

constexpr const char* kFormat = "trainfit-snapshot-text";
constexpr int kVersion = 1;
constexpr uint64_t kMaxSidecarBytes = 8ull << 20;  // the bundled one is ~60 KB
constexpr int kMaxDepth = 8;                        // root > section > record > billing_exceptions > entry

constexpr auto gpu_text = [](GpuSpec& g, auto f) {
  f("source", g.source);
  f("cuda_memory_source", g.cuda_memory_source);
  f("spec_note", g.spec_note);
  f("estimated_note", g.estimated_note);
};
constexpr auto billing_text = [](BillingRule& b, auto f) {
  f("note", b.note);
  f("source", b.source);
};
constexpr auto provider_text = [](Provider& p, auto f) {
  f("catalog_source", p.catalog_source);
  f("notes", p.notes);
  f("billing_note", p.billing.note);
  f("billing_source", p.billing.source);
  f("spot_source", p.spot.source);
  f("storage_source", p.storage_source);
  f("egress_source", p.egress_source);
  f("provision_source", p.provision_source);
  f("access_detail", p.access.detail);
  f("access_source", p.access.source);
};
// An availability exception's text. Its how, quota, largest cluster and date stay in the lean binary: the verbs'
// documents (rank rows, plan, cost, recipe notes) carry those, so the page answers them as the CLI does before the
// sidecar has arrived.
constexpr auto access_text = [](AccessFact& a, auto f) {
  f("detail", a.detail);
  f("source", a.source);
};
constexpr auto source_text = [](SourceRef& r, auto f) {
  f("note", r.note);
};

// ---------------------------------------------------------------- writer

// {"field": "text", ...} of the non-empty fields, or "" when every field is empty.
template <class Rec, class Fields>
std::string fields_json(Rec& rec, Fields fields) {
  std::string out;
  fields(rec, [&](const char* name, const std::string& text) {
    if (text.empty()) return;
    out += out.empty() ? "{" : ",";
    out += "\"" + std::string(name) + "\":\"" + json_escape(text) + "\"";
  });
  return out;
}

void put_record(std::string& section, const std::string& id, std::string body) {
  if (body.empty()) return;
  section += section.empty() ? "{\n" : ",\n";
  section += "  \"" + json_escape(id) + "\":" + body + "}";
}

// ---------------------------------------------------------------- reader

using jsonr::JValue;

// The fields to fill, collected while the whole sidecar is checked; written only when all of it is good.
struct Fill {
  std::vector<std::pair<std::string*, std::string>> writes;
};

// The members of one record's object onto `rec`'s text fields. Returns an Error for the first problem.
template <class Rec, class Fields, class Extra>
std::optional<Error> read_fields(const JValue& v, const std::string& at, Rec& rec, Fields fields, Extra extra, Fill& fill) {
  if (!v.IsObject()) return Error{at, std::string("must be an object, not ") + jsonr::type_name(v)};
  for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
    const std::string_view key = jsonr::text_of(m->name);
    const std::string here = json_pointer(at, key);
    bool known = false;
    std::optional<Error> err;
    fields(rec, [&](const char* name, std::string& target) {
      if (known || key != name) return;
      known = true;
      if (!m->value.IsString()) err = Error{here, std::string("must be a string, not ") + jsonr::type_name(m->value)};
      else fill.writes.emplace_back(&target, std::string(jsonr::text_of(m->value)));
    });
    if (!known) err = extra(key, m->value, here, known);
    if (err) return err;
    if (!known) return Error{here, "unknown field (a sidecar holds text fields only)"};
  }
  return std::nullopt;
}

const auto kNoExtra = [](std::string_view, const JValue&, const std::string&, bool&) -> std::optional<Error> {
  return std::nullopt;
};

// One section ("gpus", "providers", "sources"): an object of records keyed by the snapshot's ids.
template <class Rec, class Read>
std::optional<Error> read_section(const JValue& root, const char* name, std::vector<Rec>& records, Read read) {
  const JValue* sec = jsonr::find_member(root, name);
  if (!sec) return std::nullopt;
  const std::string at = json_pointer("", name);
  if (!sec->IsObject()) return Error{at, std::string("must be an object, not ") + jsonr::type_name(*sec)};
  for (auto m = sec->MemberBegin(); m != sec->MemberEnd(); ++m) {
    const std::string_view id = jsonr::text_of(m->name);
    const std::string here = json_pointer(at, id);
    Rec* rec = nullptr;
    for (Rec& r : records)
      if (r.id == id) rec = &r;
    if (!rec) return Error{here, "no record with this id in the loaded snapshot"};
    if (std::optional<Error> e = read(m->value, here, *rec)) return e;
  }
  return std::nullopt;
}

// A provider's "billing_exceptions" / "access_exceptions": one entry per exception of the snapshot, in order, each
// naming its match.
template <class Rec, class Fields>
std::optional<Error> read_exceptions(const JValue& v, const std::string& at, std::vector<Rec>& list, const char* what,
                                     Fields fields, Fill& fill) {
  if (!v.IsArray()) return Error{at, std::string("must be an array, not ") + jsonr::type_name(v)};
  if (v.Size() != list.size())
    return Error{at, std::to_string(v.Size()) + " entries; the snapshot's provider has " + std::to_string(list.size()) +
                         " " + what};
  for (jsonr::SizeType i = 0; i < v.Size(); ++i) {
    const std::string here = at + "/" + std::to_string(i);
    Rec& b = list[i];
    const JValue* match = jsonr::find_member(v[i], "match");
    if (!match || !match->IsString() || jsonr::text_of(*match) != b.match)
      return Error{here + "/match", "must be the snapshot's exception match \"" + b.match + "\""};
    auto extra = [](std::string_view key, const JValue&, const std::string&, bool& known) -> std::optional<Error> {
      known = key == "match";  // checked above
      return std::nullopt;
    };
    if (std::optional<Error> e = read_fields(v[i], here, b, fields, extra, fill)) return e;
  }
  return std::nullopt;
}

std::optional<Error> read_sidecar(const JValue& root, Snapshot& s, Fill& fill) {
  if (!root.IsObject()) return Error{"", std::string("the text sidecar must be a JSON object, not ") + jsonr::type_name(root)};
  const JValue* format = jsonr::find_member(root, "format");
  if (!format || !format->IsString() || jsonr::text_of(*format) != kFormat)
    return Error{"/format", std::string("must be \"") + kFormat + "\" (not a trainfit text sidecar)"};
  const JValue* version = jsonr::find_member(root, "version");
  if (!version || !version->IsInt() || version->GetInt() != kVersion)
    return Error{"/version", "must be " + std::to_string(kVersion) + " (this build reads version " + std::to_string(kVersion) + ")"};
  const JValue* id = jsonr::find_member(root, "snapshot_id");
  if (!id || !id->IsString()) return Error{"/snapshot_id", "missing or not a string"};
  if (jsonr::text_of(*id) != s.id)
    return Error{"/snapshot_id", "is \"" + std::string(jsonr::text_of(*id)) + "\", the loaded snapshot is \"" + s.id +
                                     "\" (the sidecar belongs to another snapshot)"};
  for (auto m = root.MemberBegin(); m != root.MemberEnd(); ++m) {
    const std::string_view key = jsonr::text_of(m->name);
    if (key != "format" && key != "version" && key != "snapshot_id" && key != "gpus" && key != "providers" && key != "sources")
      return Error{json_pointer("", key), "unknown field"};
  }
  if (auto e = read_section(root, "gpus", s.gpus, [&](const JValue& v, const std::string& at, GpuSpec& g) {
        return read_fields(v, at, g, gpu_text, kNoExtra, fill);
      }))
    return e;
  if (auto e = read_section(root, "sources", s.sources, [&](const JValue& v, const std::string& at, SourceRef& r) {
        return read_fields(v, at, r, source_text, kNoExtra, fill);
      }))
    return e;
  return read_section(root, "providers", s.providers, [&](const JValue& v, const std::string& at, Provider& p) {
    auto extra = [&](std::string_view key, const JValue& value, const std::string& here, bool& known) -> std::optional<Error> {
      if (key == "billing_exceptions") {
        known = true;
        return read_exceptions(value, here, p.billing_exceptions, "billing exceptions",
                               billing_text, fill);
      }
      if (key == "access_exceptions") {
        known = true;
        return read_exceptions(value, here, p.access_exceptions, "access exceptions",
                               access_text, fill);
      }
      return std::nullopt;
    };
    return read_fields(v, at, p, provider_text, extra, fill);
  });
}

// The derived warnings that quote a GPU's note (detail::gpu_flag_warning: spec_incomplete, estimated_spec) were
// made at load from the lean snapshot's empty notes: those still in that form, to be re-quoted once the notes are in.
struct Requote {
  Warning* w;
  const Offer* offer;
  OfferFlag flag;
};
std::vector<Requote> warnings_quoting_gpu_notes(Snapshot& s) {
  std::vector<Requote> out;
  constexpr std::string_view kRows = "/offers/rows/";  // the binary's offer i is row i
  for (Warning& w : s.warnings) {
    const OfferFlag f = w.code == "spec_incomplete" ? kFlagSpecIncomplete : w.code == "estimated_spec" ? kFlagEstimatedSpec : OfferFlag{};
    if (f == OfferFlag{} || !std::string_view(w.field).starts_with(kRows)) continue;
    size_t i = 0;
    const std::string_view digits = std::string_view(w.field).substr(kRows.size());
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string_view::npos) continue;
    for (char c : digits) i = i * 10 + static_cast<size_t>(c - '0');
    if (i >= s.offers.size()) continue;
    const Offer& o = s.offers[i];
    if (o.gpu < 0 || o.gpu >= static_cast<int>(s.gpus.size())) continue;
    if (w.message == o.id + ": " + detail::gpu_flag_warning(s.gpus[static_cast<size_t>(o.gpu)], f)) out.push_back({&w, &o, f});
  }
  return out;
}

}  // namespace

std::string snapshot_text_json(const Snapshot& snapshot) {
  Snapshot& s = const_cast<Snapshot&>(snapshot);  // the field lists take mutable records; nothing is written
  std::string gpus, providers, sources;
  for (GpuSpec& g : s.gpus) put_record(gpus, g.id, fields_json(g, gpu_text));
  for (SourceRef& r : s.sources) put_record(sources, r.id, fields_json(r, source_text));
  for (Provider& p : s.providers) {
    std::string body = fields_json(p, provider_text);
    auto exceptions = [&](auto& list, const char* key, auto fields) {
      std::string ex;
      bool any = false;
      for (auto& b : list) {
        std::string e = fields_json(b, fields);
        any = any || !e.empty();
        ex += ex.empty() ? "[" : ",";
        ex += "{\"match\":\"" + json_escape(b.match) + "\"" + (e.empty() ? "" : "," + e.substr(1)) + "}";
      }
      if (!any) return;
      body += body.empty() ? "{" : ",";
      body += "\"" + std::string(key) + "\":" + ex + "]";
    };
    exceptions(p.billing_exceptions, "billing_exceptions", billing_text);
    exceptions(p.access_exceptions, "access_exceptions", access_text);
    put_record(providers, p.id, body);
  }
  std::string out = "{\n\"format\": \"" + std::string(kFormat) + "\",\n\"version\": " + std::to_string(kVersion) +
                    ",\n\"snapshot_id\": \"" + json_escape(s.id) + "\"";
  for (auto [name, sec] : {std::pair<const char*, std::string*>{"sources", &sources}, {"gpus", &gpus}, {"providers", &providers}})
    if (!sec->empty()) out += ",\n\"" + std::string(name) + "\": " + *sec + "\n}";
  return out + "\n}\n";
}

void strip_snapshot_text(Snapshot& s) {
  auto clear = [](const char*, std::string& t) { t.clear(); };
  for (GpuSpec& g : s.gpus) gpu_text(g, clear);
  for (SourceRef& r : s.sources) source_text(r, clear);
  for (Provider& p : s.providers) {
    provider_text(p, clear);
    for (BillingRule& b : p.billing_exceptions) billing_text(b, clear);
    for (AccessFact& a : p.access_exceptions) access_text(a, clear);
  }
  s.text_left_out = true;
}

Result<size_t> apply_snapshot_text(Snapshot& s, std::string_view text) {
  if (!s.text_left_out) return Error{"", "the loaded snapshot already holds its text (the sidecar is for a lean binary snapshot)"};
  if (text.size() > kMaxSidecarBytes)
    return Error{"", "the text sidecar is " + std::to_string(text.size()) + " bytes (at most " + std::to_string(kMaxSidecarBytes) + ")"};
  if (jsonr::json_nesting_exceeds(text, kMaxDepth))
    return Error{"", "the text sidecar nests deeper than " + std::to_string(kMaxDepth) + " levels"};
  jsonr::Document doc;
  std::string why;
  if (!jsonr::parse_json(text, &doc, &why)) return Error{"", "the text sidecar is not JSON: " + why};
  Fill fill;
  if (std::optional<Error> e = read_sidecar(doc, s, fill)) return *e;
  const std::vector<Requote> requote = warnings_quoting_gpu_notes(s);
  for (auto& [target, value] : fill.writes) *target = std::move(value);
  for (const Requote& r : requote)
    r.w->message = r.offer->id + ": " + detail::gpu_flag_warning(s.gpus[static_cast<size_t>(r.offer->gpu)], r.flag);
  s.text_left_out = false;
  return fill.writes.size();
}

}  // namespace trainfit
