// libFuzzer target: live-stock responses (market/stock.h parse_stock_response, the body a provider's API returns to
// `trainfit availability`) and saved stock reports (read_stock_report, `rank --stock FILE`). Whatever parses must
// save and read back to the same entries.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "trainfit/market/stock.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = trainfit::parse_stock_response("lambda", text, "2026-12-05T00:00:00Z", "fuzz");
  if (r.ok()) {
    auto back = trainfit::read_stock_report(trainfit::stock_report_json(r.value()));
    if (!back.ok() || back->entries.size() != r->entries.size()) std::abort();
    for (size_t i = 0; i < r->entries.size(); ++i)
      if (back->entries[i].instance_type != r->entries[i].instance_type ||
          back->entries[i].regions != r->entries[i].regions)
        std::abort();
  }
  (void)trainfit::read_stock_report(text);
  return 0;
}
