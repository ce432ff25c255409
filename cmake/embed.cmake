# Compile data files into the binaries (no file system needed in wasm, no xxd needed on the build machine).
#   trainfit_embed_text(OUT_CPP <file> SYMBOL <fn> INPUT <path>)  -> std::string_view fn() in namespace trainfit
#   trainfit_embed_binary(OUT_CPP <file> SYMBOL <fn> INPUT <path>) -> same, for binary data (hex array)
# The generation runs at build time and re-runs when the input changes.
set(TRAINFIT_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/embed_run.cmake")
function(trainfit_embed_text)
  cmake_parse_arguments(E "" "OUT_CPP;SYMBOL;INPUT;MODE" "" ${ARGN})
  if(NOT E_MODE)
    set(E_MODE text)
  endif()
  add_custom_command(OUTPUT "${E_OUT_CPP}"
    COMMAND ${CMAKE_COMMAND} -DIN=${E_INPUT} -DOUT=${E_OUT_CPP} -DSYMBOL=${E_SYMBOL} -DMODE=${E_MODE}
            -P "${TRAINFIT_EMBED_SCRIPT}"
    DEPENDS "${E_INPUT}" "${TRAINFIT_EMBED_SCRIPT}"
    COMMENT "Embedding ${E_INPUT}" VERBATIM)
endfunction()
function(trainfit_embed_binary)
  trainfit_embed_text(${ARGN} MODE binary)
endfunction()
