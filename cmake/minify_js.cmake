# cmake -DIN=app.js -DOUT=site/app.js [-DCLOSURE=path/to/google-closure-compiler] -P minify_js.cmake — the page
# script as served: without its whole-line comments (strip_js_comments.cmake), then, where the build found the
# Closure Compiler (web/closure, installed by scripts/setup), minified by it in SIMPLE mode (local names shortened,
# whitespace dropped; globals and property names kept, so window.trainfit and the Module hooks are untouched).
# app.js 6.0 -> 4.7 KB gzip (docs/performance.md, "Closure on the glue").
include("${CMAKE_CURRENT_LIST_DIR}/strip_js_comments.cmake")
if(CLOSURE)
  execute_process(
    COMMAND "${CLOSURE}" --compilation_level SIMPLE --language_in ECMASCRIPT_2020 --language_out ECMASCRIPT_2020
            --warning_level QUIET --js "${OUT}" --js_output_file "${OUT}.min"
    RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "minify_js: Closure Compiler failed on ${IN}: ${_err}")
  endif()
  file(COPY_FILE "${OUT}.min" "${OUT}" ONLY_IF_DIFFERENT)
  file(REMOVE "${OUT}.min")
endif()
