// trainfit validation (internal) — the GPUs the published runs ran on, as data/inputs/gpus.json gives them. The
// validation tables never type a GPU figure: they look the GPU up here, in the bundled snapshot, whose GPU rows the
// importer writes from gpus.json (the one place datasheet figures are typed, each with its source).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "trainfit/storage/snapshot.h"

namespace trainfit {

// The GPU with snapshot id `id`. An id the snapshot lacks gives a GpuSpec with only the id set (no figures):
// reference_gpus_missing() names such ids, and the validation report refuses to run while any is missing.
GpuSpec reference_gpu(std::string_view id);
// The CUDA-visible memory of that GPU (gpu_capacity_bytes: what nvidia-smi reports), the capacity a fit is judged on.
double reference_capacity(std::string_view id);
// The ids asked for so far that the bundled snapshot does not have.
std::vector<std::string> reference_gpus_missing();

}  // namespace trainfit
