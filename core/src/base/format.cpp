// trainfit core — printf("%.Nf") without printf (format.h).
//
// Why it is exact. Let a = |v| and s = 10^N (exact). p = a * s rounded to a double; e = fma(a, s, -p) is the
// exact rounding error, so the true product is p + e. printf rounds the true product to an integer, ties to
// even. A rounding boundary k + 0.5 (exactly representable while p < 2^52) cannot lie strictly between p + e
// and p: it would then be nearer to p + e than p is, and p is the double nearest to it. So unless p itself is
// a boundary, rounding p gives the same integer; when it is, the sign of e says on which side the true product
// lies, and e == 0 is a true tie (to even). The sign is printed whenever v's sign bit is set ("-0.0" for
// -0.04), as printf does.
#include "trainfit/base/format.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace trainfit {

int format_fixed(char* buf, size_t size, double v, int decimals, bool plus_sign) {
  static constexpr double kScale[4] = {1.0, 10.0, 100.0, 1000.0};
  const bool in_range = decimals >= 0 && decimals <= 3 && std::isfinite(v);
  const double a = std::fabs(v);
  const double p = in_range ? a * kScale[decimals] : 0.0;
  if (!in_range || !(p < 4503599627370496.0))  // 2^52: beyond it doubles are integers spaced >= 1
    return std::snprintf(buf, size, plus_sign ? "%+.*f" : "%.*f", decimals, v);
  const double floor_p = std::floor(p);
  double n;
  if (p - floor_p == 0.5) {
    const double e = std::fma(a, kScale[decimals], -p);
    n = e > 0 ? floor_p + 1.0 : (e < 0 ? floor_p : std::nearbyint(p));
  } else {
    n = std::nearbyint(p);
  }
  // Digits of n, least significant first, with at least decimals + 1 of them.
  char digits[24];
  int len = 0;
  uint64_t u = static_cast<uint64_t>(n);
  do {
    digits[len++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  while (len < decimals + 1) digits[len++] = '0';
  char text[32];  // sign, at most 16 digits before 2^52, point, decimals
  int t = 0;
  if (std::signbit(v)) {
    text[t++] = '-';
  } else if (plus_sign) {
    text[t++] = '+';
  }
  for (int i = len - 1; i >= 0; --i) {
    text[t++] = digits[i];
    if (i == decimals && decimals > 0) text[t++] = '.';
  }
  if (size > 0) {
    const size_t kept = std::min(static_cast<size_t>(t), size - 1);
    std::memcpy(buf, text, kept);
    buf[kept] = 0;
  }
  return t;
}

void append_fixed(std::string& out, double v, int decimals, bool plus_sign) {
  char buf[400];  // the longest printf("%.3f") of a double is ~313 characters
  const int n = format_fixed(buf, sizeof buf, v, decimals, plus_sign);
  out.append(buf, static_cast<size_t>(std::min(n, static_cast<int>(sizeof buf) - 1)));
}

std::string fixed(double v, int decimals, bool plus_sign) {
  std::string s;
  append_fixed(s, v, decimals, plus_sign);
  return s;
}

}  // namespace trainfit
