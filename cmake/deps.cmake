# Third-party packages, all from Debian (scripts/setup installs them).
# Under emscripten the host's /usr/include must not leak into the sysroot, so header-only libraries are
# exposed through a build-local include folder that holds just them.
set(TRAINFIT_THIRD_INCLUDE "${CMAKE_BINARY_DIR}/third_include")
file(MAKE_DIRECTORY "${TRAINFIT_THIRD_INCLUDE}")
if(NOT EXISTS "/usr/include/nlohmann/json.hpp")
  message(FATAL_ERROR "nlohmann/json not found: run scripts/setup")
endif()
if(NOT EXISTS "${TRAINFIT_THIRD_INCLUDE}/nlohmann")
  file(CREATE_LINK "/usr/include/nlohmann" "${TRAINFIT_THIRD_INCLUDE}/nlohmann" SYMBOLIC)
endif()
add_library(trainfit_json INTERFACE)
target_include_directories(trainfit_json SYSTEM INTERFACE "${TRAINFIT_THIRD_INCLUDE}")
target_compile_definitions(trainfit_json INTERFACE JSON_USE_IMPLICIT_CONVERSIONS=0)

# RapidJSON (rapidjson-dev 1.1.0, header-only): the snapshot reader's parser (core/src/snapshot.cpp; its
# settings are in core/src/rapidjson_config.h). Same build-local folder as nlohmann.
if(NOT EXISTS "/usr/include/rapidjson/document.h")
  message(FATAL_ERROR "RapidJSON not found: run scripts/setup")
endif()
if(NOT EXISTS "${TRAINFIT_THIRD_INCLUDE}/rapidjson")
  file(CREATE_LINK "/usr/include/rapidjson" "${TRAINFIT_THIRD_INCLUDE}/rapidjson" SYMBOLIC)
endif()
add_library(trainfit_rapidjson INTERFACE)
target_include_directories(trainfit_rapidjson SYSTEM INTERFACE "${TRAINFIT_THIRD_INCLUDE}")

if(NOT EMSCRIPTEN AND NOT TRAINFIT_CORE_ONLY)
  if(NOT EXISTS "/usr/include/CLI/CLI.hpp")
    message(FATAL_ERROR "CLI11 not found: run scripts/setup")
  endif()
endif()
