// trainfit — the web shell's single App instance, shared by the main loop and the JS API.
#pragma once
#include "trainfit/app/app.h"

#include <cstdint>

namespace trainfit::web {
trainfit::app::App& app();
// Animation frames in which the shell ran the UI (the layout pass of the first one not counted separately):
// what tf_frames reports to the page, its tests and its benchmark.
uint64_t shell_frames();
// Of those, the frames that drew (the others showed the same picture as the canvas and issued no GL).
uint64_t drawn_frames();
}
