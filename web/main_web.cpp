// trainfit — the web shell: WebGL2 canvas, main loop and every emscripten 3.1.6 / imgui 1.86 workaround, in
// this one file. Each NOTE below names the problem and what we do about it.
//   NOTE: GLFW has no DPR and glfwSetWindowSize goes fullscreen: we size the backing store
//         ourselves to CSS size x devicePixelRatio with Browser.setCanvasSize, and scale the UI by the DPR.
//   NOTE: the GLFW wheel is inverted and x100: we take the wheel from html5.h instead.
//   NOTE: GLFW clipboard is a stub: copy goes through navigator.clipboard (web/app.js),
//         paste comes in through the exported tf_paste.
//   NOTE: a rebuilt font atlas must be re-uploaded by hand (renderer_upload_fonts).
//   NOTE(imgui 1.86): keys are read once a frame, so quick taps were lost or reordered: key and character events
//         go through trainfit::app::KeyTaps, a queue paced to what a frame can take (the desktop shell too).
//   NOTE(imgui 1.86, mouse): the mouse too is read once a frame; a press and release between two frames, or a
//         move and a press together (a tap, a script), lost clicks on tabs and table rows: pointer events go
//         through trainfit::app::MouseTaps (mouse_taps.h), one button change per frame, never in a frame that moved.
//   NOTE(touch): emscripten 3.1.6's GLFW turns touches into presses at a stale position (library_glfw.js reads
//         event.touch, which only SDL sets): its touch listeners are removed and html5.h touch callbacks map a
//         tap to hover, press, release, leave, and a drag (past 10 CSS px) to scrolling the window under it.
//   NOTE(touch, typing): a canvas cannot bring up a phone's keyboard: while an ImGui text field is active after a
//         touch, web/app.js focuses a hidden <input> (window.trainfitTextInput) and sends what the keyboard types
//         back through tf_type / tf_key_tap, paced as key events (KeyTaps).
//   NOTE(idle): the frames that follow a press, release, key, wheel or touch event are always drawn, even when
//         the digest says nothing changed, so the picture after the last event can never be a stale one. (Plain
//         mouse moves are left to the digest: what they change, hover, changes the draw data.)
//   NOTE(load, every frame): imgui 1.86's OpenGL backend saves and restores the GL state around each frame with
//         glGetIntegerv, a synchronous GPU-process round trip each in Chrome's WebGL (7 a frame): the page owns
//         its context, so it draws with its own renderer that queries nothing (webgl_renderer.h).
//   NOTE(load): the GPU side of the first frame (shader compile, font upload, pipeline JIT under software
//         WebGL, the clear and read-back routines) is started in main() with one tiny draw into the still hidden
//         canvas, so it overlaps the snapshot load instead of following the first full frame (warm_up_gpu).
//   NOTE(load, idle): the first frame is laid out once unseen, and a frame identical to the one the canvas shows
//         is not drawn again: the browser then neither composites nor reads back the canvas (frame below).
//   NOTE(closure): the release link runs Closure Compiler in ADVANCED mode over the glue, EM_ASM blocks included,
//         and it renames every property it reaches with a dot: the names this file shares with web/app.js are
//         quoted (window['trainfitBooted'], Module['canvas']) so that they survive.
#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "imgui_internal.h"  // ImTextCharFromUtf8
#include "trainfit/app/app.h"
#include "trainfit/app/glfw_key_taps.h"
#include "trainfit/app/glfw_mouse_taps.h"
#include "web_shell.h"
#include "webgl_renderer.h"

