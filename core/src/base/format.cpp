// trainfit core — printf("%.Nf") and printf("%.Pg") without printf (format.h).
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

namespace {

// 10^0 .. 10^22: every one exact in a double.
constexpr double kPow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
constexpr double kTwo52 = 4503599627370496.0;  // beyond it doubles are integers spaced >= 1

// |v| * 10^decimals rounded to an integer as printf rounds it (the comment at the top says why this is exact);
// a negative result when the scaled value is not below 2^52 (the caller falls back to printf).
double scaled_integer(double a, int decimals) {
  const double p = a * kPow10[decimals];
  if (!(p < kTwo52)) return -1;
  const double floor_p = std::floor(p);
  if (p - floor_p == 0.5) {
    const double e = std::fma(a, kPow10[decimals], -p);
    return e > 0 ? floor_p + 1.0 : (e < 0 ? floor_p : std::nearbyint(p));
  }
  return std::nearbyint(p);
}

// The text of the integer n with a point `decimals` digits from the right (at least one digit before it), the
// sign first, trailing fraction zeros (and then the point) dropped when `trim`. Into buf as snprintf would.
int write_scaled(char* buf, size_t size, double n, int decimals, bool negative, bool plus_sign, bool trim) {
  char digits[40];  // least significant first
  int len = 0;
  uint64_t u = static_cast<uint64_t>(n);
  do {
    digits[len++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  while (len < decimals + 1) digits[len++] = '0';
  int drop = 0;  // trailing fraction zeros left out
  if (trim) {
    while (drop < decimals && digits[drop] == '0') ++drop;  // all of them: the point goes too
  }
  char text[48];  // sign, at most 16 digits before 2^52, point, at most 18 decimals
  int t = 0;
  if (negative) {
    text[t++] = '-';
  } else if (plus_sign) {
    text[t++] = '+';
  }
  for (int i = len - 1; i >= drop; --i) {
    text[t++] = digits[i];
    if (i == decimals && decimals > drop) text[t++] = '.';
  }
  if (size > 0) {
    const size_t kept = std::min(static_cast<size_t>(t), size - 1);
    std::memcpy(buf, text, kept);
    buf[kept] = 0;
  }
  return t;
}

}  // namespace

int format_fixed(char* buf, size_t size, double v, int decimals, bool plus_sign) {
  const bool in_range = decimals >= 0 && decimals <= 3 && std::isfinite(v);
  const double n = in_range ? scaled_integer(std::fabs(v), decimals) : -1;
  if (n < 0) return std::snprintf(buf, size, plus_sign ? "%+.*f" : "%.*f", decimals, v);
  return write_scaled(buf, size, n, decimals, std::signbit(v), plus_sign, false);
}

// %.Pg (C17 7.21.6.1): with X the exponent that style e would print, i.e. of v rounded to P significant digits,
// style f with P - 1 - X decimals when -4 <= X < P, trailing zeros removed. X is found by rounding at the
// exponent x that log10 suggests and correcting it by the digits that gives: one too many means a carry (9.999996
// -> 10: X = x + 1). log10 of a value just below 10^x can round up to x; the rounding at x then gives either too
// few digits, or exactly 10^(P-1) when the value is within half a unit of it: then X = x only if rounding at x - 1
// carries too (one more decimal reaches 10^P), else X = x - 1 (1e10 - 5 * 2^-19 at P = 15 is 9999999999.99999).
int format_general(char* buf, size_t size, double v, int precision) {
  const double a = std::fabs(v);
  if (precision >= 1 && precision <= 15 && std::isfinite(v) && a > 0) {
    const double lo = kPow10[precision - 1], hi = kPow10[precision];  // n holds precision digits: lo <= n < hi
    int x = static_cast<int>(std::floor(std::log10(a)));
    for (int tries = 0; tries < 3 && x >= -4 && x < precision; ++tries) {
      const int decimals = precision - 1 - x;
      const double n = scaled_integer(a, decimals);
      if (n < 0) break;
      if (n >= hi) {
        ++x;
      } else if (n < lo || (n == lo && scaled_integer(a, decimals + 1) < hi)) {  // decimals + 1 <= 19
        --x;
      } else {
        return write_scaled(buf, size, n, decimals, std::signbit(v), false, true);
      }
    }
  }
  return std::snprintf(buf, size, "%.*g", precision, v);
}

std::string general(double v, int precision) {
  char buf[64];  // "%.15g" of a double is at most 23 characters
  const int n = format_general(buf, sizeof buf, v, precision);
  return std::string(buf, static_cast<size_t>(std::min(n, static_cast<int>(sizeof buf) - 1)));
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
