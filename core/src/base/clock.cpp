// trainfit core — today's date (common.h utc_date_today).
#include <ctime>

#include "trainfit/base/common.h"

namespace trainfit {

std::string utc_date_today() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
#if defined(_WIN32)
  gmtime_s(&tm, &t);
#else
  gmtime_r(&t, &tm);
#endif
  char b[16];
  std::strftime(b, sizeof b, "%Y-%m-%d", &tm);
  return b;
}

}  // namespace trainfit
