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

}  // namespace trainfit
