// trainfit — the price snapshot bundled at build time (data/snapshot.json), linked into the CLI, the desktop
// app and the tests (library trainfit_bundled). The web app fetches the file instead.
#pragma once
#include <string_view>

namespace trainfit {
std::string_view embedded_snapshot_json();
}  // namespace trainfit
