# Script mode: cmake -DIN=data/models.json -DOUT=models_table.inc -P models_table.cmake
# Writes the bundled model catalog as C++ (one block per entry: the spec starts from family_spec(arch) and each
# key of the entry sets its field, then add(...); builtin_presets() defines add), so that
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
# The keys written into the spec, each with its kind. The spec starts as family_spec(arch) (the family's knob
# defaults) and each key present in the JSON overrides its field, as parse_model_presets does.
set(spec_fields str:id str:name str:hf_id int:hidden_size int:num_layers int:num_heads int:num_kv_heads
    int:head_dim int:intermediate_size int:vocab_size int:max_position_embeddings int:rope_theta int:rope_llama3_factor
    bool:tie_embeddings
    int:num_experts int:experts_per_token int:type_vocab_size Mlp:mlp Norm:norm Positional:positional Bias:bias
    Block:block QkNorm:qk_norm bool:dropout bool:attention_sinks int:sliding_window int:global_every
    int:moe_intermediate_size int:shared_expert_intermediate_size int:first_k_dense int:moe_layer_step
    int:q_lora_rank int:kv_lora_rank int:qk_nope_head_dim int:qk_rope_head_dim int:v_head_dim)
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
  string(JSON arch GET "${m}" arch)
  set(fields "")
  set(has_kv false)
  foreach(field ${spec_fields})
    string(REPLACE ":" ";" kind_key "${field}")
    list(GET kind_key 0 kind)
    list(GET kind_key 1 key)
    string(JSON v ERROR_VARIABLE e GET "${m}" ${key})
    if(e)
      continue()  # absent: the family's default (then finish_model's, for num_kv_heads)
    endif()
    if(kind STREQUAL "str")
      cxx_string(v "${v}")
    elseif(kind STREQUAL "int")
      set(v "int64_t(${v})")
    elseif(kind STREQUAL "bool")
      if(v STREQUAL "ON")  # CMake reads JSON true/false as ON/OFF
        set(v true)
      else()
        set(v false)
      endif()
    else()  # a knob enum: its JSON names are the enumerators' names
      set(v "${kind}::${v}")
    endif()
    string(APPEND fields "  m.${key} = ${v};\n")
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
  string(APPEND out "{\n  ModelSpec m = family_spec(Arch::${arch});\n${fields}  add(std::move(m), ${has_kv}, TRAINFIT_SOURCE(${config_source}), double(${v}), TRAINFIT_SOURCE(${params_source}));\n}\n")
endforeach()
file(WRITE "${OUT}" "${out}")
