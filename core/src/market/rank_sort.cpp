// trainfit core — the ranking's order: rows sorted by the query's key (ties broken for byte-identical output),
// and the time/cost Pareto frontier of the ranked rows.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "market/rank_internal.h"

namespace trainfit::rank_detail {
namespace {

// a < b as std::string orders them (bytes as unsigned, then length), eight bytes at a time up to the first
// difference: ids share long prefixes ("aws/p5.48xlarge/us-east-1", "aws/p5.48xlarge/us-east-2"), and the wasm
// build's memcmp compares one byte per step.
bool id_less(const std::string& a, const std::string& b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) break;
  }
  for (; i < n; ++i)
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  return a.size() < b.size();
}

// A sort key's value as an unsigned integer of the same order: the IEEE bits with the sign flipped for positives and
// every bit flipped for negatives (-0 taken as +0, which compares equal to it; a NaN, which no ranked row holds, last).
uint64_t ordered_bits(double v) {
  if (v == 0) v = 0;  // -0 == +0
  if (v != v) return ~uint64_t(0);
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return (b >> 63) ? ~b : b | (uint64_t(1) << 63);
}

// The sort's key of one row: the sort value as ordered_bits, the row's place, and the tie-breaks (offer, pricing
// option). Its class needs no field: sort_rows places each class's keys in their own range.
struct Key {
  uint64_t value;
  int32_t index;
  int32_t offer;
  PricingOption option;
};

// keys[0, n) in the ranking's order: by value, ties by offer id (std::string's order), then option, then place. A
// least-significant-digit radix sort on the value (stable, 8 bits a pass, the passes whose digit every key shares
// skipped: prices of one market agree in their high bits), then each run of equal values by the tie-breaks: the
// comparison sort over all of them was a tenth of a 100k-offer ranking (its branches on doubles mispredict).
void sort_ranked(std::vector<Key>& keys, size_t n, const Snapshot& s) {
  if (n < 2) return;
  std::vector<Key> tmp(n);
  uint32_t count[8][256] = {};
  for (size_t i = 0; i < n; ++i)
    for (int d = 0; d < 8; ++d) ++count[d][(keys[i].value >> (8 * d)) & 0xff];
  Key* from = keys.data();
  Key* to = tmp.data();
  for (int d = 0; d < 8; ++d) {
    uint32_t* c = count[d];
    if (c[(from[0].value >> (8 * d)) & 0xff] == n) continue;  // one digit for all: nothing moves
    uint32_t at = 0;
    for (int b = 0; b < 256; ++b) {
      const uint32_t k = c[b];
      c[b] = at;
      at += k;
    }
    for (size_t i = 0; i < n; ++i) to[c[(from[i].value >> (8 * d)) & 0xff]++] = from[i];
    std::swap(from, to);
  }
  if (from != keys.data()) std::copy(from, from + n, keys.data());
  // Ties: offer id (bytes as unsigned, then length), then on-demand first, then place. Equal values are common (one
  // instance type at one price in many regions).
  auto tie_less = [&](const Key& a, const Key& b) {
    if (a.offer != b.offer) return id_less(s.offers[a.offer].id, s.offers[b.offer].id);
    if (a.option != b.option) return a.option < b.option;
    return a.index < b.index;
  };
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && keys[j].value == keys[i].value) ++j;
    if (j - i > 1) std::sort(keys.begin() + static_cast<std::ptrdiff_t>(i), keys.begin() + static_cast<std::ptrdiff_t>(j), tie_less);
    i = j;
  }
}

}  // namespace

