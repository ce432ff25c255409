// trainfit UI — mouse input paced for Dear ImGui 1.86, shared by the web and desktop shells (the mouse twin of
// key_taps.h).
// Why: imgui 1.86 reads the mouse once a frame, in NewFrame (io.MousePos, io.MouseDown[]). So (1) a press and a
// release between two frames (a quick click, a tap, a script) is either never seen down or, with the GLFW
// backend's "just pressed" latch, seen down for one frame without the frame that saw the release at the same
// place; (2) a move and a press in one frame (a tap lands somewhere new; a script moves and clicks at once) reach
// the frame together, and widgets that allow overlap (tabs, table rows: ImGuiButtonFlags_AllowItemOverlap) are
// only hovered when the previous frame hovered them too (imgui_widgets.cpp, ButtonBehavior), so the click is lost.
// MouseTaps is a first-in first-out queue between the shell's events and the frames: per frame (the window
// between two NewFrames) it passes on any number of moves (the last one wins) or one button change, never both:
// a move after a button change, a button change after a move and a second button change wait for the next frame.
// So a move, a press and a release that arrive together are read by three frames: hover, press, release.
// Header-only, no GLFW or ImGui: positions are the shell's framebuffer pixels; `kAway` is "no mouse".
#pragma once
#include <cstddef>
#include <vector>

namespace trainfit::app {

class MouseTaps {
 public:
  static constexpr int kButtons = 5;      // imgui 1.86's io.MouseDown[] size
  static constexpr float kAway = -3.0e38f;  // a position that hovers nothing (imgui: -FLT_MAX)
  struct State {
    float x = kAway, y = kAway;
    bool down[kButtons] = {};
  };

  void on_move(float x, float y) { offer(Event{false, 0, false, x, y}); }
  void on_leave() { on_move(kAway, kAway); }  // the pointer left (a lifted finger): nothing is hovered
  void on_button(int button, bool press) {
    if (button < 0 || button >= kButtons) return;
    offer(Event{true, button, press, 0, 0});
  }

  // Call once per frame, just before ImGui::NewFrame: returns what that frame reads (the shell copies it into
  // io.MousePos / io.MouseDown), then opens the next frame's window and moves into it the waiting events it can
  // take.
  State next_frame() {
    const State out = state_;
    moved_ = changed_ = false;
    size_t n = 0;
    for (; n < queue_.size() && fits(queue_[n]); ++n) apply(queue_[n]);
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    return out;
  }
  // Nothing waits and nothing changed since the last frame: the next frame reads what the last one did.
  bool idle() const { return queue_.empty() && !moved_ && !changed_; }
  // Events wait for later frames (a quick click is read over three).
  bool waiting() const { return !queue_.empty(); }
  const State& state() const { return state_; }

 private:
  struct Event {
    bool is_button;
    int button;
    bool press;
    float x, y;
  };
  bool fits(const Event& e) const { return e.is_button ? !moved_ && !changed_ : !changed_; }
  void apply(const Event& e) {
    if (e.is_button) {
      if (state_.down[e.button] == e.press) return;  // a repeated press (focus games): nothing changes
      state_.down[e.button] = e.press;
      changed_ = true;
    } else {
      if (e.x == state_.x && e.y == state_.y) return;
      state_.x = e.x;
      state_.y = e.y;
      moved_ = true;
    }
  }
  void offer(const Event& e) {
    if (queue_.empty() && fits(e)) apply(e);
    else queue_.push_back(e);
  }

  State state_;
  bool moved_ = false;    // this window passed on a move
  bool changed_ = false;  // this window passed on a button change
  std::vector<Event> queue_;
};

}  // namespace trainfit::app
