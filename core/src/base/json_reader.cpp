// trainfit core — strict JSON reading with RapidJSON (json_reader.h says why and which rules).
#include "base/json_reader.h"

#include <algorithm>
#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace trainfit::jsonr {

// The type names nlohmann::json::type_name() gives, so messages stay what they were before RapidJSON.
const char* type_name(const JValue& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType: return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType: return "boolean";
    case rapidjson::kObjectType: return "object";
    case rapidjson::kArrayType: return "array";
    case rapidjson::kStringType: return "string";
    case rapidjson::kNumberType: return "number";
  }
  return "null";
}

// Member `key` of an object (nullptr if absent or not an object). With duplicate keys the LAST one wins, as it
// did with nlohmann::json (whose parser assigned each member in turn), hence the search from the end.
// Members are indexed rather than found with FindMember(): comparing RapidJSON 1.1.0's member iterators
// (`v.FindMember(k) != v.MemberEnd()`) is ambiguous under C++20's reversed operators and clang 14 warns
// (-Wambiguous-reversed-operator); indexing needs no iterator comparison at all.
const JValue* find_member(const JValue& obj, std::string_view key) {
  if (!obj.IsObject()) return nullptr;
  const auto members = obj.MemberBegin();
  for (SizeType i = obj.MemberCount(); i-- > 0;) {
    const auto& m = members[i];
    if (text_of(m.name) == key) return &m.value;
  }
  return nullptr;
}

namespace {

// Numbers. RapidJSON 1.1.0's own full-precision conversion (kParseFullPrecisionFlag, StrtodFullPrecision) is not
// safe on hostile input: "459.1335567417496687507380771823564e-347" reads out of bounds of its power-of-ten
// table (SIGSEGV), "1037747886482800954818827e293" comes back as -3.2e-300 instead of overflowing, and some
// inputs trip an assert inside a noexcept function (std::terminate); fixed upstream after 1.1.0, which is what
// Debian ships. So RapidJSON only checks the number grammar (kParseNumbersAsStringsFlag hands over the token)
// and the value is formed here, with nlohmann's rules: an integer literal that fits int64 / uint64 stays an
// integer (schema_version must be one); everything else is a double, correctly rounded: exactly, in one
// IEEE operation, when the significand is <= 2^53 and the power of ten within 10^+-22 (every number of the
// bundled snapshot but 5 of 11,202), otherwise by strtod, as nlohmann did.
struct JsonNumber {
  enum Kind { kUint, kInt, kDouble } kind = kDouble;
  uint64_t u = 0;
  int64_t i = 0;
  double d = 0;
};

JsonNumber read_number(const char* s, size_t n) {  // s[0, n) matches the JSON number grammar
  JsonNumber r;
  const bool neg = n > 0 && s[0] == '-';
  size_t k = neg ? 1 : 0;
  bool integer_literal = true;
  for (size_t j = k; j < n; ++j)
    if (s[j] == '.' || s[j] == 'e' || s[j] == 'E') integer_literal = false;
  if (integer_literal) {
    uint64_t v = 0;
    bool overflow = false;
    for (size_t j = k; j < n && !overflow; ++j) {
      const unsigned dg = static_cast<unsigned>(s[j] - '0');
      if (v > (UINT64_MAX - dg) / 10) overflow = true;
      else v = v * 10 + dg;
    }
    if (!overflow && !neg) {
      r.kind = JsonNumber::kUint;
      r.u = v;
      return r;
    }
    if (!overflow && v <= static_cast<uint64_t>(INT64_MAX) + 1) {
      r.kind = JsonNumber::kInt;
      r.i = v == static_cast<uint64_t>(INT64_MAX) + 1 ? INT64_MIN : -static_cast<int64_t>(v);
      return r;
    }
    // Beyond 64 bits: a double, as in nlohmann.
  }
  // value = significand (digits without the point, leading zeros dropped, trailing zeros held back) x 10^e10
  uint64_t mant = 0;
  int digits = 0, held_zeros = 0, e10 = 0;
  bool exact = true, frac = false;
  for (; k < n && s[k] != 'e' && s[k] != 'E'; ++k) {
    if (s[k] == '.') {
      frac = true;
      continue;
    }
    if (frac) --e10;
    const unsigned dg = static_cast<unsigned>(s[k] - '0');
    if (dg == 0) {
      if (digits > 0) ++held_zeros;
      continue;
    }
    digits += held_zeros + 1;
    if (digits > 19) {
      exact = false;
      break;
    }
    for (; held_zeros > 0; --held_zeros) mant *= 10;
    mant = mant * 10 + dg;
  }
  e10 += held_zeros;
  if (exact) {
    int ex = 0;
    bool ex_neg = false;
    if (k < n) {  // s[k] is 'e' or 'E'
      ++k;
      if (k < n && (s[k] == '+' || s[k] == '-')) ex_neg = s[k++] == '-';
      for (; k < n; ++k) ex = std::min(ex * 10 + (s[k] - '0'), 100000);
    }
    e10 += ex_neg ? -ex : ex;
    static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (mant == 0) {
      r.d = neg ? -0.0 : 0.0;
      return r;
    }
    if (mant <= (uint64_t{1} << 53) && e10 >= -22 && e10 <= 22) {
      const double m = static_cast<double>(mant);  // exact
      const double v = e10 < 0 ? m / kPow10[-e10] : m * kPow10[e10];
      r.d = neg ? -v : v;
      return r;
    }
  }
  // The rare rest: strtod, correctly rounded. It reads the locale's decimal point, so, like nlohmann, hand it
  // that.
  std::string token(s, n);
  const char point = *std::localeconv()->decimal_point;
  if (point != '.') std::replace(token.begin(), token.end(), '.', point);
  r.d = std::strtod(token.c_str(), nullptr);
  return r;
}

// Forwards RapidJSON's SAX events to the Document, forming numbers (read_number) and refusing what nlohmann
// refused and RapidJSON 1.1.0 lets through:
//  - a number that overflows a double (nlohmann: "number overflow"); RapidJSON's grammar check catches most;
//  - a lone low surrogate escape (\uDC00..\uDFFF not preceded by a high one), which RapidJSON encodes as the
//    invalid UTF-8 bytes ED B0..BF xx. Raw surrogate bytes are refused by kParseValidateEncodingFlag and a
//    lone high surrogate by RapidJSON itself, so ED A0..BF in a decoded string can only come from there.
struct CheckedHandler {
  rapidjson::Document& d;
  const char* refused = nullptr;  // why the handler stopped the parse
  static bool has_surrogate(const char* s, SizeType n) {
    for (SizeType i = 0; i + 1 < n; ++i)
      if (static_cast<unsigned char>(s[i]) == 0xED && static_cast<unsigned char>(s[i + 1]) >= 0xA0) return true;
    return false;
  }
  bool Null() { return d.Null(); }
  bool Bool(bool b) { return d.Bool(b); }
  // Not called with kParseNumbersAsStringsFlag; kept for the Handler concept.
  bool Int(int i) { return d.Int(i); }
  bool Uint(unsigned u) { return d.Uint(u); }
  bool Int64(int64_t i) { return d.Int64(i); }
  bool Uint64(uint64_t u) { return d.Uint64(u); }
  bool Double(double x) { return d.Double(x); }
  bool RawNumber(const char* s, SizeType n, bool) {
    const JsonNumber v = read_number(s, n);
    if (v.kind == JsonNumber::kUint) return d.Uint64(v.u);
    if (v.kind == JsonNumber::kInt) return d.Int64(v.i);
    if (!std::isfinite(v.d)) {
      refused = "Number too big to be stored in double.";
      return false;
    }
    return d.Double(v.d);
  }
  bool String(const char* s, SizeType n, bool copy) {
    if (has_surrogate(s, n)) {
      refused = "The surrogate pair in string is invalid.";
      return false;
    }
    return d.String(s, n, copy);
  }
  bool StartObject() { return d.StartObject(); }
  bool Key(const char* s, SizeType n, bool copy) { return String(s, n, copy); }
  bool EndObject(SizeType n) { return d.EndObject(n); }
  bool StartArray() { return d.StartArray(); }
  bool EndArray(SizeType n) { return d.EndArray(n); }
};

// Strict RFC 8259, as nlohmann's parser was: UTF-8 validated, no comments, NaN or trailing commas; iterative
// (no recursion: the parser's stack is on the heap, and the depth check already ran); numbers as above.
constexpr unsigned kParseFlags =
    rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag;

}  // namespace

