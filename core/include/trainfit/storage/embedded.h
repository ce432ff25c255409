// trainfit core — data files compiled into the binaries at build time (cmake/embed.cmake).
#pragma once
#include <string_view>

namespace trainfit {
std::string_view embedded_models_json();     // data/models.json, in the core library (small)
}  // namespace trainfit
