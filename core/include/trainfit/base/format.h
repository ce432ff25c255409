// trainfit core — number text for the hot paths (planner reasons, "does not fit" messages): exactly what
// printf("%.Nf") writes, without printf. glibc and musl both round the exact binary value to nearest, ties to
// even; so does this (see format.cpp for why), and format_test compares it with snprintf on millions of values.
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

}  // namespace trainfit
