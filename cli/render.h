// trainfit CLI — render the facade's JSON documents as an aligned table, CSV or Markdown.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace trainfit::cli {
std::string render(const std::string& verb, const nlohmann::json& doc, const std::string& format);
}
