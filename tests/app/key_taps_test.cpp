// trainfit UI — KeyTaps (app/include/trainfit/app/key_taps.h): key and character events reach Dear ImGui 1.86,
// which reads key state only in NewFrame, paced to what one frame can take, in arrival order.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trainfit/app/key_taps.h"

namespace {

using trainfit::app::KeyKind;
using trainfit::app::KeyTaps;
using V = std::vector<std::string>;

constexpr int kEnter = 257, kBackspace = 259, kEnd = 269, kCtrl = 341, kA = 65, kDigit8 = 56;
constexpr KeyKind E = KeyKind::editing, M = KeyKind::modifier, O = KeyKind::other;

// What one NewFrame passes on afterwards: "key+" / "key-" / "'c'".
V next_frame(KeyTaps& taps) {
  V out;
  taps.after_new_frame([&](int k, bool press) { out.push_back(std::to_string(k) + (press ? "+" : "-")); },
                       [&](unsigned c) { out.push_back(std::string("'") + static_cast<char>(c) + "'"); });
  return out;
}

TEST(KeyTaps, AReleaseInTheFrameOfItsPressWaitsForTheNextFrame) {
  KeyTaps taps;
  EXPECT_TRUE(taps.on_key(kEnter, true, E));    // applied now
  EXPECT_FALSE(taps.on_key(kEnter, false, E));  // the frame has not seen it down yet: waits
  EXPECT_EQ(next_frame(taps), V{"257-"});
  EXPECT_EQ(next_frame(taps), V{});  // applied once
  EXPECT_TRUE(taps.idle());
}

TEST(KeyTaps, TwoTapsOfOneKeyInAFrameAreTwoTaps) {
  KeyTaps taps;  // Backspace, Backspace: two deletions, not one
  EXPECT_TRUE(taps.on_key(kBackspace, true, E));
  EXPECT_FALSE(taps.on_key(kBackspace, false, E));
  EXPECT_FALSE(taps.on_key(kBackspace, true, E));
  EXPECT_FALSE(taps.on_key(kBackspace, false, E));
  EXPECT_EQ(next_frame(taps), V{"259-"});
  EXPECT_EQ(next_frame(taps), V{"259+"});
  EXPECT_EQ(next_frame(taps), V{"259-"});
  EXPECT_EQ(next_frame(taps), V{});
}

TEST(KeyTaps, OneEditingKeyPressPerFrame) {
  KeyTaps taps;  // End then Backspace in one frame: imgui's InputText would do only End
  EXPECT_TRUE(taps.on_key(kEnd, true, E));
  EXPECT_FALSE(taps.on_key(kEnd, false, E));
  EXPECT_FALSE(taps.on_key(kBackspace, true, E));
  EXPECT_FALSE(taps.on_key(kBackspace, false, E));
  EXPECT_EQ(next_frame(taps), (V{"269-", "259+"}));
  EXPECT_EQ(next_frame(taps), V{"259-"});
}

TEST(KeyTaps, ACharacterAfterAnEditingKeyWaitsForTheNextFrame) {
  KeyTaps taps;  // Backspace then "8": imgui inserts a frame's characters before it handles its keys
  EXPECT_TRUE(taps.on_key(kBackspace, true, E));
  EXPECT_FALSE(taps.on_key(kBackspace, false, E));
  EXPECT_FALSE(taps.on_key(kDigit8, true, O));  // behind the waiting release: in order
  EXPECT_FALSE(taps.on_char('8'));
  EXPECT_FALSE(taps.on_key(kDigit8, false, O));
  // The NewFrame read Backspace down, which this frame's widgets handle: a character passed on now would be
  // inserted before it ("208" then Backspace: "20", where "28" was typed). It waits one frame.
  EXPECT_EQ(next_frame(taps), (V{"259-", "56+"}));
  EXPECT_EQ(next_frame(taps), (V{"'8'", "56-"}));
  EXPECT_TRUE(taps.idle());
  // The same for a character typed just after an editing key, before the frame that reads both: the character
  // waits for the frame after the one that handles the key.
  EXPECT_TRUE(taps.on_key(kBackspace, true, E));
  EXPECT_FALSE(taps.on_char('9'));
  EXPECT_EQ(next_frame(taps), V{});
  EXPECT_EQ(next_frame(taps), V{"'9'"});
  // Characters before an editing key in one frame are fine: that is imgui's own order.
  EXPECT_TRUE(taps.on_char('4'));
  EXPECT_TRUE(taps.on_key(kEnter, true, E));
  EXPECT_FALSE(taps.on_char('2'));
}

TEST(KeyTaps, TypingAndHeldModifiersPassStraightThrough) {
  KeyTaps taps;
  EXPECT_TRUE(taps.on_key(kDigit8, true, O));
  EXPECT_TRUE(taps.on_char('8'));
  EXPECT_EQ(next_frame(taps), V{});
  EXPECT_TRUE(taps.on_key(kDigit8, false, O));  // seen down for a frame: released at once
  // A quick Control+A in one frame: both seen down together, then both released, in order.
  EXPECT_EQ(next_frame(taps), V{});
  EXPECT_TRUE(taps.on_key(kCtrl, true, M));
  EXPECT_TRUE(taps.on_key(kA, true, O));
  EXPECT_FALSE(taps.on_key(kA, false, O));
  EXPECT_FALSE(taps.on_key(kCtrl, false, M));
  EXPECT_EQ(next_frame(taps), (V{"65-", "341-"}));
}

TEST(KeyTaps, KindsFollowTheKeyMap) {
  const int key_map[4] = {258, 269, 259, 257};  // imgui's keys 0..3 mapped to Tab, End, Backspace, Enter
  EXPECT_EQ(KeyTaps::kind_of(269, key_map, 0, 3, 340, 347), KeyKind::editing);
  EXPECT_EQ(KeyTaps::kind_of(341, key_map, 0, 3, 340, 347), KeyKind::modifier);
  EXPECT_EQ(KeyTaps::kind_of(65, key_map, 0, 3, 340, 347), KeyKind::other);
}

}  // namespace
