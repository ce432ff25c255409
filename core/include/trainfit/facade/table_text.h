// trainfit core — documents as text tables: CSV, Markdown and fixed width, and the ranked rows' one writer (what
// `trainfit rank --format csv | markdown | table` prints). The page's copy buttons keep a writer of their own (app/
// src/ui_results.cpp): linking this one into the web module costs the first-visit payload ~6 KB gzip.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace trainfit {

struct TextTable {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right;  // right-aligned (numeric) columns: fixed-width and Markdown alignment
};

// RFC 4180 CSV (cells with a comma, quote or newline quoted), one header line.
std::string table_csv(const TextTable& t);
// A GitHub-flavoured Markdown table ("|" in a cell escaped).
std::string table_markdown(const TextTable& t);
// Columns padded to their widest cell, numbers right-aligned, a rule under the header.
std::string table_fixed(const TextTable& t);
// "csv", "markdown", anything else: fixed width.
std::string render_text_table(const TextTable& t, std::string_view format);

// Cells as the tables print them: a number of hours (%.2f under 10, else %.1f), dollars (%.2f under 100, else
// %.0f), bytes as GiB (%.2f); "-" when the document has no number there.
std::string text_hours_of_seconds(const nlohmann::json& seconds);
std::string text_usd(const nlohmann::json& usd);
std::string text_gib(const nlohmann::json& bytes);
// An offer's data-quality flags: their names (CSV) or one-letter codes explained by flag_legend (other formats).
std::string text_flags(const nlohmann::json& flags, std::string_view format);
std::string flag_legend(const nlohmann::json& rank_doc);

// The rank document's rows, in the document's order, as every surface writes them. CSV adds the offer id (what
// `trainfit plan / cost / recipe --offer` take) as its last column.
TextTable rank_text_table(const nlohmann::json& rank_doc, std::string_view format);
// rank_text_table as CSV ("markdown": Markdown followed by its flag legend): exactly the CLI's --format csv /
// markdown output. (The fixed-width table, with its summary lines, is the CLI's own: render_text_table.)
std::string rank_rows_text(const nlohmann::json& rank_doc, std::string_view format);

}  // namespace trainfit
