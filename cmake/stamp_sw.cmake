# Writes the site's sw.js from web/sw.js with its cache name derived from the app files it caches
# (SHA-256 over them), so every build that changes one of them changes the name and returning visitors'
# service workers fetch the new files instead of serving the old ones for good.
#   cmake -DIN=web/sw.js -DOUT=site/sw.js -DSITE=site -P cmake/stamp_sw.cmake
set(files trainfit.wasm trainfit.js trainfit-api.wasm trainfit-api.js app.js index.html style.css icon.svg)
set(all "")
foreach(f ${files})
  if(NOT EXISTS "${SITE}/${f}")
    message(FATAL_ERROR "stamp_sw: ${SITE}/${f} missing")
  endif()
  file(SHA256 "${SITE}/${f}" h)
  string(APPEND all "${f}:${h};")
endforeach()
string(SHA256 digest "${all}")
string(SUBSTRING "${digest}" 0 16 version)
file(READ "${IN}" text)
string(REPLACE "@CACHE_VERSION@" "${version}" text "${text}")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${text}")
