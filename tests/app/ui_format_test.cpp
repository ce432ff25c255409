// trainfit UI — the table's and the detail's number formatters (app/src/ui_format.cpp) write exactly what their
// printf formats wrote before they stopped using printf (load time): the reference below is that code.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

#include "app_impl.h"

namespace trainfit::app {
namespace {

std::string printf_duration(double s) {
  char buf[64];
  if (!std::isfinite(s) || s < 0) std::snprintf(buf, sizeof buf, "-");
  else if (s < 90) std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 5400) std::snprintf(buf, sizeof buf, "%.0f min", s / 60);
  else if (s < 72 * 3600.0) std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  else std::snprintf(buf, sizeof buf, "%.1f d", s / 86400);
  return buf;
}
std::string printf_usd(double usd) {
  char buf[64];
  if (!std::isfinite(usd)) std::snprintf(buf, sizeof buf, "-");
  else if (usd >= 1e6) std::snprintf(buf, sizeof buf, "$%.2fM", usd / 1e6);
  else if (usd >= 1000) {
    const long long v = std::llround(usd);
    std::snprintf(buf, sizeof buf, "$%lld,%03lld", v / 1000, v % 1000);
  } else if (usd >= 10) std::snprintf(buf, sizeof buf, "$%.0f", usd);
  else if (usd >= 0.1) std::snprintf(buf, sizeof buf, "$%.2f", usd);
  else std::snprintf(buf, sizeof buf, "$%.3f", usd);
  return buf;
}
std::string printf_gib(double bytes) {
  char buf[64];
  if (!std::isfinite(bytes)) std::snprintf(buf, sizeof buf, "-");
  else std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / kGiB);
  return buf;
}
std::string printf_count(double v) {
  char buf[64];
  if (!std::isfinite(v)) std::snprintf(buf, sizeof buf, "-");
  else if (v >= 1e12) std::snprintf(buf, sizeof buf, "%.2f T", v / 1e12);
  else if (v >= 1e9) std::snprintf(buf, sizeof buf, "%.2f B", v / 1e9);
  else if (v >= 1e6) std::snprintf(buf, sizeof buf, "%.1f M", v / 1e6);
  else if (v >= 1e4) std::snprintf(buf, sizeof buf, "%.1f k", v / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

void expect_all(double v) {
  char buf[64];
  EXPECT_EQ(std::string(fmt_duration(buf, sizeof buf, v)), printf_duration(v)) << v;
  EXPECT_EQ(std::string(fmt_usd(buf, sizeof buf, v)), printf_usd(v)) << v;
  EXPECT_EQ(std::string(fmt_bytes_gib(buf, sizeof buf, v)), printf_gib(v)) << v;
  EXPECT_EQ(std::string(fmt_count(buf, sizeof buf, v)), printf_count(v)) << v;
}

TEST(UiFormat, WritesWhatItsPrintfFormatsWrote) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double v : {0.0, -0.0, 0.04, 0.0995, 0.1, 0.125, 9.995, 10.0, 89.5, 90.0, 999.5, 999.4, 1000.0, 1234.5,
                   1e6 - 0.5, 1e6, 5399.0, 5400.0, 259199.0, 259200.0, 9999.5, 1e4, 1e9, 1e12, 5.0e15, -3.0,
                   -1500.0, inf, -inf, std::nan("")})
    expect_all(v);
  std::mt19937_64 rng(20261130);
  std::uniform_real_distribution<double> exponent(-4.0, 16.0), mantissa(1.0, 10.0);
  for (int i = 0; i < 20000 && !::testing::Test::HasFailure(); ++i) expect_all(mantissa(rng) * std::pow(10.0, exponent(rng)));
}

TEST(UiFormat, TruncatesToTheBufferAsSnprintf) {
  char buf[6];
  EXPECT_STREQ(fmt_usd(buf, sizeof buf, 123456.0), "$123,");
  EXPECT_STREQ(fmt_duration(buf, sizeof buf, 30.0), "30 s");
  char one[1] = {'x'};
  EXPECT_STREQ(fmt_count(one, sizeof one, 5.0), "");
}

}  // namespace
}  // namespace trainfit::app