namespace {

GLFWwindow* g_window = nullptr;
int g_fb_w = 0, g_fb_h = 0;
uint64_t g_synced_version = 0;
bool g_booted = false;
uint64_t g_frames = 0;         // frames the shell ran the UI in (tf_frames)
uint64_t g_drawn_digest = 0;   // frame_digest of what the canvas shows; 0 = unknown: draw
uint64_t g_drawn = 0;          // frames that drew (tf_drawn_frames)
double g_css_w = 0;            // the canvas's CSS width (touch positions are in CSS px)
int g_input_frames = 0;        // frames still to draw unconditionally after an input event (NOTE(idle))
bool g_touch_input = false;    // the last press came from a touch (NOTE(touch, typing))

void input_seen() { g_input_frames = 2; }

// One finger at a time: a tap (lifted within 10 CSS px of where it went down) clicks there; a drag scrolls.
struct Touch {
  long id = -1;          // the finger followed (-1: none)
  float x0 = 0, y0 = 0;  // where it went down, framebuffer px
  float x = 0, y = 0;    // where the scroll has got to
  bool scrolling = false;
};
Touch g_touch;
float g_scroll_dx = 0, g_scroll_dy = 0;  // drag not yet applied (framebuffer px)

EM_BOOL on_touch(int type, const EmscriptenTouchEvent* e, void*) {
  input_seen();
  trainfit::app::MouseTaps& taps = trainfit::app::glfw_mouse::taps();
  const float k = g_css_w > 0 ? static_cast<float>(g_fb_w / g_css_w) : 1.0f;  // CSS px -> framebuffer px
  for (int i = 0; i < e->numTouches; ++i) {
    const EmscriptenTouchPoint& t = e->touches[i];
    if (!t.isChanged) continue;
    const float x = static_cast<float>(t.targetX) * k, y = static_cast<float>(t.targetY) * k;
    if (type == EMSCRIPTEN_EVENT_TOUCHSTART) {
      if (g_touch.id != -1) continue;  // a second finger: ignored
      g_touch_input = true;
      g_touch = Touch{t.identifier, x, y, x, y, false};
      taps.on_move(x, y);  // hover now; the press comes when the finger lifts without having dragged
      continue;
    }
    if (t.identifier != g_touch.id) continue;
    if (type == EMSCRIPTEN_EVENT_TOUCHMOVE) {
      if (!g_touch.scrolling && std::hypot(x - g_touch.x0, y - g_touch.y0) > 10 * k) g_touch.scrolling = true;
      if (g_touch.scrolling) {
        g_scroll_dx += x - g_touch.x;
        g_scroll_dy += y - g_touch.y;
        g_touch.x = x;
        g_touch.y = y;
      }
      continue;
    }
    if (type == EMSCRIPTEN_EVENT_TOUCHEND && !g_touch.scrolling) {
      taps.on_button(0, true);
      taps.on_button(0, false);
    }
    taps.on_leave();  // lifted (or cancelled): no hover, no tooltip stays behind
    g_touch.id = -1;
  }
  return EM_TRUE;  // preventDefault: no emulated mouse events, no browser scrolling or zooming of the page
}
EM_BOOL on_mouse_seen(int type, const EmscriptenMouseEvent*, void*) {
  input_seen();
  if (type == EMSCRIPTEN_EVENT_MOUSEDOWN) g_touch_input = false;
  return EM_FALSE;  // GLFW's own listeners handle the event
}
EM_BOOL on_key_seen(int, const EmscriptenKeyboardEvent*, void*) {
  input_seen();
  return EM_FALSE;
}

EM_BOOL on_wheel(int, const EmscriptenWheelEvent* e, void*) {
  // DOM_DELTA_PIXEL = 0, LINE = 1, PAGE = 2. ImGui wants ~1 per notch, positive = up / left.
  const double unit = e->deltaMode == DOM_DELTA_PIXEL ? 0.01 : e->deltaMode == DOM_DELTA_LINE ? 1.0 / 3.0 : 80.0;
  ImGuiIO& io = ImGui::GetIO();
  input_seen();
  io.MouseWheel += static_cast<float>(-e->deltaY * unit);
  io.MouseWheelH += static_cast<float>(-e->deltaX * unit);
  return EM_TRUE;
}

void sync_canvas_size() {
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size("#canvas", &css_w, &css_h);
  g_css_w = css_w;
  const double dpr = emscripten_get_device_pixel_ratio();
  const int w = static_cast<int>(std::lround(css_w * dpr));
  const int h = static_cast<int>(std::lround(css_h * dpr));
  if (w > 0 && h > 0 && (w != g_fb_w || h != g_fb_h)) {
    g_fb_w = w;
    g_fb_h = h;
    EM_ASM({ Browser.setCanvasSize($0, $1); }, w, h);
  }
  trainfit::web::app().set_ui_scale(static_cast<float>(dpr));
}

void rebuild_fonts_now(trainfit::app::App& app) {
  if (!app.rebuild_fonts()) return;  // a theme change: same glyphs, same texture
  trainfit::web::renderer_upload_fonts();
  g_drawn_digest = 0;  // new texture contents: redraw even if the draw data were the same
}

// A clear and one small textured, blended ImGui draw, then a flush: the GPU process compiles and links the
// shaders, uploads the font atlas and builds its pipeline for the ImGui state while the page goes on loading the
// snapshot. It draws into the canvas itself, so the pipeline is the one the first frame uses (its framebuffer
// format), and is not composited: the canvas is hidden behind the splash until the first frame (web/style.css),
// and a visible drawn canvas would be read back under software compositing.
void warm_up_gpu(trainfit::app::App& app) {
  sync_canvas_size();  // the device pixel ratio decides the font size
  app.rebuild_fonts();
  const char* why = nullptr;
  if (!trainfit::web::renderer_init(&why)) {  // shaders + the atlas's texture, uploaded once
    EM_ASM({ if (window['trainfitFatal']) window['trainfitFatal'](UTF8ToString($0)); }, why);
    return;
  }
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  ImGui::GetForegroundDrawList()->AddRectFilled(ImVec2(0, 0), ImVec2(8, 8), IM_COL32(128, 128, 128, 128));
  ImGui::GetForegroundDrawList()->AddText(ImVec2(0, 0), IM_COL32_WHITE, "tf");
  ImGui::Render();
  float bg[4];
  app.clear_color(bg);
  glClearColor(bg[0], bg[1], bg[2], bg[3]);
  glClear(GL_COLOR_BUFFER_BIT);  // as every frame does: its routine is compiled now too
  trainfit::web::renderer_draw(ImGui::GetDrawData());
  // One pixel read back into a pixel-pack buffer: asynchronous (nothing waits for it), it makes the GPU process
  // run the clear, the draw and a read-back now, compiling their routines while the page loads, instead of in
  // the first visible frame (whose composite is a read-back under software compositing: 40 -> 30 ms, traced;
  // A/B 25 loads: -5 ms). A synchronous glReadPixels did the same but made main() wait for it.
  GLuint pbo = 0;
  glGenBuffers(1, &pbo);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, pbo);
  glBufferData(GL_PIXEL_PACK_BUFFER, 4, nullptr, GL_STREAM_READ);
  glReadPixels(0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glDeleteBuffers(1, &pbo);
  glFlush();
}

// One UI pass: a new ImGui frame with this frame's input, and the app's windows.
void ui_pass(trainfit::app::App& app) {
  ImGui_ImplGlfw_NewFrame();
  ImGuiIO& io = ImGui::GetIO();
  if (!(io.DeltaTime > 0)) io.DeltaTime = 1e-4f;  // a second pass in one animation frame (the layout pass)
  trainfit::app::glfw_mouse::before_new_frame();
  ImGui::NewFrame();
  trainfit::app::glfw_keys::after_new_frame(g_window);
  if (g_scroll_dx != 0 || g_scroll_dy != 0) {
    trainfit::app::drag_scroll(g_scroll_dx, g_scroll_dy);
    g_scroll_dx = g_scroll_dy = 0;
  }
  app.frame();
}

// A 64-bit digest of everything a frame draws: framebuffer size, clear colour, and each draw list's vertices,
// indices and commands (clip rectangle, texture, element range), mixed word by word with a multiply and an
// xor-shift (SplitMix64's multiplier). Not cryptographic: two different pictures sharing a digest is a chance of
// the order of 2^-64 per frame, and would only leave the previous picture up until the next change.
uint64_t frame_digest(const ImDrawData* d, const float bg[4]) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  auto word = [&h](uint32_t w) {
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
  };
  auto words = [&word](const void* p, size_t bytes) {  // every buffer hashed is a whole number of 32-bit words
    const unsigned char* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
      uint32_t w;
      std::memcpy(&w, b + i, 4);
      word(w);
    }
  };
  word(static_cast<uint32_t>(g_fb_w));
  word(static_cast<uint32_t>(g_fb_h));
  words(bg, 4 * sizeof(float));
  words(&d->DisplaySize, sizeof d->DisplaySize);
  words(&d->FramebufferScale, sizeof d->FramebufferScale);
  for (int n = 0; n < d->CmdListsCount; ++n) {
    const ImDrawList* l = d->CmdLists[n];
    word(static_cast<uint32_t>(l->VtxBuffer.Size));
    words(l->VtxBuffer.Data, static_cast<size_t>(l->VtxBuffer.Size) * sizeof(ImDrawVert));
    word(static_cast<uint32_t>(l->IdxBuffer.Size));
    words(l->IdxBuffer.Data, static_cast<size_t>(l->IdxBuffer.Size) * sizeof(ImDrawIdx));
    for (const ImDrawCmd& c : l->CmdBuffer) {
      words(&c.ClipRect, sizeof c.ClipRect);
      word(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(c.TextureId)));
      word(c.IdxOffset);
      word(c.ElemCount);
      word(c.UserCallback ? 1u : 0u);
    }
  }
  return h;
}

