// trainfit core — json_text.h: numbers and strings as the facade's documents write them (json_doc.h's rules).
#include "trainfit/base/json_text.h"

#include <nlohmann/json.hpp>

#include "base/json_doc.h"

namespace trainfit {

std::string json_number(double v) { return doc::num(v).dump(); }

std::string json_escape(std::string_view s) {
  const std::string quoted = nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return quoted.substr(1, quoted.size() - 2);
}

std::string json_pointer(std::string_view parent, std::string_view key) {
  std::string p(parent);
  p += '/';
  for (char c : key) {
    if (c == '~') p += "~0";
    else if (c == '/') p += "~1";
    else p += c;
  }
  return p;
}

}  // namespace trainfit
