// trainfit core — the one place that configures RapidJSON (Debian rapidjson-dev 1.1.0, header-only).
// Include this header instead of any <rapidjson/...> header, so every translation unit sees the same settings.
//
// RapidJSON reads the price snapshot (core/src/storage/snapshot_json_*.cpp) because it is 2-3x faster than nlohmann::json's
// DOM in WebAssembly (docs/snapshot.md has the figures); nlohmann stays for everything else.
#pragma once

#include <stdexcept>

// RapidJSON checks its preconditions with RAPIDJSON_ASSERT, by default assert(): a reader bug (say GetDouble()
// on a string) would abort the CLI and kill the web page. Throwing instead lets load_snapshot_report()'s
// catch turn it into its usual "internal error while reading the snapshot" message and refuse the document.
// (The few asserts inside RapidJSON's noexcept functions guard its own invariants, not the input: those
// would still terminate, which is what an assert does anyway.)
#ifdef RAPIDJSON_ASSERT
#error "rapidjson_config.h must be included before any RapidJSON header"
#endif
#define RAPIDJSON_ASSERT(x) ((x) ? static_cast<void>(0) : throw std::logic_error("RapidJSON precondition failed: " #x))

// Not set: RAPIDJSON_HAS_STDSTRING (the reader uses pointer + length, which also keeps embedded NULs) and any
// SIMD switch (the same code runs natively and in wasm; the wasm build has no SSE).

// RapidJSON 1.1.0's internal::Stack starts empty with null pointers, and its first Push() computes
// `nullptr + size` before allocating: harmless on every real machine, but undefined behaviour that clang's
// UBSan (-fsanitize=pointer-overflow, part of the fuzz preset's -fsanitize=undefined) stops on for every parse.
// Fixed upstream after 1.1.0 (it compares sizes instead). That one check is switched off for RapidJSON's own
// functions only; trainfit's code keeps it.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((no_sanitize("pointer-overflow"))), apply_to = function)
#endif
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#if defined(__clang__)
#pragma clang attribute pop
#endif
