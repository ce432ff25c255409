// trainfit — what the page's two modules share at their JS boundary (web/js_api.cpp, web/api_module.cpp): a
// returned string stays valid until the next call (ccall copies it at once), and no exception ever crosses into
// JavaScript: a bad input, or a bug, comes back as an error document.
#pragma once
#include <exception>
#include <string>
#include <utility>

#include "trainfit/engine.h"  // json_escape

namespace trainfit::web {

inline const char* out(std::string s) {
  static std::string held;
  held = std::move(s);
  return held.c_str();
}

inline std::string error_json(const std::string& message) {
  return "{\"ok\":false,\"error\":{\"field\":\"\",\"message\":\"" + json_escape(message) + "\"}}";
}

// {"ok":true}, or the error with its message (`err` empty = success): the answer of the calls that change state.
inline std::string status_json(const std::string& err) {
  return err.empty() ? std::string("{\"ok\":true}") : "{\"ok\":false,\"error\":{\"message\":\"" + json_escape(err) + "\"}}";
}

template <class F>
const char* guarded(F f) {
  try {
    return out(f());
  } catch (const std::exception& e) {
    return out(error_json(std::string("internal error: ") + e.what()));
  } catch (...) {
    return out(error_json("internal error"));
  }
}

}  // namespace trainfit::web
