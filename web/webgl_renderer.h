// trainfit — Dear ImGui's draw lists on WebGL2, for the web shell only (web/main_web.cpp).
//
// Why not imgui 1.86's imgui_impl_opengl3 (which the desktop shell keeps): that backend saves and restores the GL
// state around every frame, and in Chrome's WebGL each of those glGetIntegerv (the blend functions and
// equations, ...) is a synchronous round trip to the GPU process: 7 a frame, 0.3-4 ms each under software WebGL,
// ~15 ms of the first page load (traced) and 2-5 ms of every frame after. The page owns its one context, so there
// is nothing to save; this renderer sets the state it needs and queries none. Shaders, blending, vertex layout and
// clipping are the same as the backend's GLSL 300 es path, so both shells draw the same pixels.
#pragma once

struct ImDrawData;

namespace trainfit::web {

// Compiles the program, creates the buffers and uploads the current font atlas. Needs the WebGL2 context current.
// False (with the reason in *why) when the program does not link.
bool renderer_init(const char** why);
// Re-uploads the font atlas (after ImGui's fonts were rebuilt).
void renderer_upload_fonts();
// Draws one frame's draw data into the current framebuffer; leaves the scissor test off (the shell clears next).
void renderer_draw(const ImDrawData* draw_data);

}  // namespace trainfit::web
