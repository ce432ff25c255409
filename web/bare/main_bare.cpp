// trainfit — the bare Dear ImGui page: the yardstick for the web app's load time. Same emscripten
// flags, same imgui build and backends, the same GLFW/WebGL2 start-up as web/main_web.cpp, and nothing else:
// one window of text in the app's own font (the DejaVu Sans subset at 15 px, as App::rebuild_fonts adds it: the
// build has no built-in ImGui font, imconfig_trainfit.h). scripts/bench reports the app's time to its first interactive
// frame as a ratio to this page's.
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>

#include <cmath>
#include <string_view>

#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "imgui_impl_opengl3.h"

namespace trainfit {
std::string_view embedded_ui_font();  // app/CMakeLists.txt: DejaVu Sans subset
}

namespace {
GLFWwindow* g_window = nullptr;
double g_frames = 0;

void frame() {
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size("#canvas", &css_w, &css_h);
  const double dpr = emscripten_get_device_pixel_ratio();
  const int w = static_cast<int>(std::lround(css_w * dpr)), h = static_cast<int>(std::lround(css_h * dpr));
  glfwPollEvents();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  ImGui::Begin("bare");
  ImGui::Text("A bare Dear ImGui page, %d x %d", w, h);
  static float v = 0.5f;
  ImGui::SliderFloat("value", &v, 0, 1);
  ImGui::End();
  ImGui::Render();
  glViewport(0, 0, w, h);
  glClearColor(0.08f, 0.08f, 0.10f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  ++g_frames;
}
}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE double tf_frames() { return g_frames; }

int main() {
  if (!glfwInit()) return 1;
  g_window = glfwCreateWindow(1280, 800, "bare", nullptr, nullptr);
  if (!g_window) return 1;
  glfwMakeContextCurrent(g_window);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  const std::string_view font = trainfit::embedded_ui_font();
  ImFontConfig cfg;
  cfg.FontDataOwnedByAtlas = false;
  cfg.OversampleH = 2;
  ImGui::GetIO().Fonts->AddFontFromMemoryTTF(const_cast<char*>(font.data()), static_cast<int>(font.size()), 15.0f, &cfg,
                                             ImGui::GetIO().Fonts->GetGlyphRangesDefault());
  ImGui_ImplGlfw_InitForOpenGL(g_window, true);
  ImGui_ImplOpenGL3_Init("#version 300 es");
  emscripten_set_main_loop(frame, 0, 1);
  return 0;
}
