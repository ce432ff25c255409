// trainfit UI — KeyTaps (app/include/trainfit/app/key_taps.h): every key event reaches Dear ImGui 1.86, which
// reads key state only in NewFrame, as at most one change per key per frame, in order.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trainfit/app/key_taps.h"

namespace {

using trainfit::app::KeyTaps;

// The changes applied after one NewFrame, as "key+" / "key-".
std::vector<std::string> next_frame(KeyTaps& taps) {
  std::vector<std::string> out;
  taps.after_new_frame([&](int k, bool press) { out.push_back(std::to_string(k) + (press ? "+" : "-")); });
  return out;
}
using V = std::vector<std::string>;

TEST(KeyTaps, AReleaseInTheFrameOfItsPressWaitsForTheNextFrame) {
  KeyTaps taps;
  EXPECT_TRUE(taps.on_key(257, true));    // Enter down: applied now
  EXPECT_FALSE(taps.on_key(257, false));  // up before any NewFrame saw it down: waits
  EXPECT_EQ(next_frame(taps), V{"257-"});  // that NewFrame saw it down; released after it
  EXPECT_EQ(next_frame(taps), V{});        // applied once
}

TEST(KeyTaps, TwoTapsOfOneKeyInAFrameAreTwoTapsOverFourFrames) {
  KeyTaps taps;  // Backspace, Backspace: two deletions, not one
  EXPECT_TRUE(taps.on_key(259, true));
  EXPECT_FALSE(taps.on_key(259, false));
  EXPECT_FALSE(taps.on_key(259, true));
  EXPECT_FALSE(taps.on_key(259, false));
  EXPECT_EQ(next_frame(taps), V{"259-"});
  EXPECT_EQ(next_frame(taps), V{"259+"});
  EXPECT_EQ(next_frame(taps), V{"259-"});
  EXPECT_EQ(next_frame(taps), V{});
}

TEST(KeyTaps, AChangeOfAKeyAFrameHasSeenIsAppliedAtOnce) {
  KeyTaps taps;
  EXPECT_TRUE(taps.on_key(259, true));
  EXPECT_EQ(next_frame(taps), V{});
  EXPECT_TRUE(taps.on_key(259, false));  // held over a frame: a normal release
}

TEST(KeyTaps, KeysAreIndependentAndKeepTheirOrder) {
  KeyTaps taps;  // Control held over frames while A is tapped; then Control released
  EXPECT_TRUE(taps.on_key(341, true));
  EXPECT_EQ(next_frame(taps), V{});
  EXPECT_TRUE(taps.on_key(65, true));
  EXPECT_FALSE(taps.on_key(65, false));
  EXPECT_TRUE(taps.on_key(341, false));  // Control had been seen down
  EXPECT_EQ(next_frame(taps), V{"65-"});
  EXPECT_EQ(next_frame(taps), V{});
  // A quick Control+A in one frame: both seen down together, then both released.
  EXPECT_TRUE(taps.on_key(341, true));
  EXPECT_TRUE(taps.on_key(65, true));
  EXPECT_FALSE(taps.on_key(65, false));
  EXPECT_FALSE(taps.on_key(341, false));
  EXPECT_EQ(next_frame(taps), (V{"65-", "341-"}));
}

}  // namespace
