// trainfit — the desktop shell: a GLFW window with OpenGL 3, the same App as the web page.
//   trainfit-desktop [--snapshot FILE] [--stock FILE] [--hash '#...'] [--screenshot OUT.png --frames N]
// The last query is kept in $XDG_CONFIG_HOME/trainfit/last_query (or ~/.config/...) and restored at start.
#include <GLFW/glfw3.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "trainfit/engine.h"
#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "imgui_impl_opengl3.h"
#include "trainfit/app/app.h"
#include "trainfit/app/glfw_key_taps.h"
#include "trainfit/app/glfw_mouse_taps.h"
#include "snapshot_store.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace fs = std::filesystem;

namespace {

fs::path state_file() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  fs::path base = xdg && *xdg ? fs::path(xdg) : fs::path(home ? home : ".") / ".config";
  return base / "trainfit" / "last_query";
}

bool save_screenshot(const std::string& path, int w, int h) {
  std::vector<unsigned char> px(static_cast<size_t>(w) * h * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  stbi_flip_vertically_on_write(1);
  return stbi_write_png(path.c_str(), w, h, 4, px.data(), w * 4) != 0;
}

trainfit::app::App* g_app = nullptr;

// A snapshot file dropped on the window: the same validation as --snapshot; a refused file keeps the current one.
void on_drop(GLFWwindow*, int count, const char** paths) {
  if (!g_app || count < 1) return;
  std::string text;
  if (!trainfit::read_whole_file(paths[0], &text)) {
    g_app->set_error_banner(std::string("Cannot read ") + paths[0]);
    return;
  }
  const std::string err = g_app->load_snapshot(text, paths[0]);
  g_app->set_error_banner(err.empty() ? "" : "Snapshot refused; the current prices stay in use.");
}

// The command line (see --help).
struct Args {
  std::string snapshot_path, hash, screenshot, stock_path;
  int frames_to_run = 0;
};

// Reads the arguments into `out`: -1 to go on, else the exit code (after --help, or a message on stderr).
int parse_args(int argc, char** argv, Args* out) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "trainfit-desktop: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--snapshot") out->snapshot_path = next();
    else if (a == "--hash") out->hash = next();
    else if (a == "--stock") out->stock_path = next();
    else if (a == "--screenshot") out->screenshot = next();
    else if (a == "--frames") out->frames_to_run = std::atoi(next().c_str());
    else if (a == "--help" || a == "-h") {
      std::printf("usage: trainfit-desktop [--snapshot FILE] [--stock FILE] [--hash '#model=...'] [--screenshot OUT.png --frames N]\n"
                  "  --stock FILE  a live-stock check saved by `trainfit availability --save`: offers without capacity\n"
                  "                are flagged no_live_stock (the Launchable filter leaves them out)\n");
      return 0;
    } else {
      std::fprintf(stderr, "trainfit-desktop: unknown argument %s (see --help)\n", a.c_str());
      return 2;
    }
  }
  return -1;
}

// The downloaded snapshot, when there is a usable one; a damaged one is named and left for the bundled one.
void load_downloaded_snapshot(trainfit::app::App& app) {
  const std::string dir = trainfit::default_snapshot_dir();
  std::string why;
  std::optional<trainfit::StoredFiles> f = trainfit::read_stored_files(dir, &why);
  if (f) {
    // The core's checks first (the id inside the binary against the manifest's, the sidecar applies), then the app's.
    trainfit::Result<trainfit::Snapshot> checked = trainfit::load_stored_snapshot(*f, trainfit::SnapshotLoadOptions{});
    why = checked ? app.load_snapshot_binary(f->binary, "downloaded snapshot in " + dir) : checked.error().to_string();
    if (why.empty() && !f->text.empty()) why = app.apply_snapshot_text(f->text);
    if (why.empty()) {
      std::fprintf(stderr, "trainfit-desktop: prices from the downloaded snapshot %s in %s\n", f->manifest.snapshot_id.c_str(), dir.c_str());
      return;
    }
  }
  if (why.empty()) return;  // none downloaded
  std::fprintf(stderr, "trainfit-desktop: the downloaded snapshot in %s is unusable (%s); using the bundled one\n", dir.c_str(), why.c_str());
  app.set_error_banner("The downloaded snapshot is unusable (" + why + "); using the bundled snapshot");
}

