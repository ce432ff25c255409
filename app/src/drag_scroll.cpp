// trainfit — scrolling by dragging (touch screens): imgui 1.86 scrolls by wheel and scrollbar only, so the web
// shell turns a finger's drag into scroll offsets of the window under the finger (web/main_web.cpp).
#include "imgui.h"
#include "imgui_internal.h"
#include "trainfit/app/app.h"

namespace trainfit::app {

void drag_scroll(float dx, float dy) {
  ImGuiContext* g = ImGui::GetCurrentContext();
  if (!g) return;
  // The window under the pointer, else the nearest parent that scrolls on that axis (a list inside the page:
  // the list; the page's text: the page). Content follows the finger: dragging up scrolls down.
  for (ImGuiWindow* w = g->HoveredWindow; w && dy != 0; w = w->ParentWindow)
    if (w->ScrollMax.y > 0) {
      ImGui::SetScrollY(w, ImClamp(w->Scroll.y - dy, 0.0f, w->ScrollMax.y));
      break;
    }
  for (ImGuiWindow* w = g->HoveredWindow; w && dx != 0; w = w->ParentWindow)
    if (w->ScrollMax.x > 0) {
      ImGui::SetScrollX(w, ImClamp(w->Scroll.x - dx, 0.0f, w->ScrollMax.x));
      break;
    }
}

}  // namespace trainfit::app
