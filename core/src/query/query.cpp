// trainfit core — the query model's defaults and names: default_query, each model family's defaults, the enum
// names every surface uses, and the number text links and messages share. The key table is in query_keys.cpp,
// the JSON form in query_json.cpp, the link form in query_hash.cpp, the cross-field checks in query_check.cpp.
#include "trainfit/query/query.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "query/query_internal.h"
#include "trainfit/base/format.h"
#include "trainfit/catalog/model.h"

namespace trainfit {
namespace query_detail {

// A query whose model is `a`'s family defaults (what model.arch alone implies).
const Query& family_query(Arch a) {
  static const std::vector<Query> all = [] {
    std::vector<Query> v;
    for (int i = 0; i <= int(Arch::params_only); ++i) {
      Query q;
      q.model = family_spec(Arch(i));
      v.push_back(std::move(q));
    }
    return v;
  }();
  return all[size_t(a)];
}

std::string fmt_num(double v) {
  // The shortest text that round-trips, with a compact exponent ("7e9", not "7e+09": links stay readable).
  // Precisions up to 15 through format_general (printf's text without printf: a query's numbers are written at
  // every input change); %.17g always round-trips (NaN never does, and is written as it).
  char buf[64];
  bool found = false;
  for (int prec = 1; prec <= 17 && !found; ++prec) {
    if (prec <= 15)
      format_general(buf, sizeof buf, v, prec);
    else
      std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    found = std::strtod(buf, nullptr) == v;
  }
  if (!found) std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  const size_t e = s.find('e');
  if (e == std::string::npos) return s;
  std::string mant = s.substr(0, e), ex = s.substr(e + 1);
  bool neg = false;
  if (!ex.empty() && (ex[0] == '+' || ex[0] == '-')) {
    neg = ex[0] == '-';
    ex.erase(0, 1);
  }
  while (ex.size() > 1 && ex[0] == '0') ex.erase(0, 1);
  return mant + "e" + (neg ? "-" : "") + ex;
}

}  // namespace query_detail

using namespace query_detail;

Query default_query() {
  Query q;
  if (const ModelSpec* m = find_model("llama-3.1-8b")) {
    q.model = *m;
    q.model_id = m->id;
  } else if (!builtin_models().empty()) {
    q.model = builtin_models().front();
    q.model_id = q.model.id;
  } else {
    q.model_id = "custom";
    q.model.arch = Arch::params_only;
    q.model.params = 8e9;
  }
  q.train.method = Method::lora;
  q.train.micro_batch = 4;
  q.train.seq_len = 2048;
  q.train.global_batch = 0;  // planner.h default_global_batch: 64 where the DP width divides it
  q.dataset.tokens = 1e8;
  return q;
}

const char* to_string(SortKey k) { return enum_name(kSortKeys, k); }
const char* to_string(PricingFilter f) { return enum_name(kPricings, f); }

}  // namespace trainfit
