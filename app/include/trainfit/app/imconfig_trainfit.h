// trainfit — the one Dear ImGui configuration, for the native and the web build alike.
#pragma once

// WebGL2 cannot draw with a base vertex, so imgui_impl_opengl3 disables RendererHasVtxOffset there and a
// draw list over 64k vertices (a 5,000-row table, a scatter chart) would overflow 16-bit indices.
#define ImDrawIdx unsigned int
#define IMGUI_DISABLE_OBSOLETE_FUNCTIONS
#define IMGUI_DISABLE_OBSOLETE_KEYIO
// The demo window is worth ~115 KB gzipped of wasm; it is never shown to users.
#define IMGUI_DISABLE_DEMO_WINDOWS
// No built-in ProggyClean font (scripts/setup backports the switch to imgui_draw.cpp): the UI and the bare page add
// the DejaVu Sans subset themselves (app/CMakeLists.txt), which keeps ~10 KB gzip out of the web module.
#define IMGUI_DISABLE_DEFAULT_FONT
// ini files would need a file system in wasm; layout is fixed by the app, state lives in the URL.
#define IMGUI_DISABLE_FILE_FUNCTIONS
// Widget rectangles for the UI tests (headless GoogleTest and Playwright): see app/src/test_hooks.cpp.
#define IMGUI_ENABLE_TEST_ENGINE

// Programmer errors assert with a message; release web builds keep the check cheap.
#include <cassert>
#define IM_ASSERT(_EXPR) assert(_EXPR)