bool parse_json(std::string_view text, rapidjson::Document* doc, std::string* why) {
  // A UTF-8 byte order mark is skipped, as nlohmann did. RapidJSON's own BOM skipping (EncodedInputStream)
  // would also skip a partial mark, which nlohmann refused, so it is done here and the bare stream is parsed.
  size_t skipped = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    text.remove_prefix(3);
    skipped = 3;
  }
  rapidjson::MemoryStream in(text.data(), text.size());
  rapidjson::Reader reader;
  rapidjson::ParseResult result;
  const char* refused = nullptr;
  // Pure ASCII (every snapshot the importer writes) cannot hold invalid UTF-8: RapidJSON's per-character
  // validation, a fifth of the parse in the browser's baseline wasm tier, is then skipped. Escapes (\uXXXX,
  // surrogates) are checked either way.
  const bool ascii = std::all_of(text.begin(), text.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x80; });
  auto generate = [&](rapidjson::Document& d) {
    CheckedHandler h{d};
    result = ascii ? reader.Parse<kParseFlags & ~rapidjson::kParseValidateEncodingFlag>(in, h)
                   : reader.Parse<kParseFlags>(in, h);
    refused = h.refused;
    return !result.IsError();
  };
  doc->Populate(generate);
  if (!result.IsError()) return true;
  std::string reason = refused ? refused : rapidjson::GetParseError_En(result.Code());
  if (!reason.empty() && reason.back() == '.') reason.pop_back();
  *why = reason + " at byte " + std::to_string(result.Offset() + skipped);
  return false;
}

bool json_nesting_exceeds(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char ch : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (ch == '\\') escaped = true;
      else if (ch == '"') in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > max_depth) return true;
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace trainfit::jsonr
