// trainfit validation — reference_gpus.h: GPU rows from the bundled snapshot (data/inputs/gpus.json), loaded once.
#include "validation/reference_gpus.h"

#include <algorithm>

#include "trainfit/storage/bundled.h"

namespace trainfit {
namespace {

struct ReferenceGpus {
  std::vector<GpuSpec> gpus;
  std::vector<std::string> missing;
};

ReferenceGpus& reference() {
  static ReferenceGpus r = [] {
    ReferenceGpus x;
    Result<Snapshot> s = load_snapshot(embedded_snapshot_json());
    if (s) x.gpus = std::move(s->gpus);
    return x;
  }();
  return r;
}

}  // namespace

GpuSpec reference_gpu(std::string_view id) {
  ReferenceGpus& r = reference();
  for (const GpuSpec& g : r.gpus)
    if (g.id == id) return g;
  if (std::find(r.missing.begin(), r.missing.end(), id) == r.missing.end()) r.missing.emplace_back(id);
  GpuSpec none;
  none.id = std::string(id);
  return none;
}

double reference_capacity(std::string_view id) { return gpu_capacity_bytes(reference_gpu(id)); }

std::vector<std::string> reference_gpus_missing() { return reference().missing; }

}  // namespace trainfit