void frame() {
  trainfit::app::App& app = trainfit::web::app();
  sync_canvas_size();
  if (app.fonts_dirty()) rebuild_fonts_now(app);
  glfwPollEvents();
  // NOTE: while the page is still loading prices (web/app.js sets trainfitBooted when the snapshot and the
  // link are applied, or failed), the splash covers the canvas: drawing the UI without data would only delay
  // the first useful frame (software-rendered WebGL costs ~100 ms per full frame in headless Chromium).
  if (!g_booted) {
    // Draw anyway after 20 s, so a page script failure can never leave the splash up for good.
    static const double t0 = emscripten_get_now();
    g_booted = EM_ASM_INT({ return window['trainfitBooted'] ? 1 : 0; }) != 0 || emscripten_get_now() - t0 > 20000;
    if (!g_booted) return;
    // The one place the page is revealed (booted or not): the canvas, hidden until now (style.css), shows
    // this frame, and the splash goes.
    EM_ASM({
      document.body.classList.add('started');
      var splash = document.getElementById('splash');
      if (splash) splash.remove();
      performance.mark('tf:first-frame');
    });
  }
  if (g_frames == 0) {
    // Layout pass, once, unseen: ImGui sizes auto-fitting table columns and child windows from what the first
    // frame submitted, so a first frame drawn as is differs from every later one (measured: frame 1's draw
    // data differs from frame 2's, frames 2, 3, ... are identical). The first frame drawn is the settled one.
    ui_pass(app);
    ImGui::EndFrame();
  }
  ui_pass(app);
  ImGui::Render();
  ++g_frames;
  float bg[4];
  app.clear_color(bg);  // the UI draws no window background of its own
  // Redraw only when the picture changed: an unchanged frame leaves the canvas as it is, which the browser then
  // neither re-composites nor (under software compositing) reads back. An idle page costs the UI pass only.
  const uint64_t digest = frame_digest(ImGui::GetDrawData(), bg);
  // (Events still queued for later frames keep it so: the two frames after the last one applied are drawn.)
  if (trainfit::app::glfw_mouse::taps().waiting() || !trainfit::app::glfw_keys::taps().idle()) input_seen();
  const bool after_input = g_input_frames > 0;
  if (after_input) --g_input_frames;
  if (digest != g_drawn_digest || after_input) {
    g_drawn_digest = digest;
    ++g_drawn;
    glViewport(0, 0, g_fb_w, g_fb_h);
    glClearColor(bg[0], bg[1], bg[2], bg[3]);
    glClear(GL_COLOR_BUFFER_BIT);
    trainfit::web::renderer_draw(ImGui::GetDrawData());
  }

  // The page mirrors the query into the URL hash and localStorage, and tells embedding pages. Not during the
  // first two frames, which bring the first results on screen: serialising the query costs ~10 ms there, while
  // the wasm still runs in the browser's baseline tier. Changes made meanwhile (a link, a saved query, the JS
  // API) are mirrored at the third frame: the versions differ until then.
  if (app.query_version() != g_synced_version && g_frames > 2) {
    g_synced_version = app.query_version();
    const std::string hash = app.query_hash();
    EM_ASM({ if (window['trainfitQueryChanged']) window['trainfitQueryChanged'](UTF8ToString($0)); }, hash.c_str());
  }
  // A text field became active (or stopped being) after a touch: the page shows or hides the phone's keyboard.
  static bool keyboard_shown = false;
  const bool want_keyboard = ImGui::GetIO().WantTextInput && g_touch_input;
  if (want_keyboard != keyboard_shown) {
    keyboard_shown = want_keyboard;
    EM_ASM({ if (window['trainfitTextInput']) window['trainfitTextInput'](!!$0); }, want_keyboard ? 1 : 0);
  }
  const std::string clip = app.take_clipboard_request();
  if (!clip.empty()) EM_ASM({ if (window['trainfitCopy']) window['trainfitCopy'](UTF8ToString($0)); }, clip.c_str());
  const ImGuiMouseCursor cursor = ImGui::GetMouseCursor();
  static ImGuiMouseCursor last_cursor = -2;
  if (cursor != last_cursor) {
    last_cursor = cursor;
    const char* css = cursor == ImGuiMouseCursor_TextInput ? "text"
                      : cursor == ImGuiMouseCursor_Hand     ? "pointer"
                      : cursor == ImGuiMouseCursor_ResizeEW ? "ew-resize"
                      : cursor == ImGuiMouseCursor_ResizeNS ? "ns-resize"
                                                            : "default";
    EM_ASM({ Module['canvas'].style.cursor = UTF8ToString($0); }, css);
  }
}

}  // namespace

