# cmake -DIN=app.js -DOUT=site/app.js -P strip_js_comments.cmake — the page script without its whole-line `//`
# comments and blank lines: they are for readers of web/app.js, not for every first visit (~2.7 KB of the
# 500 KB gzip payload budget, docs/performance.md). Only lines whose first non-blank characters are `//` go, so
# code, strings and end-of-line comments are untouched (web/app.js has no multi-line template literals).
file(READ "${IN}" _js)
string(REGEX REPLACE "(^|\n)[ \t]*//[^\n]*" "" _js "${_js}")
string(REGEX REPLACE "\n[ \t]*\n" "\n" _js "${_js}")
string(REGEX REPLACE "\n[ \t]*\n" "\n" _js "${_js}")
file(WRITE "${OUT}.tmp" "${_js}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
