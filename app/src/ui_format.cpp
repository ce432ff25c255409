// trainfit — number formatting and small shared widgets for the UI. Every formatter writes into the caller's
// buffer (no allocation while drawing the table) and says its unit: GB = 1e9 B, GiB = 2^30 B, never mixed.
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "app_impl.h"
#include "trainfit/engine.h"

namespace trainfit::app {

namespace {

// What snprintf(buf, n, "<prefix>%.<d>f<suffix>", v) writes, without printf: these run for every visible table
// cell and detail figure, where printf ran in the browser's baseline wasm tier and then had V8 compile musl's
// printf_core and fmt_fp again with its optimising tier during the page load. format_fixed is printf's %.Nf
// exactly (core/src/base/format.cpp; format_test compares them).
// d < 0: no number (prefix and suffix only).
const char* put(char* buf, size_t n, const char* prefix, double v, int d, const char* suffix) {
  char num[400] = "";
  if (d >= 0) format_fixed(num, sizeof num, v, d);
  size_t len = 0;
  for (const char* part : {prefix, static_cast<const char*>(num), suffix})
    for (const char* c = part; *c && len + 1 < n; ++c) buf[len++] = *c;
  if (n > 0) buf[len] = 0;
  return buf;
}

const char* put_text(char* buf, size_t n, const char* text) { return put(buf, n, text, 0, -1, ""); }

}  // namespace

const char* fmt_duration(char* buf, size_t n, double s) {
  if (!std::isfinite(s) || s < 0) return put_text(buf, n, "-");
  if (s < 90) return put(buf, n, "", s, 0, " s");
  if (s < 5400) return put(buf, n, "", s / 60, 0, " min");
  if (s < 72 * 3600.0) return put(buf, n, "", s / 3600, 1, " h");
  return put(buf, n, "", s / 86400, 1, " d");
}

const char* fmt_usd(char* buf, size_t n, double usd) {
  if (!std::isfinite(usd)) return put_text(buf, n, "-");
  if (usd >= 1e6) return put(buf, n, "$", usd / 1e6, 2, "M");
  if (usd >= 1000) {
    // Thousands separator by hand: printf's ' flag is not portable to libc++/wasm.
    const long long v = std::llround(usd);
    char thousands[8] = {',', static_cast<char>('0' + v % 1000 / 100), static_cast<char>('0' + v % 100 / 10),
                         static_cast<char>('0' + v % 10), 0};
    return put(buf, n, "$", static_cast<double>(v / 1000), 0, thousands);
  }
  if (usd >= 10) return put(buf, n, "$", usd, 0, "");
  if (usd >= 0.1) return put(buf, n, "$", usd, 2, "");
  return put(buf, n, "$", usd, 3, "");
}

const char* fmt_bytes_gib(char* buf, size_t n, double bytes) {
  if (!std::isfinite(bytes)) return put_text(buf, n, "-");
  return put(buf, n, "", bytes / kGiB, 1, " GiB");
}

const char* fmt_count(char* buf, size_t n, double v) {
  if (!std::isfinite(v)) return put_text(buf, n, "-");
  if (v >= 1e12) return put(buf, n, "", v / 1e12, 2, " T");
  if (v >= 1e9) return put(buf, n, "", v / 1e9, 2, " B");
  if (v >= 1e6) return put(buf, n, "", v / 1e6, 1, " M");
  if (v >= 1e4) return put(buf, n, "", v / 1e3, 1, " k");
  return put(buf, n, "", v, 0, "");
}


ImU32 state_color(RowState st, bool dark) {
  switch (st) {
    case RowState::ranked: return ImGui::GetColorU32(ImGuiCol_Text);
    case RowState::does_not_fit: return dark ? IM_COL32(235, 120, 110, 255) : IM_COL32(170, 40, 30, 255);
    case RowState::filtered: return ImGui::GetColorU32(ImGuiCol_TextDisabled);
    default: return dark ? IM_COL32(230, 170, 80, 255) : IM_COL32(150, 90, 0, 255);
  }
}

ImVec4 error_color() {
  const bool light = ImGui::GetStyle().Colors[ImGuiCol_WindowBg].x > 0.5f;
  return light ? ImVec4(0.7f, 0.1f, 0.1f, 1) : ImVec4(1.0f, 0.45f, 0.4f, 1);
}
ImVec4 warn_color() {
  const bool light = ImGui::GetStyle().Colors[ImGuiCol_WindowBg].x > 0.5f;
  return light ? ImVec4(0.6f, 0.35f, 0.0f, 1) : ImVec4(1.0f, 0.7f, 0.3f, 1);
}

void warn_wrapped(const char* fmt, ...) {
  ImGui::PushStyleColor(ImGuiCol_Text, warn_color());
  va_list args;
  va_start(args, fmt);
  ImGui::TextWrappedV(fmt, args);
  va_end(args);
  ImGui::PopStyleColor();
}

const char* fmt_flags(char* buf, size_t n, uint32_t flags) {
  if (n == 0) return buf;
  size_t k = 0;
  for (OfferFlag f : kAllOfferFlagBits)
    if ((flags & f) && k + 1 < n) buf[k++] = offer_flag_code(f)[0];
  buf[k] = 0;
  return buf;
}

void flag_reasons(uint32_t flags, uint32_t doubtful) {
  for (OfferFlag f : kAllOfferFlagBits) {
    if (!(flags & f)) continue;
    ImGui::Text("%s %s: %s%s", offer_flag_code(f), offer_flag_name(f), offer_flag_meaning(f),
                (doubtful & f) ? " (doubtful price: held back unless \"Show doubtful prices\")" : "");
  }
}

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

}  // namespace trainfit::app