// Prices: --snapshot FILE, else the snapshot `trainfit snapshot update` downloaded (cli/snapshot_store.h: checked
// against its manifest, its text sidecar applied) when it is usable, else the snapshot compiled into this binary.
// The origin the app shows (Snapshot tab, header tooltip) names which one; stderr says it too. Inputs: --hash, else the last query of the
// previous session (`saved`; ignored with a notice when corrupted).
void load_prices_and_query(trainfit::app::App& app, const Args& a, const fs::path& saved) {
  std::string err;
  if (!a.snapshot_path.empty()) {
    std::string text;
    if (!trainfit::read_whole_file(a.snapshot_path, &text)) err = "cannot read " + a.snapshot_path;
    else err = app.load_snapshot(text, a.snapshot_path);
    if (!err.empty()) {
      std::fprintf(stderr, "trainfit-desktop: snapshot refused: %s; using the bundled one\n", err.c_str());
      app.set_error_banner("Snapshot refused: " + err + " (using the bundled snapshot)");
    }
  }
  if (!app.has_snapshot() && a.snapshot_path.empty()) load_downloaded_snapshot(app);
  if (!app.has_snapshot()) {
    err = app.load_snapshot(trainfit::embedded_snapshot_json(), "bundled snapshot");
    if (!err.empty()) app.set_error_banner("The bundled snapshot is invalid: " + err);
  }
  if (!a.stock_path.empty()) {
    std::string text;
    err = trainfit::read_whole_file(a.stock_path, &text) ? app.apply_stock_report(text) : "cannot read " + a.stock_path;
    if (!err.empty()) app.set_error_banner("--stock ignored: " + err);
  }
  if (!a.hash.empty()) {
    err = app.set_query_hash(a.hash);
    if (!err.empty()) std::fprintf(stderr, "trainfit-desktop: --hash ignored: %s\n", err.c_str());
  } else {
    std::string text;
    if (trainfit::read_whole_file(saved.string(), &text) && !text.empty()) {
      err = app.set_query_hash(text);
      if (!err.empty()) app.set_error_banner("The saved query was ignored: " + err);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  trainfit::install_validation_tables();  // the Accuracy tab's report (library trainfit_validation)
  Args args;
  if (const int rc = parse_args(argc, argv, &args); rc >= 0) return rc;

  if (!glfwInit()) {
    std::fprintf(stderr, "trainfit-desktop: could not start GLFW (no display?)\n");
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  GLFWwindow* window = glfwCreateWindow(1280, 800, "trainfit", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "trainfit-desktop: could not open an OpenGL 3 window\n");
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui::GetIO().ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  trainfit::app::glfw_keys::install(window);   // keys paced for imgui 1.86 (key_taps.h)
  trainfit::app::glfw_mouse::install(window);  // and the mouse (mouse_taps.h)
  ImGui_ImplOpenGL3_Init("#version 130");

  trainfit::app::App app;
  app.make_documents_here(true);  // recipes and config.json here (the web page asks its JS API's module instead)
  {
    // Fonts at the window's scale, then the renderer's objects: the atlas texture is uploaded once (the
    // backend's first NewFrame would otherwise create it again behind a rebuilt one).
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(window, &sx, &sy);
    app.set_ui_scale(sx);
    app.rebuild_fonts();
    ImGui_ImplOpenGL3_CreateDeviceObjects();
  }
  g_app = &app;
  glfwSetDropCallback(window, on_drop);
  const fs::path saved = state_file();
  load_prices_and_query(app, args, saved);
  uint64_t saved_version = app.query_version();

  int frame = 0;
  while (!glfwWindowShouldClose(window)) {
    glfwPollEvents();
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(window, &sx, &sy);
    app.set_ui_scale(sx);
    if (app.fonts_dirty() && app.rebuild_fonts()) {
      ImGui_ImplOpenGL3_DestroyFontsTexture();
      ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    trainfit::app::glfw_mouse::before_new_frame();
    ImGui::NewFrame();
    trainfit::app::glfw_keys::after_new_frame(window);
    app.frame();
    ImGui::Render();
    int w, h;
    glfwGetFramebufferSize(window, &w, &h);
    glViewport(0, 0, w, h);
    float bg[4];
    app.clear_color(bg);  // the UI draws no window background of its own
    glClearColor(bg[0], bg[1], bg[2], bg[3]);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (app.query_version() != saved_version) {
      saved_version = app.query_version();
      std::error_code ec;
      fs::create_directories(saved.parent_path(), ec);
      std::ofstream(saved) << app.query_hash();
    }
    const std::string clip = app.take_clipboard_request();
    if (!clip.empty()) glfwSetClipboardString(window, clip.c_str());
    // The UI's requests: the desktop has no file dialog (GLFW offers none), so "load another snapshot" says how.
    if (app.take_shell_requests().find("open_file") != std::string::npos)
      app.set_error_banner("To load another snapshot, drop its .json file on this window (or start with --snapshot FILE).");
    ++frame;
    if (!args.screenshot.empty() && frame >= std::max(args.frames_to_run, 3)) {
      const bool ok = save_screenshot(args.screenshot, w, h);
      std::fprintf(ok ? stdout : stderr, "%s %s\n", ok ? "screenshot:" : "could not write", args.screenshot.c_str());
      break;
    }
    if (args.frames_to_run > 0 && args.screenshot.empty() && frame >= args.frames_to_run) break;
    glfwSwapBuffers(window);
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}