[[gnu::noinline]] void sort_rows(const Query& q, const Snapshot& s, RankResult& r) {
  // Sort: ranked rows by the key (ties: offer id, then on-demand first) for byte-identical output; the rest after
  // them in snapshot order. Sorted as small keys, then the rows moved once: sorting the rows themselves (~200 bytes
  // each) was a third of the time at 100k offers.
  auto class_of = [](RowState st) { return st == RowState::ranked ? 0 : st == RowState::does_not_fit ? 1 : 2; };
  // Grouped by class in one counting pass (the same order two stable partitions gave), then the ranked rows sorted
  // (sort_ranked); the others keep snapshot order within their class.
  std::vector<Key> keys(r.rows.size());
  size_t next[3] = {0, 0, 0};
  for (const RankRow& row : r.rows) ++next[class_of(row.state)];
  next[2] = next[0] + next[1];
  next[1] = next[0];
  next[0] = 0;
  const size_t n_ranked = next[1];
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const RankRow& row = r.rows[i];
    keys[next[class_of(row.state)]++] =
        Key{ordered_bits(sort_value(q.sort, row)), static_cast<int32_t>(i), row.offer, row.option};
  }
  sort_ranked(keys, n_ranked, s);
  // The rows moved into their places in one pass over each cycle of the permutation, in place: a sorted copy
  // had two full row vectors alive at once (~50 MB at 100k offers in the wasm heap, which never shrinks;
  // docs/performance.md, "100k offers: where the heap goes").
  // Each cycle: the first row out to a temporary, every other row moved once into the place that wants it.
  // The walk follows the source indices alone, compacted in place into the front of the keys' storage (4 bytes a
  // row instead of 24: the walk stays in cache, and nothing is allocated beside the rows), and the rows are moved
  // 64 places at a time, listed first: they lie at random places in ~20 MB at 100k offers, and with every address
  // known in advance the processor overlaps their cache misses, where following the chain key by key waited for
  // each in turn (the reorder was a quarter of a 100k-offer ranking, natively and in the browser).
  unsigned char* const src_bytes = reinterpret_cast<unsigned char*>(keys.data());
  auto src_at = [src_bytes](size_t k) {
    int32_t v;
    std::memcpy(&v, src_bytes + 4 * k, 4);
    return v;
  };
  auto src_set = [src_bytes](size_t k, int32_t v) { std::memcpy(src_bytes + 4 * k, &v, 4); };
  for (size_t k = 0; k < keys.size(); ++k) src_set(k, keys[k].index);  // ascending: never over an unread key
  const size_t n_rows = r.rows.size();
  for (size_t start = 0; start < n_rows; ++start) {
    if (src_at(start) < 0 || static_cast<size_t>(src_at(start)) == start) continue;
    RankRow held = std::move(r.rows[start]);
    size_t place = start;
    for (;;) {
      uint32_t chunk[64];
      int n = 0;
      bool closed = false;
      chunk[n++] = static_cast<uint32_t>(place);
      while (n < 64) {
        const size_t from = static_cast<size_t>(src_at(place));
        src_set(place, -1);  // placed
        if (from == start) {
          closed = true;
          break;
        }
        place = from;
        chunk[n++] = static_cast<uint32_t>(place);
      }
      for (int k = 0; k + 1 < n; ++k) r.rows[chunk[k]] = std::move(r.rows[chunk[k + 1]]);
      if (closed) {
        r.rows[chunk[n - 1]] = std::move(held);
        break;
      }
      // A full chunk: its last place is filled first thing in the next one.
    }
  }
  for (const auto& row : r.rows) {
    r.ranked += row.state == RowState::ranked;
    r.held_back += row.state == RowState::held_back;
  }

}

[[gnu::noinline]] void mark_pareto(const Query& q, RankResult& r) {
  // Pareto frontier on (wall time, total cost): a row is on it when no other row is at least as fast and at least as
  // cheap and comes first in (wall time, cost, place) order. Sweep by time, keep rows strictly cheaper than all
  // faster ones.
  //
  // Sorted by cost or by time (the usual keys), the ranked rows are already in order of one coordinate: a linear
  // sweep over groups of equal value does it. Sorted by cost: a group's least wall time (first in place on ties) is
  // on the frontier when it is strictly less than every cheaper row's (a cheaper row as fast comes first in time
  // order; an equally cheap one with less time or an earlier place too). Sorted by time: a group's least cost, when
  // strictly less than every faster row's. Both give the rows the general sweep below gives (rank_test.cpp checks the
  // frontier against its definition under every sort key), without its sort: ~10% of a ranking at 10k offers.
  const bool by_cost = q.sort == SortKey::total_cost || q.sort == SortKey::cost_under_deadline;
  if (by_cost || q.sort == SortKey::time) {
    auto primary = [&](int i) { return by_cost ? r.rows[i].total_usd : r.rows[i].wall_s; };
    auto secondary = [&](int i) { return by_cost ? r.rows[i].wall_s : r.rows[i].total_usd; };
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < r.ranked;) {
      const double key = primary(i);
      int pick = i, j = i + 1;
      for (; j < r.ranked && primary(j) == key; ++j)
        if (secondary(j) < secondary(pick)) pick = j;
      if (secondary(pick) < best) {
        r.rows[pick].pareto = true;
        best = secondary(pick);
      }
      i = j;
    }
    return;
  }
  struct Point {
    double wall_s, usd;
    int index;
  };
  std::vector<Point> pts(r.ranked);
  for (int i = 0; i < r.ranked; ++i) pts[i] = Point{r.rows[i].wall_s, r.rows[i].total_usd, i};
  std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) {
    if (a.wall_s != b.wall_s) return a.wall_s < b.wall_s;
    if (a.usd != b.usd) return a.usd < b.usd;
    return a.index < b.index;
  });
  double best_cost = std::numeric_limits<double>::infinity();
  for (const Point& pt : pts) {
    if (pt.usd < best_cost) {
      r.rows[pt.index].pareto = true;
      best_cost = pt.usd;
    }
  }
}

}  // namespace trainfit::rank_detail
