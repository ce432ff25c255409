// trainfit core — the two rules every facade document follows (the facade, core/src/facade, and validation_doc.cpp). Internal to the core.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "trainfit/base/common.h"

namespace trainfit::doc {

inline nlohmann::json error_doc(const Error& e) {
  return nlohmann::json{{"ok", false}, {"error", {{"field", e.field}, {"message", e.message}}}};
}

// Numbers leave the core rounded to 12 significant digits: far below any estimate's uncertainty, and enough to
// absorb last-bit differences between glibc's and emscripten's libm, so the CLI (native) and the JS API (wasm)
// print byte-identical documents. Non-finite numbers never leave the core: they become null, and tests walk
// every output to prove none appear.
inline nlohmann::json num(double v) {
  if (!std::isfinite(v)) return nlohmann::json(nullptr);
  if (v == std::floor(v) && std::fabs(v) < 9e15) return nlohmann::json(static_cast<int64_t>(v));
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return nlohmann::json(std::strtod(buf, nullptr));
}

}  // namespace trainfit::doc
