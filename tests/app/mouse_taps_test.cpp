// trainfit UI — MouseTaps (app/include/trainfit/app/mouse_taps.h): pointer events reach Dear ImGui 1.86, which
// reads the mouse only in NewFrame, paced so that every frame sees at most one button change, and a button
// change never in the frame that moved the pointer (imgui hovers overlapping widgets only after a frame there).
#include <gtest/gtest.h>

#include <string>

#include "trainfit/app/mouse_taps.h"

namespace {

using trainfit::app::MouseTaps;

// What one frame reads, as text: "x,y" then "L" when the left button is down ("away" when nothing is hovered).
std::string frame(MouseTaps& taps) {
  const MouseTaps::State m = taps.next_frame();
  std::string s = m.x <= MouseTaps::kAway ? "away" : std::to_string(static_cast<int>(m.x)) + "," + std::to_string(static_cast<int>(m.y));
  if (m.down[0]) s += " L";
  if (m.down[1]) s += " R";
  return s;
}

TEST(MouseTaps, APressAndReleaseBetweenTwoFramesAreReadByTwoFrames) {
  MouseTaps taps;
  taps.on_move(10, 20);
  EXPECT_EQ(frame(taps), "10,20");
  taps.on_button(0, true);
  taps.on_button(0, false);  // no frame between: a quick click
  EXPECT_EQ(frame(taps), "10,20 L");
  EXPECT_EQ(frame(taps), "10,20");
  EXPECT_TRUE(taps.idle());
}

TEST(MouseTaps, AMoveThenAClickInOneFrameHoverFirstThenPressThenRelease) {
  MouseTaps taps;  // a tap, or a script's move+down+up: the frame must hover the widget before the press
  taps.on_move(5, 5);
  EXPECT_EQ(frame(taps), "5,5");
  taps.on_move(100, 40);
  taps.on_button(0, true);
  taps.on_button(0, false);
  EXPECT_TRUE(taps.waiting());
  EXPECT_EQ(frame(taps), "100,40");
  EXPECT_EQ(frame(taps), "100,40 L");
  EXPECT_FALSE(taps.waiting());  // the release is applied: read by the next frame
  EXPECT_EQ(frame(taps), "100,40");
  EXPECT_EQ(frame(taps), "100,40");
}

TEST(MouseTaps, MovesInOneFrameCoalesceToTheLast) {
  MouseTaps taps;
  taps.on_move(1, 1);
  taps.on_move(2, 2);
  taps.on_move(3, 4);
  EXPECT_EQ(frame(taps), "3,4");
  EXPECT_TRUE(taps.idle());
}

TEST(MouseTaps, AMoveAfterAPressWaitsSoThePressIsReadWhereItHappened) {
  MouseTaps taps;  // a drag starts at the press position, then follows the pointer
  taps.on_move(10, 10);
  frame(taps);
  taps.on_button(0, true);
  taps.on_move(30, 10);
  taps.on_move(50, 10);
  EXPECT_EQ(frame(taps), "10,10 L");
  EXPECT_EQ(frame(taps), "50,10 L");  // the waiting moves come together in the next frame
  taps.on_button(0, false);
  EXPECT_EQ(frame(taps), "50,10");
}

TEST(MouseTaps, TwoClicksInOneFrameAreTwoClicks) {
  MouseTaps taps;  // a double tap on a slow frame: four frames, down up down up
  taps.on_move(7, 7);
  frame(taps);
  for (int i = 0; i < 2; ++i) {
    taps.on_button(0, true);
    taps.on_button(0, false);
  }
  EXPECT_EQ(frame(taps), "7,7 L");
  EXPECT_EQ(frame(taps), "7,7");
  EXPECT_EQ(frame(taps), "7,7 L");
  EXPECT_EQ(frame(taps), "7,7");
  EXPECT_TRUE(taps.idle());
}

TEST(MouseTaps, EventsKeepTheirOrderAcrossButtons) {
  MouseTaps taps;
  taps.on_move(3, 3);
  frame(taps);
  taps.on_button(1, true);
  taps.on_button(0, true);
  taps.on_button(1, false);
  taps.on_button(0, false);
  EXPECT_EQ(frame(taps), "3,3 R");
  EXPECT_EQ(frame(taps), "3,3 L R");
  EXPECT_EQ(frame(taps), "3,3 L");
  EXPECT_EQ(frame(taps), "3,3");
}

TEST(MouseTaps, ALiftedFingerLeavesAfterItsRelease) {
  MouseTaps taps;  // a tap ends with the pointer away, so no hover or tooltip stays behind
  taps.on_move(20, 30);
  taps.on_button(0, true);
  taps.on_button(0, false);
  taps.on_leave();
  EXPECT_EQ(frame(taps), "20,30");
  EXPECT_EQ(frame(taps), "20,30 L");
  EXPECT_EQ(frame(taps), "20,30");  // released where it was pressed: the widget is clicked
  EXPECT_EQ(frame(taps), "away");
}

TEST(MouseTaps, OutOfRangeButtonsAndRepeatedPressesChangeNothing) {
  MouseTaps taps;
  taps.on_move(1, 2);
  frame(taps);
  taps.on_button(7, true);
  taps.on_button(-1, true);
  EXPECT_TRUE(taps.idle());
  taps.on_button(0, true);
  EXPECT_EQ(frame(taps), "1,2 L");
  taps.on_button(0, true);  // a second press without a release (focus games): still down, no extra frame
  EXPECT_EQ(frame(taps), "1,2 L");
  EXPECT_TRUE(taps.idle());
}

}  // namespace
