// trainfit UI — KeyTaps (key_taps.h) wired to GLFW and imgui's GLFW backend: the one piece both shells (web/
// main_web.cpp, native/main_glfw.cpp) use. Header-only; include it after <GLFW/glfw3.h> and "imgui_impl_glfw.h".
#pragma once
#include <GLFW/glfw3.h>

#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "trainfit/app/key_taps.h"

namespace trainfit::app::glfw_keys {

inline KeyTaps& taps() {
  static KeyTaps t;  // one window per process in both shells
  return t;
}
inline void on_key(GLFWwindow* w, int key, int scancode, int action, int mods) {
  const KeyKind kind = KeyTaps::kind_of(key, ImGui::GetIO().KeyMap, ImGuiKey_Tab, ImGuiKey_KeyPadEnter,
                                        GLFW_KEY_LEFT_SHIFT, GLFW_KEY_RIGHT_SUPER);
  if (action == GLFW_REPEAT || taps().on_key(key, action == GLFW_PRESS, kind))
    ImGui_ImplGlfw_KeyCallback(w, key, scancode, action, mods);
}
inline void on_char(GLFWwindow* w, unsigned int c) {
  if (taps().on_char(c)) ImGui_ImplGlfw_CharCallback(w, c);
}

// After ImGui_ImplGlfw_InitForOpenGL: the window's key and character events go through KeyTaps, in front of the
// backend's callbacks (which they call).
inline void install(GLFWwindow* w) {
  glfwSetKeyCallback(w, on_key);
  glfwSetCharCallback(w, on_char);
}
// Right after ImGui::NewFrame(): the waiting events this frame can take.
inline void after_new_frame(GLFWwindow* w) {
  taps().after_new_frame(
      [w](int key, bool press) { ImGui_ImplGlfw_KeyCallback(w, key, 0, press ? GLFW_PRESS : GLFW_RELEASE, 0); },
      [w](unsigned int c) { ImGui_ImplGlfw_CharCallback(w, c); });
}

}  // namespace trainfit::app::glfw_keys
