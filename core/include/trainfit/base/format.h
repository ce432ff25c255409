// trainfit core — number text for the hot paths (planner reasons, "does not fit" messages, a snapshot's
// warnings, a query's numbers): exactly what printf("%.Nf") and printf("%.Pg") write, without printf. glibc and
// musl both round the exact binary value to nearest, ties to even; so does this (see format.cpp for why), and
// format_test compares it with snprintf on millions of values.
// printf is kept for what these do not cover (NaN, infinities, magnitudes >= 2^52 after scaling).
#pragma once
#include <cstddef>
#include <string>

namespace trainfit {

// Appends v as printf("%.<decimals>f") would (decimals 0..3); with plus_sign, as "%+.<decimals>f".
void append_fixed(std::string& out, double v, int decimals, bool plus_sign = false);
std::string fixed(double v, int decimals, bool plus_sign = false);
// The same into a buffer, as snprintf(buf, size, "%.<decimals>f", v) would: at most size - 1 characters and a
// terminating NUL (when size > 0); returns the length of the whole text. For code that must not allocate (the
// UI's table cells).
int format_fixed(char* buf, size_t size, double v, int decimals, bool plus_sign = false);
// As snprintf(buf, size, "%.<precision>g", v) would (precision 1..15). printf is kept for the exponent form
// (magnitudes below 1e-4 or of 10^precision and more once rounded), zero, NaN and infinities.
int format_general(char* buf, size_t size, double v, int precision);
std::string general(double v, int precision);

}  // namespace trainfit
