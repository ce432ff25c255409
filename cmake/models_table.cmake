# Script mode: cmake -DIN=data/models.json -DOUT=models_table.inc -P models_table.cmake
# Writes the bundled model catalog as C++ (one add(ModelSpec{...}, ...) statement per entry, fields in ModelSpec's
# order; builtin_presets() defines add), so that
# builtin_presets() needs no JSON parse at start-up: on the web page that parse ran in the browser's baseline
# wasm tier, ~10 ms of the critical path (docs/performance.md). The JSON stays the one source: the test
# ModelCatalog.GeneratedTableMatchesTheJson compares this table with parse_model_presets(models.json) field by
# field, and that parse is what validates the catalog (unknown keys, types, ranges, duplicate ids).
# Only the keys parse_model_presets reads are emitted; defaults (absent num_kv_heads, BERT's type vocabulary)
# are applied at run time by the same function that applies them to parsed JSON (model.cpp).
file(READ "${IN}" json)
set(out "// Generated from ${IN} by cmake/models_table.cmake. Do not edit.\n")
string(JSON n ERROR_VARIABLE err LENGTH "${json}" models)
if(err)
  # A missing or empty catalog (core/CMakeLists.txt embeds {} while data/models.json is regenerated): no entries;
  # the tests fail loudly on it.
  file(WRITE "${OUT}" "${out}")
  return()
endif()
# ModelSpec's members in declaration order (designated initializers must follow it), each with its kind.
set(spec_fields str:id str:name str:hf_id arch:arch int:hidden_size int:num_layers int:num_heads int:num_kv_heads
    int:head_dim int:intermediate_size int:vocab_size int:max_position_embeddings bool:tie_embeddings
    int:num_experts int:experts_per_token int:type_vocab_size)
function(cxx_string var text)
  string(FIND "${text}" ")tf\"" bad)
  if(NOT bad EQUAL -1)
    message(FATAL_ERROR "${IN}: a string contains the raw-string delimiter )tf\"")
  endif()
  set(${var} "R\"tf(${text})tf\"" PARENT_SCOPE)
endfunction()
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON m GET "${json}" models ${i})
  set(fields "")
  set(has_kv false)
  foreach(field ${spec_fields})
    string(REPLACE ":" ";" kind_key "${field}")
    list(GET kind_key 0 kind)
    list(GET kind_key 1 key)
    string(JSON v ERROR_VARIABLE e GET "${m}" ${key})
    if(e)
      continue()  # absent: the ModelSpec default (then finish_model's, for num_kv_heads)
    endif()
    if(kind STREQUAL "str")
      cxx_string(v "${v}")
    elseif(kind STREQUAL "arch")
      set(v "Arch::${v}")
    elseif(kind STREQUAL "int")
      set(v "int64_t(${v})")
    elseif(v STREQUAL "ON")  # bool: CMake reads JSON true/false as ON/OFF
      set(v true)
    elseif(v STREQUAL "OFF")
      set(v false)
    endif()
    string(APPEND fields "    .${key} = ${v},\n")
    if(key STREQUAL "num_kv_heads")
      set(has_kv true)
    endif()
  endforeach()
  foreach(key config_source params_source)
    string(JSON v ERROR_VARIABLE e GET "${m}" ${key})
    if(e)
      set(v "")
    endif()
    cxx_string(${key} "${v}")
  endforeach()
  string(JSON v ERROR_VARIABLE e GET "${m}" params_expected)
  if(e)
    set(v 0)
  endif()
  string(APPEND out "add(ModelSpec{\n${fields}  }, ${has_kv}, ${config_source}, double(${v}), ${params_source});\n")
endforeach()
file(WRITE "${OUT}" "${out}")
