// trainfit — the web shell's single App instance, shared by the main loop and the JS API.
#pragma once
#include "trainfit/app/app.h"

namespace trainfit::web {
trainfit::app::App& app();
}
