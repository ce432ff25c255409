// trainfit UI — quick key taps for Dear ImGui 1.86, shared by the web and desktop shells.
// Why: imgui 1.86 has no input queue; it reads io.KeysDown once a frame, in NewFrame. A key pressed and released
// between two frames (a quick tap while a frame is slow, or a script's key press) is never seen down, and two
// taps of one key in a frame count once: the Enter or the second Backspace is lost. (1.87 added io.AddKeyEvent
// for this; Debian ships 1.86.) The shells route key events through KeyTaps: each key changes state at most
// once per frame; further events of that key wait, in order, and are applied one per frame just after NewFrame.
// Header-only, no GLFW: keys are plain ints.
#pragma once
#include <algorithm>
#include <vector>

namespace trainfit::app {

class KeyTaps {
 public:
  // A key event from the platform. Returns true when the shell should apply it now, false when it waits.
  bool on_key(int key, bool press) {
    if (has(changed_, key) || waiting(key)) {
      queue_.push_back({key, press});
      return false;
    }
    changed_.push_back(key);
    return true;
  }
  // Call right after ImGui::NewFrame(), which has seen this frame's changes: `apply(key, press)` applies the next
  // waiting event of each key.
  template <class Apply>
  void after_new_frame(Apply apply) {
    changed_.clear();
    std::vector<Event> later;
    for (const Event& e : queue_) {
      if (has(changed_, e.key)) {
        later.push_back(e);
      } else {
        changed_.push_back(e.key);
        apply(e.key, e.press);
      }
    }
    queue_.swap(later);
  }

 private:
  struct Event {
    int key;
    bool press;
  };
  static bool has(const std::vector<int>& v, int key) { return std::find(v.begin(), v.end(), key) != v.end(); }
  bool waiting(int key) const {
    return std::any_of(queue_.begin(), queue_.end(), [key](const Event& e) { return e.key == key; });
  }
  std::vector<int> changed_;  // keys whose state changed since the last NewFrame
  std::vector<Event> queue_;  // events waiting for a later frame, in arrival order
};

}  // namespace trainfit::app
