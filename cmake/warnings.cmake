# One place for warning flags. Applied per target with trainfit_warnings(target).
function(trainfit_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)
endfunction()
