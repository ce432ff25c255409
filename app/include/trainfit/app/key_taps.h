// trainfit UI — quick key taps for Dear ImGui 1.86, shared by the web and desktop shells.
// Why: imgui 1.86 has no input queue; it reads io.KeysDown once a frame, in NewFrame. A key pressed and released
// between two frames (a quick tap while a frame is slow, or a script's key press) is never seen down: the Enter
// or Backspace is lost. (1.87 added io.AddKeyEvent for this; Debian ships 1.86.) The shells route key events
// through KeyTaps: a release of a key pressed since the last NewFrame is held back, and applied just after the
// next NewFrame, which has then seen the key down for one frame. Header-only, no GLFW: keys are plain ints.
#pragma once
#include <algorithm>
#include <vector>

namespace trainfit::app {

class KeyTaps {
 public:
  // A key event from the platform. Returns true when the shell should apply it now, false when it is held back.
  bool on_key(int key, bool press) {
    if (press) {
      if (std::find(pressed_.begin(), pressed_.end(), key) == pressed_.end()) pressed_.push_back(key);
      held_.erase(std::remove(held_.begin(), held_.end(), key), held_.end());  // pressed again: not released
      return true;
    }
    if (std::find(pressed_.begin(), pressed_.end(), key) != pressed_.end()) {
      if (std::find(held_.begin(), held_.end(), key) == held_.end()) held_.push_back(key);
      return false;
    }
    return true;
  }
  // Call right after ImGui::NewFrame(): `release(key)` applies each held-back release; the keys pressed before
  // this frame have been seen.
  template <class Release>
  void after_new_frame(Release release) {
    pressed_.clear();
    std::vector<int> held;
    held.swap(held_);
    for (int key : held) release(key);
  }

 private:
  std::vector<int> pressed_;  // pressed since the last NewFrame
  std::vector<int> held_;     // their releases, held back
};

}  // namespace trainfit::app
