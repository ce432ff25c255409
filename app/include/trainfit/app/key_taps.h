// trainfit UI — keyboard input paced for Dear ImGui 1.86, shared by the web and desktop shells.
// Why: imgui 1.86 has no input queue; it reads io.KeysDown once a frame, in NewFrame. So (1) a key pressed and
// released between two frames (a quick tap while a frame is slow, or a script's key press) is never seen down;
// (2) two taps of one key in a frame count once; (3) InputText handles one editing key per frame (an else-if
// chain: End and Backspace in one frame do only End); (4) it inserts the frame's typed characters before it
// handles the frame's keys, so Backspace then "8" would come out as "8" then Backspace. (1.87 added
// io.AddKeyEvent for this; Debian ships 1.86.) The shells route key and character events through KeyTaps, a
// first-in first-out queue: an event is applied at once when nothing waits before it and the frame can take it,
// else it waits, and waiting events are applied in order just after each NewFrame, as many as the frame can take:
// one change per key, one editing-key press, and no character after an editing-key press.
// Which frame takes what: a key change (made between frames or just after a NewFrame) is read by the next
// NewFrame; a character is read by the next widgets to run: after a NewFrame, that frame's own (EndFrame
// empties the queue), so a character passed on just after NewFrame N lands in frame N together with the
// editing keys NewFrame N read, which were applied before it. Characters wait for that frame to pass.
// Header-only, no GLFW: keys are plain ints, and the shell says which are editing keys and which are modifiers.
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

namespace trainfit::app {

enum class KeyKind { modifier, editing, other };  // Shift/Ctrl/Alt/Super; imgui's mapped keys; the rest

class KeyTaps {
 public:
  // A key event. Returns true when the shell should apply it now, false when it waits.
  bool on_key(int key, bool press, KeyKind kind) { return offer(Event{false, key, press, kind, 0}); }
  // A typed character (UTF-32). Returns true when the shell should apply it now, false when it waits.
  bool on_char(unsigned int c) { return offer(Event{true, 0, false, KeyKind::other, c}); }
  // Call right after ImGui::NewFrame(): applies the waiting events the new frame can take, in order, through
  // `key(key, press)` and `chr(c)`.
  template <class Key, class Char>
  void after_new_frame(Key key, Char chr) {
    // The editing presses this NewFrame read are handled by this frame's widgets, after any character passed
    // on now: those characters wait (the rule of fits), then the window of the next NewFrame opens.
    editing_read_ = editing_pressed_;
    changed_.clear();
    editing_pressed_ = false;
    size_t n = 0;
    for (; n < queue_.size() && fits(queue_[n]); ++n) {
      const Event& e = queue_[n];
      note(e);
      if (e.is_char) chr(e.c);
      else key(e.key, e.press);
    }
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    editing_read_ = false;  // characters from now on are read by the next frame, with the next NewFrame's keys
  }
  bool idle() const { return queue_.empty(); }

  // A key's kind: modifiers are the platform codes [mod_first, mod_last] (GLFW: LEFT_SHIFT..RIGHT_SUPER);
  // editing keys those imgui maps to its keys [map_first, map_last] (io.KeyMap, ImGuiKey_Tab..ImGuiKey_KeyPadEnter).
  static KeyKind kind_of(int key, const int* key_map, int map_first, int map_last, int mod_first, int mod_last) {
    if (key >= mod_first && key <= mod_last) return KeyKind::modifier;
    for (int i = map_first; i <= map_last; ++i)
      if (key_map[i] == key) return KeyKind::editing;
    return KeyKind::other;
  }

 private:
  struct Event {
    bool is_char;
    int key;
    bool press;
    KeyKind kind;
    unsigned int c;
  };
  bool fits(const Event& e) const {
    if (e.is_char) return !editing_pressed_ && !editing_read_;  // it would be inserted before that key is handled
    if (std::find(changed_.begin(), changed_.end(), e.key) != changed_.end()) return false;
    return !(e.press && e.kind == KeyKind::editing && editing_pressed_);
  }
  void note(const Event& e) {
    if (e.is_char) return;
    changed_.push_back(e.key);
    if (e.press && e.kind == KeyKind::editing) editing_pressed_ = true;
  }
  bool offer(const Event& e) {
    if (queue_.empty() && fits(e)) {
      note(e);
      return true;
    }
    queue_.push_back(e);
    return false;
  }

  std::vector<int> changed_;     // keys whose state changed since the last NewFrame
  bool editing_pressed_ = false;  // an editing key went down since the last NewFrame (the next NewFrame reads it)
  bool editing_read_ = false;     // during after_new_frame: the NewFrame just run read an editing-key press
  std::vector<Event> queue_;     // waiting, in arrival order
};

}  // namespace trainfit::app
