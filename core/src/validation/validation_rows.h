// trainfit core — internal to the validation tables: the row builder the memory tables share, and the tables kept
// in their own files (validation_peaks.cpp: load peaks).
#pragma once
#include <string>
#include <vector>

#include "trainfit/base/common.h"
#include "trainfit/validation/validation.h"

namespace trainfit::validation_detail {

// One reference: its relative error computed from `published` and `estimate`.
ValidationRow row(std::string name, std::string source, RefKind kind, std::string metric, double published,
                  double estimate, double tolerance, std::string note = "", bool fully_specified = true);

Result<bool> add_litgpt_load_peaks(std::vector<ValidationRow>& out);

}  // namespace trainfit::validation_detail
