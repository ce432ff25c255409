# One place for warning flags. Applied per target with trainfit_warnings(target).
function(trainfit_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)
  # g++ 12's -Wrestrict misfires inside libstdc++'s basic_string::_M_replace when `"literal" + std::string` is
  # inlined (GCC bug 105329): where it fires depends only on inlining decisions, not on the code it names.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
endfunction()
