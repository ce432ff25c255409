// trainfit UI — KeyTaps (app/include/trainfit/app/key_taps.h): a key pressed and released between two frames is
// seen down for one frame, since Dear ImGui 1.86 reads key state only in NewFrame.
#include <gtest/gtest.h>

#include <vector>

#include "trainfit/app/key_taps.h"

namespace {

using trainfit::app::KeyTaps;

TEST(KeyTaps, AReleaseInTheFrameOfItsPressWaitsForTheNextFrame) {
  KeyTaps taps;
  EXPECT_TRUE(taps.on_key(257, true));    // Enter down: applied now
  EXPECT_FALSE(taps.on_key(257, false));  // up before any NewFrame saw it down: held back
  std::vector<int> released;
  taps.after_new_frame([&](int k) { released.push_back(k); });  // that NewFrame saw it down
  EXPECT_EQ(released, std::vector<int>{257});
  released.clear();
  taps.after_new_frame([&](int k) { released.push_back(k); });
  EXPECT_TRUE(released.empty()) << "a held release is applied once";
}

TEST(KeyTaps, AReleaseOfAKeyAFrameHasSeenDownIsAppliedAtOnce) {
  KeyTaps taps;
  EXPECT_TRUE(taps.on_key(259, true));  // Backspace down
  taps.after_new_frame([](int) { FAIL() << "nothing to release"; });
  EXPECT_TRUE(taps.on_key(259, false));  // held over a frame: a normal release
}

TEST(KeyTaps, PressedAgainBeforeTheFrameTheKeyStaysDown) {
  KeyTaps taps;
  EXPECT_TRUE(taps.on_key(65, true));
  EXPECT_FALSE(taps.on_key(65, false));
  EXPECT_TRUE(taps.on_key(65, true));  // down again: the held release is dropped
  taps.after_new_frame([](int) { FAIL() << "the key is down"; });
  EXPECT_TRUE(taps.on_key(65, false));
}

TEST(KeyTaps, KeysAreIndependent) {
  KeyTaps taps;
  EXPECT_TRUE(taps.on_key(341, true));   // Control down, held over frames
  taps.after_new_frame([](int) {});
  EXPECT_TRUE(taps.on_key(65, true));    // A tapped
  EXPECT_FALSE(taps.on_key(65, false));
  EXPECT_TRUE(taps.on_key(341, false));  // Control up: it was seen down
  std::vector<int> released;
  taps.after_new_frame([&](int k) { released.push_back(k); });
  EXPECT_EQ(released, std::vector<int>{65});
}

}  // namespace