uint64_t trainfit::web::shell_frames() { return g_frames; }

// What a phone's keyboard typed (NOTE(touch, typing)): characters and key taps, through KeyTaps like real keys.
extern "C" {
EMSCRIPTEN_KEEPALIVE void tf_type(const char* utf8) {
  if (!utf8 || !g_window) return;
  input_seen();
  while (*utf8) {
    unsigned int c = 0;
    const int n = ImTextCharFromUtf8(&c, utf8, nullptr);
    if (n <= 0) break;
    utf8 += n;
    if (c > 0 && c != 0xFFFD) trainfit::app::glfw_keys::on_char(g_window, c);
  }
}
// A press and release of a GLFW key (GLFW_KEY_BACKSPACE 259, GLFW_KEY_ENTER 257, ...).
EMSCRIPTEN_KEEPALIVE void tf_key_tap(int key) {
  if (!g_window || key < 32 || key > GLFW_KEY_LAST) return;
  input_seen();
  trainfit::app::glfw_keys::on_key(g_window, key, 0, GLFW_PRESS, 0);
  trainfit::app::glfw_keys::on_key(g_window, key, 0, GLFW_RELEASE, 0);
}
}
uint64_t trainfit::web::drawn_frames() { return g_drawn; }

int main() {
  if (!glfwInit()) {
    EM_ASM({ if (window['trainfitFatal']) window['trainfitFatal']("GLFW could not start"); });
    return 1;
  }
  // No depth or stencil buffer (ImGui draws neither) and an opaque canvas (the UI clears to an opaque colour):
  // less for the GPU process to allocate and clear, and to composite, every frame. web/app.js creates the
  // context early with these same attributes.
  glfwWindowHint(GLFW_DEPTH_BITS, 0);
  glfwWindowHint(GLFW_STENCIL_BITS, 0);
  glfwWindowHint(GLFW_ALPHA_BITS, 0);
  g_window = glfwCreateWindow(1280, 800, "trainfit", nullptr, nullptr);
  if (!g_window) {
    EM_ASM({ if (window['trainfitFatal']) window['trainfitFatal']("This browser could not create a WebGL2 context."); });
    return 1;
  }
  glfwMakeContextCurrent(g_window);
  // The context the module draws with, under a quoted name (Closure renames emscripten's own Module.ctx): the
  // browser test checks that it is the one web/app.js created while the wasm compiled, with GLFW's attributes.
  EM_ASM({ Module['ctx'] = GLctx; });
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  ImGui_ImplGlfw_InitForOpenGL(g_window, true);
  glfwSetScrollCallback(g_window, nullptr);  // our own wheel handler below
  trainfit::app::glfw_keys::install(g_window);  // keys paced for imgui 1.86 (key_taps.h)
  emscripten_set_wheel_callback("#canvas", nullptr, EM_TRUE, on_wheel);
  trainfit::app::glfw_mouse::install(g_window);  // the mouse paced for imgui 1.86 (mouse_taps.h)
  // NOTE(touch): GLFW's touch listeners would press at a stale position; ours map touches (on_touch).
  EM_ASM({
    var c = Module['canvas'];
    c.removeEventListener('touchstart', GLFW.onMouseButtonDown, true);
    c.removeEventListener('touchend', GLFW.onMouseButtonUp, true);
    c.removeEventListener('touchcancel', GLFW.onMouseButtonUp, true);
    c.removeEventListener('touchmove', GLFW.onMousemove, true);
  });
  emscripten_set_touchstart_callback("#canvas", nullptr, EM_TRUE, on_touch);
  emscripten_set_touchmove_callback("#canvas", nullptr, EM_TRUE, on_touch);
  emscripten_set_touchend_callback("#canvas", nullptr, EM_TRUE, on_touch);
  emscripten_set_touchcancel_callback("#canvas", nullptr, EM_TRUE, on_touch);
  emscripten_set_mousedown_callback("#canvas", nullptr, EM_FALSE, on_mouse_seen);
  emscripten_set_mouseup_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_FALSE, on_mouse_seen);
  emscripten_set_keydown_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_FALSE, on_key_seen);
  emscripten_set_keyup_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_FALSE, on_key_seen);
  warm_up_gpu(trainfit::web::app());  // also constructs the app before the first frame
  EM_ASM({ if (window['trainfitStarted']) window['trainfitStarted'](); });
  emscripten_set_main_loop(frame, 0, 1);
  return 0;
}
