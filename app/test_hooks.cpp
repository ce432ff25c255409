// trainfit — Dear ImGui 1.86 test-engine hooks: record each widget's label and rectangle during a frame so
// GoogleTest (headless) and Playwright (in the browser) can click widgets by label. imgui_test_engine itself
// needs 1.87+, so this is the ~60-line stand-in the style notes describe (all four hooks are
// required by the linker).
#include <cstdarg>
#include <string>
#include <unordered_map>

#include "imgui.h"
#include "imgui_internal.h"
#include "trainfit/app/app.h"

namespace {
struct Rects {
  std::unordered_map<ImGuiID, ImRect> by_id;          // this frame's items
  std::unordered_map<std::string, ImRect> by_label;   // label -> rect (last one seen wins)
};
Rects& rects() {
  static Rects r;
  return r;
}
}  // namespace

void ImGuiTestEngineHook_ItemAdd(ImGuiContext*, const ImRect& bb, ImGuiID id) { rects().by_id[id] = bb; }

void ImGuiTestEngineHook_ItemInfo(ImGuiContext*, ImGuiID id, const char* label, ImGuiItemStatusFlags) {
  if (!label) return;
  auto it = rects().by_id.find(id);
  if (it == rects().by_id.end()) return;
  // Strip the "##id" suffix: tests use the visible text.
  std::string s(label);
  const size_t hash = s.find("##");
  if (hash != std::string::npos) s.resize(hash);
  rects().by_label[s] = it->second;
}

void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}

const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) { return nullptr; }

namespace trainfit::app {

void record_item_rects(bool on) {
  if (ImGuiContext* g = ImGui::GetCurrentContext()) g->TestEngineHookItems = on;
  if (!on) {
    rects().by_id.clear();
    rects().by_label.clear();
  }
}

void mark_last_item(std::string_view label) {
  ImGuiContext* g = ImGui::GetCurrentContext();
  if (!g || !g->TestEngineHookItems) return;
  rects().by_label[std::string(label)] = g->LastItemData.Rect;
}

bool item_rect(std::string_view label, float* x, float* y, float* w, float* h) {
  auto it = rects().by_label.find(std::string(label));
  if (it == rects().by_label.end()) return false;
  *x = it->second.Min.x;
  *y = it->second.Min.y;
  *w = it->second.GetWidth();
  *h = it->second.GetHeight();
  return true;
}

}  // namespace trainfit::app
