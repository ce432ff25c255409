// format.h: fixed() and general() must write exactly what snprintf("%.Nf") and snprintf("%.Pg") write. (A longer run of the same checks, 75M
// values against glibc and 15M against emscripten's musl, found no difference.)
#include "trainfit/base/format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>

namespace trainfit {
namespace {

std::string printf_fixed(double v, int decimals, bool plus) {
  char buf[512];
  std::snprintf(buf, sizeof buf, plus ? "%+.*f" : "%.*f", decimals, v);
  return buf;
}

void expect_same(double v) {
  for (int d = 0; d <= 3; ++d)
    for (bool plus : {false, true}) {
      const std::string want = printf_fixed(v, d, plus);
      const std::string got = fixed(v, d, plus);
      char buf[512];
      const int n = format_fixed(buf, sizeof buf, v, d, plus);
      if (got != want || buf != want || n != static_cast<int>(want.size())) {
        ADD_FAILURE() << "fixed(" << std::hexfloat << v << ", " << d << ", " << plus << ") = " << got
                      << ", format_fixed: " << buf << " (" << n << "), printf: " << want;
        return;
      }
    }
}

TEST(FixedFormat, TiesAndEdgesAsPrintf) {
  const double edges[] = {0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 0.05, 0.15, 0.25, 0.35, 0.45, 0.125, 0.375, 1.0625,
                          0.0005, 0.0015, 0.0025, 9.95, 9.5, 99.5, 0.04, -0.04, -0.4, 1e-300, -1e-300, 4.9e-324,
                          1e15, 1e16, 4503599627370495.5, 4503599627370496.0, 1e300, -1e300, 123456789.05,
                          std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                          std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::max(),
                          std::numeric_limits<double>::min(), 2.675, 1.005, 1.115, 77.0 / 1024.0};
  for (double v : edges) expect_same(v);
  // Exact binary ties at every scale: k / 2^j for small j, positive and negative.
  for (int k = -300; k <= 300; ++k)
    for (int j = 1; j <= 12; ++j) expect_same(std::ldexp(static_cast<double>(k), -j));
  // Doubles next to decimal ties (x.x5, x.xx5, x.xxx5): one ulp either side.
  for (int k = 0; k < 1000; ++k) {
    for (double scale : {10.0, 100.0, 1000.0, 1.0}) {
      const double t = (k + 0.5) / scale;
      expect_same(t);
      expect_same(std::nextafter(t, 0.0));
      expect_same(std::nextafter(t, 1e300));
      expect_same(-t);
    }
  }
}

// `scaled` values of 1..10 x 10^[min_exp, max_exp), either sign, then 8,000 arbitrary bit patterns, each given to
// `check`; stops at the first failure.
void check_random_doubles(uint64_t seed, double min_exp, double max_exp, int scaled, void (*check)(double)) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> exponent(min_exp, max_exp);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  for (int i = 0; i < scaled; ++i) {
    double v = mantissa(rng) * std::pow(10.0, exponent(rng));
    if (rng() & 1) v = -v;
    check(v);
    if (::testing::Test::HasFailure()) return;
  }
  for (int i = 0; i < 8000; ++i) {  // arbitrary bit patterns
    const uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    check(v);
    if (::testing::Test::HasFailure()) return;
  }
}

// `format(buf, size, v)` against snprintf(buf, size, fmt, v) for buffers of 0 to 64 bytes: the same count, the same
// truncated text.
template <class Format>
void check_truncation(const char* fmt, std::initializer_list<double> values, Format format) {
  for (double v : values) {
    for (size_t size : {0u, 1u, 3u, 6u, 64u}) {
      char want[64] = "untouched", got[64] = "untouched";
      const int wn = std::snprintf(size ? want : nullptr, size, fmt, v);
      const int gn = format(size ? got : nullptr, size, v);
      EXPECT_EQ(gn, wn) << v << " in " << size;
      EXPECT_STREQ(got, want) << v << " in " << size;
    }
  }
}

TEST(FixedFormat, RandomDoublesAsPrintf) { check_random_doubles(20261129, -12.0, 17.0, 8000, expect_same); }

TEST(FixedFormat, BufferTruncatesAndCountsAsSnprintf) {
  check_truncation("%.2f", {-1234.5678, 0.0, 3.14159, 1e300},
                   [](char* b, size_t n, double v) { return format_fixed(b, n, v, 2); });
}

void expect_general(double v) {
  for (int p : {1, 3, 6, 10, 14, 15}) {
    char want[64], buf[64];
    std::snprintf(want, sizeof want, "%.*g", p, v);
    const int n = format_general(buf, sizeof buf, v, p);
    if (general(v, p) != want || std::strcmp(buf, want) != 0 || n != static_cast<int>(std::strlen(want))) {
      ADD_FAILURE() << "general(" << std::hexfloat << v << ", " << p << ") = " << general(v, p) << ", printf: " << want;
      return;
    }
  }
}

TEST(GeneralFormat, EdgesAsPrintf) {
  const double edges[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e-4, 9.99999e-5, 0.000099999951, 0.0001, 999999.5, 999999.4,
                          999999.6, 1e6, 123456.5, 1234565.0, 9.999995, 9.9999949, 99999.95, 0.1, 0.3, 2.675, 1e15,
                          1e16, 1e22, 1e300, 4.9e-324, std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
                          std::numeric_limits<double>::max(), 12.3657, 2.467, 5.01245, 88.0009, 10.7665};
  for (double v : edges) {
    expect_general(v);
    expect_general(-v);
  }
  // Every power of ten in range and 64 doubles either side of it: log10 can land on either side of the true
  // exponent (it rounds values a few ulps below 10^k up to k), and at precision 15 those values print below 10^k.
  for (int e = -6; e <= 16; ++e) {
    const double t = std::pow(10.0, e);
    double below = t, above = t;
    expect_general(t);
    for (int u = 0; u < 64; ++u) {
      below = std::nextafter(below, 0.0);
      above = std::nextafter(above, 1e300);
      expect_general(below);
      expect_general(above);
    }
  }
  EXPECT_EQ(general(1e10 - 5 * std::ldexp(1.0, -19), 15), "9999999999.99999");
  // Decimal ties at six significant digits (x.xxxxx5) and one ulp either side; exact binary ties.
  for (int k = 100000; k < 1000000; k += 997)
    for (double scale : {1e-3, 1.0, 1e3}) {
      const double t = (k + 0.5) * scale / 1e5;
      for (double v : {t, std::nextafter(t, 0.0), std::nextafter(t, 1e300)}) expect_general(v);
    }
  for (int k = -300; k <= 300; ++k)
    for (int j = 1; j <= 12; ++j) expect_general(std::ldexp(static_cast<double>(k), -j));
}

TEST(GeneralFormat, RandomDoublesAsPrintf) { check_random_doubles(20261206, -7.0, 17.0, 20000, expect_general); }

TEST(GeneralFormat, BufferTruncatesAndCountsAsSnprintf) {
  check_truncation("%.6g", {-1234.5678, 0.000123456, 3.14159, 1e300},
                   [](char* b, size_t n, double v) { return format_general(b, n, v, 6); });
}

}  // namespace
}  // namespace trainfit
