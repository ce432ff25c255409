// trainfit — number formatting and small shared widgets for the UI. Every formatter writes into the caller's
// buffer (no allocation while drawing the table) and says its unit: GB = 1e9 B, GiB = 2^30 B, never mixed.
#include <cmath>
#include <cstdio>

#include "app_impl.h"

namespace trainfit::app {

const char* fmt_duration(char* buf, size_t n, double s) {
  if (!std::isfinite(s) || s < 0) std::snprintf(buf, n, "-");
  else if (s < 90) std::snprintf(buf, n, "%.0f s", s);
  else if (s < 5400) std::snprintf(buf, n, "%.0f min", s / 60);
  else if (s < 72 * 3600.0) std::snprintf(buf, n, "%.1f h", s / 3600);
  else std::snprintf(buf, n, "%.1f d", s / 86400);
  return buf;
}

const char* fmt_usd(char* buf, size_t n, double usd) {
  if (!std::isfinite(usd)) std::snprintf(buf, n, "-");
  else if (usd >= 1e6) std::snprintf(buf, n, "$%.2fM", usd / 1e6);
  else if (usd >= 1000) {
    // Thousands separator by hand: printf's ' flag is not portable to libc++/wasm.
    const long long v = std::llround(usd);
    std::snprintf(buf, n, "$%lld,%03lld", v / 1000, v % 1000);
  } else if (usd >= 10) std::snprintf(buf, n, "$%.0f", usd);
  else if (usd >= 0.1) std::snprintf(buf, n, "$%.2f", usd);
  else std::snprintf(buf, n, "$%.3f", usd);
  return buf;
}

const char* fmt_bytes_gib(char* buf, size_t n, double bytes) {
  if (!std::isfinite(bytes)) std::snprintf(buf, n, "-");
  else std::snprintf(buf, n, "%.1f GiB", bytes / kGiB);
  return buf;
}

const char* fmt_count(char* buf, size_t n, double v) {
  if (!std::isfinite(v)) std::snprintf(buf, n, "-");
  else if (v >= 1e12) std::snprintf(buf, n, "%.2f T", v / 1e12);
  else if (v >= 1e9) std::snprintf(buf, n, "%.2f B", v / 1e9);
  else if (v >= 1e6) std::snprintf(buf, n, "%.1f M", v / 1e6);
  else if (v >= 1e4) std::snprintf(buf, n, "%.1f k", v / 1e3);
  else std::snprintf(buf, n, "%.0f", v);
  return buf;
}

const char* option_label(PricingOption o) { return o == PricingOption::spot ? "spot" : "on-demand"; }

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
