# Dear ImGui 1.86, built from the Debian source package (scripts/setup unpacks it into third_party/imgui) with
# our own imconfig for both native and web: 32-bit ImDrawIdx (WebGL has no base-vertex draws, so big tables and
# charts would overflow 16-bit indices), no obsolete API, no demo windows, and the test-engine hooks the UI
# tests and the browser tests use to find widgets.
if(NOT EXISTS "${IMGUI_SOURCE_DIR}/imgui.cpp")
  message(FATAL_ERROR "Dear ImGui source not found in ${IMGUI_SOURCE_DIR}: run scripts/setup")
endif()
add_library(imgui STATIC
  "${IMGUI_SOURCE_DIR}/imgui.cpp" "${IMGUI_SOURCE_DIR}/imgui_draw.cpp" "${IMGUI_SOURCE_DIR}/imgui_tables.cpp"
  "${IMGUI_SOURCE_DIR}/imgui_widgets.cpp" "${IMGUI_SOURCE_DIR}/imgui_demo.cpp"
  # The test-engine hooks imgui calls (IMGUI_ENABLE_TEST_ENGINE) live with imgui so every link resolves them.
  "${CMAKE_SOURCE_DIR}/app/test_hooks.cpp")
target_include_directories(imgui SYSTEM PUBLIC "${IMGUI_SOURCE_DIR}" "${IMGUI_SOURCE_DIR}/backends")
target_include_directories(imgui PUBLIC "${CMAKE_SOURCE_DIR}/app/include")
target_compile_definitions(imgui PUBLIC IMGUI_USER_CONFIG="trainfit/app/imconfig_trainfit.h")
if(EMSCRIPTEN)
  target_compile_definitions(imgui PUBLIC IMGUI_IMPL_OPENGL_ES3)
endif()

# Platform + renderer backends (GLFW + OpenGL3 / WebGL2) for the two shells.
add_library(imgui_backend STATIC "${IMGUI_SOURCE_DIR}/backends/imgui_impl_glfw.cpp"
                                 "${IMGUI_SOURCE_DIR}/backends/imgui_impl_opengl3.cpp")
target_link_libraries(imgui_backend PUBLIC imgui)
if(NOT EMSCRIPTEN)
  find_package(glfw3 REQUIRED)
  find_package(OpenGL REQUIRED)
  target_link_libraries(imgui_backend PUBLIC glfw OpenGL::GL ${CMAKE_DL_LIBS})
else()
  target_compile_options(imgui_backend PUBLIC -sUSE_GLFW=3)
endif()
