// trainfit UI — MouseTaps (mouse_taps.h) wired to GLFW and imgui 1.86's GLFW backend: both shells (web/
// main_web.cpp, native/main_glfw.cpp) use it. Header-only; include it after <GLFW/glfw3.h> and "imgui_impl_glfw.h".
// The backend still runs (display size, time, cursor shape), but the mouse position and buttons each frame reads
// are the paced ones: before_new_frame overwrites what ImGui_ImplGlfw_NewFrame polled.
#pragma once
#include <GLFW/glfw3.h>

#include <cfloat>

#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "trainfit/app/mouse_taps.h"

namespace trainfit::app::glfw_mouse {

inline MouseTaps& taps() {
  static MouseTaps t;  // one window per process in both shells
  return t;
}
// GLFW button numbers are imgui's (left 0, right 1, middle 2).
inline void on_button(GLFWwindow* w, int button, int action, int) {
  // The press happened where the pointer is now (a press may come without a move before it: a script, a tap).
  double x = 0, y = 0;
  glfwGetCursorPos(w, &x, &y);
  taps().on_move(static_cast<float>(x), static_cast<float>(y));
  taps().on_button(button, action == GLFW_PRESS);
}
inline void on_pos(GLFWwindow*, double x, double y) { taps().on_move(static_cast<float>(x), static_cast<float>(y)); }
inline GLFWcursorenterfun& backend_enter() {
  static GLFWcursorenterfun f = nullptr;
  return f;
}
inline void on_enter(GLFWwindow* w, int entered) {
  if (backend_enter()) backend_enter()(w, entered);
  if (!entered) taps().on_leave();
}

// After ImGui_ImplGlfw_InitForOpenGL: the window's pointer events go to MouseTaps (the backend's button callback,
// which only latched presses, is replaced; its cursor-enter callback still runs).
inline void install(GLFWwindow* w) {
  glfwSetMouseButtonCallback(w, on_button);
  glfwSetCursorPosCallback(w, on_pos);
  backend_enter() = glfwSetCursorEnterCallback(w, on_enter);
}
// Between ImGui_ImplGlfw_NewFrame() and ImGui::NewFrame(): the mouse this frame reads.
inline void before_new_frame() {
  const MouseTaps::State m = taps().next_frame();
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = m.x <= MouseTaps::kAway ? ImVec2(-FLT_MAX, -FLT_MAX) : ImVec2(m.x, m.y);
  for (int i = 0; i < MouseTaps::kButtons; ++i) io.MouseDown[i] = m.down[i];
}

}  // namespace trainfit::app::glfw_mouse
