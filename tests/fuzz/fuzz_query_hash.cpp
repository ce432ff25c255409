// libFuzzer target: the URL-hash parser (shared links). Any text gives a query or an error; a query that
// parses survives the round trip parse(to_hash(q)) == q, compared through the full JSON form, and its link
// stays within the parser's own length limit.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "trainfit/query/query.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The part parser (each key on its own; the CLI's --hash / --query under its flags): a query or an error, and
  // a part's JSON, parsed whole, gives a query or an error with a message. A whole query is a part too.
  trainfit::Result<trainfit::Query> part = trainfit::parse_query_hash_part(text);
  if (!part && part.error().message.empty()) std::abort();
  trainfit::Result<trainfit::Query> finished = part ? trainfit::parse_query_json(trainfit::query_to_json(*part))
                                                     : trainfit::Result<trainfit::Query>(part.error());
  if (part && !finished && finished.error().message.empty()) std::abort();
  trainfit::Result<trainfit::Query> q = trainfit::parse_query_hash(text);
  if (!q) {
    if (q.error().message.empty()) std::abort();
    return 0;
  }
  // Parsed whole, the part gives the same query.
  if (!finished || trainfit::query_to_json(*finished, true) != trainfit::query_to_json(*q, true)) std::abort();
  const std::string hash = trainfit::query_to_hash(*q);
  trainfit::Result<trainfit::Query> back = trainfit::parse_query_hash(hash);
  if (!back) std::abort();  // our own link must parse
  if (trainfit::query_to_json(*back, true) != trainfit::query_to_json(*q, true)) std::abort();
  if (trainfit::query_to_hash(*back) != hash) std::abort();
  return 0;
}
