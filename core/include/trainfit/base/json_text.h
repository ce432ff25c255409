// trainfit core — JSON text written by hand (the UI's exports, the snapshot's text sidecar) in exactly the form the
// facade's documents use, so hand-built and facade-built documents compare equal byte for byte.
#pragma once
#include <string>
#include <string_view>

namespace trainfit {

// A number as every facade document writes it (12 significant digits, integers exact, null when not finite),
// for hand-built documents that must compare equal to the facade's.
std::string json_number(double v);

// JSON string escaping for hand-built documents (invalid UTF-8 becomes U+FFFD rather than an exception).
std::string json_escape(std::string_view s);

// The JSON pointer of member `key` under `parent` (RFC 6901: "~" as "~0", "/" as "~1"), for error messages.
std::string json_pointer(std::string_view parent, std::string_view key);

}  // namespace trainfit
