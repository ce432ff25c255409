// trainfit core — strict JSON reading: nlohmann's SAX parser building a compact tree (json_reader.h says why).
#include "base/json_reader.h"

#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

namespace trainfit::jsonr {

// The type names nlohmann::json::type_name() gives, so messages read as they do for every other JSON input.
const char* type_name(const JValue& v) {
  switch (v.GetType()) {
    case kNullType: return "null";
    case kFalseType:
    case kTrueType: return "boolean";
    case kObjectType: return "object";
    case kArrayType: return "array";
    case kStringType: return "string";
    case kNumberType: return "number";
  }
  return "null";
}

// Member `key` of an object (nullptr if absent or not an object). With duplicate keys the LAST one wins, as in
// nlohmann's DOM (whose parser assigned each member in turn), hence the search from the end.
const JValue* find_member(const JValue& obj, std::string_view key) {
  if (!obj.IsObject()) return nullptr;
  const JMember* members = obj.MemberBegin();
  for (SizeType i = obj.MemberCount(); i-- > 0;) {
    const JMember& m = members[i];
    if (text_of(m.name) == key) return &m.value;
  }
  return nullptr;
}

void JValue::fail(const char* what) { throw std::logic_error(std::string("JSON reader precondition failed: ") + what); }

Document::Document() = default;
Document::~Document() = default;

void* Document::allocate(size_t n) {
  n = (n + 7) & ~size_t{7};
  if (n > left_) {
    // Blocks double up to 1 MiB, so a 20 MB snapshot costs a few dozen allocations; a larger request
    // (an array of a hundred thousand offer rows) gets a block of its own.
    const size_t size = std::max(n, next_block_);
    next_block_ = std::min<size_t>(next_block_ * 2, size_t{1} << 20);
    blocks_.emplace_back(new unsigned char[size]);
    free_ = blocks_.back().get();
    left_ = size;
  }
  void* p = free_;
  free_ += n;
  left_ -= n;
  return p;
}

// nlohmann's SAX events (nlohmann::json::sax_parse) into a Document. Values wait on a stack until their array or
// object closes; then they are moved into the arena in one block (an object's as name/value pairs).
struct Builder {
  using json = nlohmann::json;
  Document& doc;
  std::vector<JValue> stack;
  std::vector<size_t> open;  // where each open container's values start on the stack
  std::string error;
  size_t error_byte = 0;

  bool push(const JValue& v) {
    stack.push_back(v);
    return true;
  }
  bool null() { return push(JValue{}); }
  bool boolean(bool b) {
    JValue v;
    v.type_ = b ? kTrueType : kFalseType;
    return push(v);
  }
  bool number_integer(int64_t i) {  // nlohmann hands negative literals here ("-0" too: stored unsigned, as 0)
    JValue v;
    v.type_ = kNumberType;
    if (i >= 0) {
      v.num_ = JValue::kUint;
      v.u_ = static_cast<uint64_t>(i);
    } else {
      v.num_ = JValue::kInt;
      v.i_ = i;
    }
    return push(v);
  }
  bool number_unsigned(uint64_t u) {
    JValue v;
    v.type_ = kNumberType;
    v.num_ = JValue::kUint;
    v.u_ = u;
    return push(v);
  }
  bool number_float(double d, const std::string&) {
    JValue v;
    v.type_ = kNumberType;
    v.num_ = JValue::kDouble;
    v.d_ = d;
    return push(v);
  }
  bool string(std::string& s) { return push(make_string(s)); }
  bool key(std::string& s) { return push(make_string(s)); }
  bool binary(json::binary_t&) { return false; }  // not produced by the JSON format
  bool start_object(size_t) {
    open.push_back(stack.size());
    return true;
  }
  bool start_array(size_t) {
    open.push_back(stack.size());
    return true;
  }
  bool end_object() { return close(kObjectType); }
  bool end_array() { return close(kArrayType); }

  bool parse_error(size_t byte, const std::string& /*last_token*/, const nlohmann::detail::exception& e) {
    error = e.what();
    error_byte = byte;
    return false;
  }

  JValue make_string(const std::string& s) {
    if (s.size() > UINT32_MAX) throw std::length_error("a JSON string over 4 GiB");
    char* p = static_cast<char*>(doc.allocate(s.size() + 1));
    std::memcpy(p, s.data(), s.size());
    p[s.size()] = '\0';
    JValue v;
    v.type_ = kStringType;
    v.n_ = static_cast<SizeType>(s.size());
    v.str_ = p;
    return v;
  }
  bool close(Type t) {
    const size_t from = open.back();
    open.pop_back();
    const size_t values = stack.size() - from;
    JValue v;
    v.type_ = t;
    v.n_ = static_cast<SizeType>(t == kObjectType ? values / 2 : values);
    if (values > 0) {
      // JValue and JMember are trivially copyable: a block of the arena takes them as bytes.
      void* p = doc.allocate(values * sizeof(JValue));
      std::memcpy(p, stack.data() + from, values * sizeof(JValue));
      if (t == kObjectType) v.members_ = static_cast<const JMember*>(p);
      else v.items_ = static_cast<const JValue*>(p);
    }
    stack.resize(from);
    return push(v);
  }
};
static_assert(sizeof(JMember) == 2 * sizeof(JValue), "an object's members are its stacked name/value pairs");

// nlohmann's message without its exception id and without the token it last read ("; last read: '...'": bytes
// of untrusted input, possibly not UTF-8), e.g. "line 1, column 1323: syntax error while parsing object key -
// invalid string: missing closing quote; expected string literal"; where the message gives no line
// (a number that overflows a double), the byte offset is added.
std::string parse_problem(std::string what, size_t byte) {
  if (const size_t id = what.find("] "); what.rfind("[json.exception.", 0) == 0 && id != std::string::npos)
    what.erase(0, id + 2);
  if (what.rfind("parse error at ", 0) == 0) what.erase(0, 15);
  if (const size_t lr = what.find("; last read: '"); lr != std::string::npos) {
    const size_t expected = what.rfind("'; expected ");
    if (expected != std::string::npos && expected >= lr + 13) what.erase(lr, expected + 1 - lr);
    else what.erase(lr);
  }
  if (what.rfind("line ", 0) != 0) what += " at byte " + std::to_string(byte);
  if (what.size() > 200) what = what.substr(0, 197) + "...";
  return what;
}

bool parse_json(std::string_view text, Document* doc, std::string* why) {
  Builder b{*doc, {}, {}, {}, 0};
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(text.data(), text.data() + text.size(), &b, nlohmann::json::input_format_t::json,
                                   /*strict=*/true);
  } catch (const nlohmann::json::exception& e) {  // sax_parse reports through parse_error; kept as a backstop
    b.error = e.what();
  }
  if (!ok || b.stack.size() != 1 || !b.open.empty()) {
    *why = parse_problem(b.error.empty() ? std::string("incomplete document") : b.error, b.error_byte);
    return false;
  }
  static_cast<JValue&>(*doc) = b.stack.front();
  return true;
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
