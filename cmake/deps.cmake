# Third-party packages, all from Debian (scripts/setup installs them).
# Under emscripten the host's /usr/include must not leak into the sysroot, so header-only libraries are
# exposed through a build-local include folder that holds just them.
set(TRAINFIT_THIRD_INCLUDE "${CMAKE_BINARY_DIR}/third_include")
file(MAKE_DIRECTORY "${TRAINFIT_THIRD_INCLUDE}")
# Links /usr/include/<dir> into that folder; `probe` is a file the package must have.
function(trainfit_system_headers dir probe what)
  if(NOT EXISTS "/usr/include/${dir}/${probe}")
    message(FATAL_ERROR "${what} not found: run scripts/setup")
  endif()
  if(NOT EXISTS "${TRAINFIT_THIRD_INCLUDE}/${dir}")
    file(CREATE_LINK "/usr/include/${dir}" "${TRAINFIT_THIRD_INCLUDE}/${dir}" SYMBOLIC)
  endif()
endfunction()

trainfit_system_headers(nlohmann json.hpp "nlohmann/json")
add_library(trainfit_json INTERFACE)
target_include_directories(trainfit_json SYSTEM INTERFACE "${TRAINFIT_THIRD_INCLUDE}")
target_compile_definitions(trainfit_json INTERFACE JSON_USE_IMPLICIT_CONVERSIONS=0)

if(NOT EMSCRIPTEN AND NOT TRAINFIT_CORE_ONLY)
  if(NOT EXISTS "/usr/include/CLI/CLI.hpp")
    message(FATAL_ERROR "CLI11 not found: run scripts/setup")
  endif()
endif()

# The native programs' snapshot updates (cli/snapshot_update.cpp, cli/snapshot_store.cpp): libcurl (Debian
# libcurl4-openssl-dev) fetches the published manifest and files over HTTP(S), OpenSSL's libcrypto (libssl-dev)
# computes their SHA-256. Never in the core or the web build: the core has no networking.
if(NOT EMSCRIPTEN AND NOT TRAINFIT_CORE_ONLY)
  find_package(CURL QUIET)
  find_package(OpenSSL QUIET COMPONENTS Crypto)
  if(NOT CURL_FOUND)
    message(FATAL_ERROR "libcurl (libcurl4-openssl-dev) not found: run scripts/setup")
  endif()
  if(NOT OPENSSL_FOUND)
    message(FATAL_ERROR "OpenSSL's libcrypto (libssl-dev) not found: run scripts/setup")
  endif()
endif()
