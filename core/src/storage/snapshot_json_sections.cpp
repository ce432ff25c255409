// trainfit core — the snapshot's JSON reader, its sections other than the offers: the sources, the GPUs, the
// providers (billing, spot, storage, access facts) and the reserved-capacity products.
#include <string>
#include <vector>

#include "storage/snapshot_json_internal.h"

namespace trainfit::detail::snapshot_json {

namespace {

[[gnu::noinline]] void read_gpu(Ctx& c, const JValue& v, const std::string& p, GpuSpec* g) {
  if (!c.object(v, p)) return;
  c.str(v, "id", p, &g->id, true, true);
  c.str(v, "name", p, &g->name, true, true);
  c.str(v, "vendor", p, &g->vendor);
  c.str(v, "arch", p, &g->arch);
  c.integer(v, "year", p, &g->year, 1990, 2100);
  c.num(v, "memory_bytes", p, &g->memory_bytes, 1e8, 1e13);  // 100 MB .. 10 TB per device
  // The driver-reported capacity (what a fit is judged against): optional for snapshots written before it
  // existed, which then fall back to the datasheet label with a warning; never above the label + 10%.
  if (find_member(v, "cuda_memory_bytes")) {
    c.num(v, "cuda_memory_bytes", p, &g->cuda_memory_bytes, 1e8, 1e13);
    c.str(v, "cuda_memory_source", p, &g->cuda_memory_source, true, true);
    if (g->memory_bytes > 0 && g->cuda_memory_bytes > g->memory_bytes * 1.1)
      c.error(p + "/cuda_memory_bytes", "more than 10% above the datasheet's memory_bytes: check the unit (bytes)");
  } else {
    c.warn(p + "/cuda_memory_bytes", "cuda_memory_missing",
           "no driver-reported capacity: fits are judged against the datasheet figure (memory_bytes)");
  }
  c.num(v, "mem_bandwidth_GBps", p, &g->mem_bandwidth_GBps, 0, 1e5);
  c.num(v, "tflops_fp32", p, &g->tflops_fp32, 0, 1e5);
  c.num(v, "tflops_tf32", p, &g->tflops_tf32, 0, 1e5);
  c.num(v, "tflops_bf16", p, &g->tflops_bf16, 0, 1e5);
  c.num(v, "tflops_fp16", p, &g->tflops_fp16, 0, 1e5);
  c.num(v, "tflops_fp8", p, &g->tflops_fp8, 0, 1e5);
  c.integer(v, "nvlink_gen", p, &g->nvlink_gen, 0, 20);
  c.num(v, "nvlink_GBps", p, &g->nvlink_GBps, 0, 1e5);
  c.integer(v, "pcie_gen", p, &g->pcie_gen, 0, 20);
  c.num(v, "tdp_w", p, &g->tdp_w, 0, 1e5);
  c.str(v, "source", p, &g->source, true, true);
  c.str(v, "source_status", p, &g->source_status, true, true);
  c.boolean(v, "spec_incomplete", p, &g->spec_incomplete, false);
  c.str(v, "spec_note", p, &g->spec_note, false);
  c.boolean(v, "estimated_spec", p, &g->estimated_spec, false);
  c.str(v, "estimated_note", p, &g->estimated_note, false);
  if (g->estimated_spec && g->estimated_note.empty())
    c.error(p + "/estimated_note", "a GPU marked estimated_spec must say which figures are estimated and how");
  if (g->spec_incomplete && g->spec_note.empty())
    c.error(p + "/spec_note", "a GPU marked spec_incomplete must say which figure is missing and why");
  // The estimator divides by the dense 16-bit rate; a zero there must be declared, not silent.
  if (!g->spec_incomplete && g->tflops_bf16 <= 0 && g->tflops_fp16 <= 0)
    c.error(p + "/tflops_fp16", "no dense 16-bit tensor rate and spec_incomplete is not set");
  if (!g->spec_incomplete && g->mem_bandwidth_GBps <= 0)
    c.error(p + "/mem_bandwidth_GBps", "memory bandwidth is 0 and spec_incomplete is not set");
}

void read_billing(Ctx& c, const JValue& v, const std::string& p, BillingRule* b, bool need_match) {
  if (!c.object(v, p)) return;
  c.str(v, "match", p, &b->match, need_match, need_match);
  c.num(v, "increment_s", p, &b->increment_s, 1e-3, 31 * 86400.0);
  c.num(v, "minimum_s", p, &b->minimum_s, 0, 31 * 86400.0);
  c.str(v, "note", p, &b->note, false);
  c.str(v, "source", p, &b->source, true, true);
}

[[gnu::noinline]] void read_provider(Ctx& c, const JValue& v, const std::string& p, Provider* pr) {
  if (!c.object(v, p)) return;
  c.str(v, "id", p, &pr->id, true, true);
  c.str(v, "name", p, &pr->name, true, true);
  c.date(v, "capture_date", p, &pr->capture_date);
  c.str(v, "catalog_source", p, &pr->catalog_source, true, true);
  if (const JValue* b = c.member(v, "billing", p)) read_billing(c, *b, p + "/billing", &pr->billing, false);
  if (const JValue* ex = c.array(v, "billing_exceptions", p, 100, false)) {
    pr->billing_exceptions.resize(ex->Size());
    for (size_t i = 0; i < ex->Size(); ++i)
      read_billing(c, at(*ex, i), idx(p + "/billing_exceptions", i), &pr->billing_exceptions[i], true);
  }
  c.num(v, "provision_s", p, &pr->provision_s, 0, 86400);
  c.boolean(v, "bills_provisioning", p, &pr->bills_provisioning);
  c.str(v, "provision_source", p, &pr->provision_source, true, true);
  if (const JValue* s = c.member(v, "spot", p)) {
    const std::string sp = p + "/spot";
    if (c.object(*s, sp)) {
      c.boolean(*s, "available", sp, &pr->spot.available);
      c.str(*s, "pricing", sp, &pr->spot.pricing, true);
      // "" = how the spot price is set is not published (Crusoe, Prime Intellect): the source says so.
      if (pr->spot.available && !pr->spot.pricing.empty() && pr->spot.pricing != "market" &&
          pr->spot.pricing != "fixed_discount" && pr->spot.pricing != "bid")
        c.error(sp + "/pricing", "expected \"market\", \"fixed_discount\", \"bid\" or \"\" (not published)");
      c.num(*s, "interruption_rate_per_h", sp, &pr->spot.interruption_rate_per_h, 0, 100, true, true);
      c.num(*s, "notice_s", sp, &pr->spot.notice_s, 0, 86400, true, true);
      c.boolean(*s, "early_preemption_free", sp, &pr->spot.early_preemption_free);
      c.num(*s, "free_window_s", sp, &pr->spot.free_window_s, 0, 86400);
      c.str(*s, "source", sp, &pr->spot.source, true, true);
    }
  }
  c.num(v, "storage_usd_per_GB_month", p, &pr->storage_usd_per_GB_month, 0, 100, true, true);
  c.num(v, "storage_read_MBps", p, &pr->storage_read_MBps, 0, 1e6, true, true);
  c.num(v, "storage_write_MBps", p, &pr->storage_write_MBps, 0, 1e6, true, true);
  c.str(v, "storage_source", p, &pr->storage_source, true, true);
  c.num(v, "egress_usd_per_GB", p, &pr->egress_usd_per_GB, 0, 100, true, true);
  c.str(v, "egress_source", p, &pr->egress_source, true, true);
  c.num(v, "network_download_MBps", p, &pr->network_download_MBps, 0, 1e6, true, true);
  c.str(v, "notes", p, &pr->notes, false);
  // Availability facts: optional (an older snapshot has none: every offer reads "unknown").
  auto access = [&](const JValue& a, const std::string& ap, AccessFact* f, bool with_match) {
    if (!c.object(a, ap)) return;
    if (with_match) c.str(a, "match", ap, &f->match, true, true);
    std::string how;
    if (c.str(a, "how", ap, &how, true)) {
      if (auto h = parse_access(how)) f->how = *h;
      else c.error(ap + "/how", "expected \"self_serve\", \"quota_request\", \"reservation_only\", \"sales_contact\" or \"unknown\"");
    }
    c.str(a, "detail", ap, &f->detail, false);
    c.str(a, "quota", ap, &f->quota, false);
    c.str(a, "max_cluster", ap, &f->max_cluster, false);
    c.str(a, "source", ap, &f->source, false);
    c.str(a, "date", ap, &f->date, false);
  };
  if (const JValue* a = find_member(v, "access")) access(*a, p + "/access", &pr->access, false);
  if (const JValue* ex = c.array(v, "access_exceptions", p, 100, false)) {
    pr->access_exceptions.resize(ex->Size());
    for (size_t i = 0; i < ex->Size(); ++i)
      access(at(*ex, i), idx(p + "/access_exceptions", i), &pr->access_exceptions[i], true);
  }
}

// One reserved-capacity product (snapshot.h Reservation); its prices are matched to offers by attach_reservations.
[[gnu::noinline]] void read_reservation(Ctx& c, const JValue& v, const std::string& p, Reservation* rv) {
  if (!c.object(v, p)) return;
  c.str(v, "id", p, &rv->id, true, true);
  c.str(v, "provider", p, &rv->provider, true, true);
  c.str(v, "name", p, &rv->name, true, true);
  // A negotiated contract publishes no bookable duration (snapshot.h Reservation::negotiated): "negotiated": true
  // with empty terms; every other product has at least one step. The flag must agree with the terms.
  bool negotiated = false;
  c.boolean(v, "negotiated", p, &negotiated, false);
  if (const JValue* ts = c.array(v, "terms", p, 8)) {
    if (ts->Size() == 0 && !negotiated)
      c.error(p + "/terms",
              "at least one bookable duration step (or \"negotiated\": true for a contract whose term is not "
              "published)");
    if (ts->Size() > 0 && negotiated)
      c.error(p + "/negotiated", "a negotiated contract publishes no bookable durations: its terms must be empty");
    rv->terms.resize(ts->Size());
    for (size_t i = 0; i < ts->Size(); ++i) {
      const std::string tp = idx(p + "/terms", i);
      const JValue& t = at(*ts, i);
      if (!c.object(t, tp)) continue;
      double up_to_h = 0, inc_h = 0;
      // Hours in the file; the longest booking is capped at 10 years.
      if (c.num(t, "up_to_h", tp, &up_to_h, 1e-3, 87660)) rv->terms[i].up_to_s = up_to_h * kHour_s;
      if (c.num(t, "increment_h", tp, &inc_h, 1e-3, 87660)) rv->terms[i].increment_s = inc_h * kHour_s;
    }
  }
  c.str(v, "start_time_utc", p, &rv->start_time_utc, false);
  c.integer(v, "max_instances", p, &rv->max_instances, 0, 100000, false);
  c.integer(v, "min_instances", p, &rv->min_instances, 0, 100000, false);  // against max_instances: attach_reservations
  c.num(v, "book_ahead_days", p, &rv->book_ahead_days, 0, 3660, false);
  c.boolean(v, "upfront", p, &rv->upfront);
  // Absent: whether the product can be cancelled is not published (the surfaces say so rather than guess).
  rv->cancellable_published = find_member(v, "cancellable") != nullptr;
  c.boolean(v, "cancellable", p, &rv->cancellable, false);
  c.date(v, "capture_date", p, &rv->capture_date);
  c.str(v, "source", p, &rv->source, true, true);
  c.str(v, "note", p, &rv->note, false);
  if (const JValue* ps = c.array(v, "prices", p, kMaxOffers)) {
    rv->prices.resize(ps->Size());
    for (size_t i = 0; i < ps->Size(); ++i) {
      const std::string pp = idx(p + "/prices", i);
      const JValue& x = at(*ps, i);
      if (!c.object(x, pp)) continue;
      c.str(x, "offer", pp, &rv->prices[i].offer, true, true);
      c.num(x, "usd_per_h", pp, &rv->prices[i].usd_per_h, 0, kMaxPrice);
    }
  }
}

}  // namespace

void read_sources(Ctx& c, const JValue& doc, Snapshot* s) {
  if (const JValue* src = c.array(doc, "sources", "", kMaxSources)) {
    s->sources.resize(src->Size());
    for (size_t i = 0; i < src->Size(); ++i) {
      const std::string p = idx("/sources", i);
      const JValue& v = at(*src, i);
      if (!c.object(v, p)) continue;
      c.str(v, "id", p, &s->sources[i].id, true, true);
      c.str(v, "address", p, &s->sources[i].address, true, true);
      c.date(v, "capture_date", p, &s->sources[i].capture_date);
      c.str(v, "note", p, &s->sources[i].note, false);
    }
  }
}

// An array of records with ids: each read by `read`, its id indexed in `ix` (an error for a second one).
template <class T, class Read>
void read_records(Ctx& c, const JValue& doc, const char* key, size_t max_n, const char* what, Read read,
                  std::vector<T>* out, IdIndex* ix) {
  if (const JValue* a = c.array(doc, key, "", max_n)) {
    out->resize(a->Size());
    const std::string base = std::string("/") + key;
    for (size_t i = 0; i < a->Size(); ++i) {
      T& r = (*out)[i];
      read(c, at(*a, i), idx(base, i), &r);
      if (r.id.empty()) continue;
      if (!ix->emplace(std::string_view(r.id), static_cast<int>(i)).second)
        c.error(idx(base, i) + "/id", "duplicate " + std::string(what) + " id \"" + r.id + "\"");
    }
  }
}

void read_gpus(Ctx& c, const JValue& doc, Snapshot* s, IdIndex* gpu_ix) {
  read_records(c, doc, "gpus", kMaxGpus, "GPU", read_gpu, &s->gpus, gpu_ix);
}

void read_providers(Ctx& c, const JValue& doc, Snapshot* s, IdIndex* prov_ix) {
  read_records(c, doc, "providers", kMaxProviders, "provider", read_provider, &s->providers, prov_ix);
}

void read_reservations(Ctx& c, const JValue& doc, Snapshot* s) {
  if (const JValue* rs = c.array(doc, "reservations", "", kMaxProviders, false)) {
    s->reservations.resize(rs->Size());
    for (size_t i = 0; i < rs->Size(); ++i) read_reservation(c, at(*rs, i), idx("/reservations", i), &s->reservations[i]);
  }
}

}  // namespace trainfit::detail::snapshot_json
