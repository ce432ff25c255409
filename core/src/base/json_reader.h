// trainfit core — strict JSON reading for the documents read at page load or in bulk: the snapshot's JSON form
// (snapshot_json_*.cpp), its text sidecar (snapshot_text.cpp), the snapshot manifest (snapshot_manifest.cpp) and model
// objects (model_presets.cpp); plus the nesting check every JSON input goes through first (queries too,
// query_json.cpp). Internal to the core: not installed with trainfit/*.h.
//
// One JSON library: nlohmann::json parses (its SAX interface, sax_parse), and a compact, read-only tree is built
// here instead of nlohmann's DOM. Why not the DOM: a std::map per object costs ~2x the parse time in the browser's
// baseline wasm tier (the 218 KB snapshot took ~100 ms), and it sorts an object's keys and keeps one of duplicate
// keys, while the readers report the first unknown key in document order and refuse a provider listed twice. The
// tree: values of 16 bytes (wasm32) in one arena owned by the Document, members in document order, duplicates kept;
// `find_member` gives the last of duplicate keys (the value nlohmann's DOM would have kept).
// The rules are nlohmann's, since it is nlohmann's parser: strict RFC 8259, UTF-8 validated, a UTF-8 byte order
// mark skipped, integers that fit 64 bits stay integers, other numbers correctly rounded doubles (a number that
// overflows a double is an error).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace trainfit::jsonr {

using SizeType = uint32_t;

enum Type : uint8_t { kNullType, kFalseType, kTrueType, kObjectType, kArrayType, kStringType, kNumberType };

struct JMember;

// One value of a parsed Document. Accessors follow RapidJSON's names (the readers were written against them); a
// call that does not fit the value's type (GetDouble() on a string, a member of an array) throws std::logic_error,
// which every reader's catch turns into its "internal error" message: a reader bug never aborts the page.
class JValue {
 public:
  Type GetType() const { return type_; }
  bool IsNull() const { return type_ == kNullType; }
  bool IsBool() const { return type_ == kFalseType || type_ == kTrueType; }
  bool IsObject() const { return type_ == kObjectType; }
  bool IsArray() const { return type_ == kArrayType; }
  bool IsString() const { return type_ == kStringType; }
  bool IsNumber() const { return type_ == kNumberType; }
  // Integers: a literal without fraction or exponent that fits 64 bits (nlohmann's is_number_integer()).
  bool IsUint64() const { return type_ == kNumberType && num_ == kUint; }
  bool IsInt64() const { return type_ == kNumberType && (num_ == kInt || (num_ == kUint && u_ <= INT64_MAX)); }
  bool IsInt() const {
    return type_ == kNumberType && ((num_ == kInt && i_ >= INT32_MIN) || (num_ == kUint && u_ <= INT32_MAX));
  }
  bool IsDouble() const { return type_ == kNumberType && num_ == kDouble; }

  bool GetBool() const { return expect(IsBool(), "GetBool on a non-boolean"), type_ == kTrueType; }
  int GetInt() const { return expect(IsInt(), "GetInt on a value that is not a 32-bit integer"), static_cast<int>(GetInt64()); }
  int64_t GetInt64() const {
    expect(IsInt64(), "GetInt64 on a value that is not a 64-bit signed integer");
    return num_ == kInt ? i_ : static_cast<int64_t>(u_);
  }
  uint64_t GetUint64() const { return expect(IsUint64(), "GetUint64 on a value that is not an unsigned integer"), u_; }
  double GetDouble() const {  // any number, as RapidJSON's
    expect(IsNumber(), "GetDouble on a non-number");
    return num_ == kDouble ? d_ : num_ == kInt ? static_cast<double>(i_) : static_cast<double>(u_);
  }
  const char* GetString() const { return expect(IsString(), "GetString on a non-string"), str_; }
  SizeType GetStringLength() const { return expect(IsString(), "GetStringLength on a non-string"), n_; }

  // Arrays.
  SizeType Size() const { return expect(IsArray(), "Size on a non-array"), n_; }
  bool Empty() const { return Size() == 0; }
  const JValue& operator[](SizeType i) const {
    expect(IsArray() && i < n_, "array index out of range");
    return items_[i];
  }
  // Objects: members in document order, duplicate keys included.
  SizeType MemberCount() const { return expect(IsObject(), "MemberCount on a non-object"), n_; }
  const JMember* MemberBegin() const { return expect(IsObject(), "MemberBegin on a non-object"), members_; }
  const JMember* MemberEnd() const;

 private:
  friend class Document;
  friend struct Builder;
  static void expect(bool ok, const char* what) {
    if (!ok) fail(what);
  }
  [[noreturn]] static void fail(const char* what);  // throws std::logic_error (out of line: keeps callers small)
  enum Num : uint8_t { kUint, kInt, kDouble };
  Type type_ = kNullType;
  Num num_ = kUint;
  SizeType n_ = 0;  // string bytes, array items, object members
  union {
    uint64_t u_ = 0;
    int64_t i_;
    double d_;
    const char* str_;  // arena bytes, n_ long, NUL after them (an escaped \u0000 inside is kept)
    const JValue* items_;
    const JMember* members_;
  };
};

struct JMember {
  JValue name;  // a string
  JValue value;
};

inline const JMember* JValue::MemberEnd() const { return MemberBegin() + n_; }

// A parsed document: its root value, and the arena that holds every value, member and string of it.
class Document : public JValue {
 public:
  Document();
  ~Document();
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;
  // Bytes of `n` (8-aligned), valid as long as the Document.
  void* allocate(size_t n);

 private:
  std::vector<std::unique_ptr<unsigned char[]>> blocks_;
  unsigned char* free_ = nullptr;
  size_t left_ = 0;
  size_t next_block_ = 16 * 1024;
};

// Parses `text` into `doc`; on failure returns false and says why and where, in nlohmann's words without the token
// it last read, e.g. "line 1, column 1323: syntax error while parsing object key - invalid string: missing closing
// quote; expected string literal".
bool parse_json(std::string_view text, Document* doc, std::string* why);

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
