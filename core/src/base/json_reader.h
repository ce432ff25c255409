// trainfit core — strict JSON reading with RapidJSON, shared by the snapshot reader (snapshot_json_*.cpp) and the model
// catalog (model_presets.cpp), and the nesting check every JSON input goes through first (queries too, query_json.cpp).
// Internal to the core: not installed with trainfit/*.h.
//
// Why RapidJSON and not nlohmann (which the rest of the core uses): these two documents are read at page load,
// in the browser's baseline wasm tier, where nlohmann's DOM parse of the 218 KB snapshot cost ~100 ms and this
// parser ~50 ms (docs/snapshot.md). The rules are nlohmann's: strict RFC 8259, UTF-8 validated, the last of
// duplicate keys wins, integers that fit 64 bits stay integers, other numbers correctly rounded doubles.
#pragma once

#include <string>
#include <string_view>

#include "base/rapidjson_config.h"

namespace trainfit::jsonr {

using JValue = rapidjson::Value;
using rapidjson::SizeType;

// Parses `text` into `doc`; on failure returns false and says why and at which byte (0-based, in `text`),
// e.g. "Missing a closing quotation mark in string at byte 1322".
bool parse_json(std::string_view text, rapidjson::Document* doc, std::string* why);

// True when brackets outside strings nest deeper than `max_depth`: a linear scan of the raw text, no allocation,
// run before any parser builds a tree (a document of a million '[' must not cost a million-entry stack).
bool json_nesting_exceeds(std::string_view text, int max_depth);

// nlohmann::json::type_name()'s names ("null", "boolean", "number", "string", "array", "object").
const char* type_name(const JValue& v);

// A string value as bytes (pointer + length: an escaped \u0000 inside it is kept).
inline std::string_view text_of(const JValue& v) { return {v.GetString(), v.GetStringLength()}; }

// Member `key` of an object, or nullptr (absent, or `obj` is not an object). With duplicate keys the last wins.
const JValue* find_member(const JValue& obj, std::string_view key);

// True for an integer literal that fits int64 or uint64 (nlohmann's is_number_integer()).
inline bool is_integer(const JValue& v) { return v.IsInt64() || v.IsUint64(); }

}  // namespace trainfit::jsonr
