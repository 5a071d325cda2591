// Text helpers of the diagram: trimming, escaping for each output context, label wrapping, and
// overflow-checked 64-bit arithmetic.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "render/escape.hpp"

namespace nndna::diagram::detail {

std::string trim(std::string_view s);
// Characters of UTF-8 text (continuation bytes do not count: "—", "·", "×"): its width in a
// monospace table, and what the page counts in a label.
std::size_t characterCount(std::string_view s);
std::vector<std::string_view> split(std::string_view s, char sep);
// All digits, at least one: a list index in a parameter path ("layers.3.fc.weight").
bool isListIndex(std::string_view s);

// Source line `first` (0-based) of `lines`, trimmed, joined with the lines after it while its round
// or square brackets stay open — a statement that a formatter wrapped over lines — up to
// `maxLines` lines in all. Brackets inside string and character literals and after `//` do not
// count; braces do not, so a function's head or a lambda's opening line ends at its own end.
std::string statementAt(const std::vector<std::string_view>& lines, std::size_t first, std::size_t maxLines);

// Text inside XML/HTML (element content or a quoted attribute), and JSON inside <script>: the
// escapers shared with xray's pages.
using render::escapeJsonForScript;
using render::escapeXml;
// Text inside a Graphviz HTML-like label: escapeXml, plus [ and ] as character references
// (Graphviz 2.43 rejects `]` right after a closing tag).
std::string escapeHtmlLabel(std::string_view s);
// A Graphviz double-quoted string: backslashes and quotes escaped, so `\n`, `\l` stay literal.
std::string escapeDotString(std::string_view s);

// Breaks a code line at spaces, commas, '(' and '.' into lines of at most maxChars (where
// possible), each escaped for an HTML-like label and joined by <BR/>.
std::string wrapForLabel(std::string_view text, std::size_t maxChars);

// "x = f(y); // [B, T, D]" -> "x = f(y);" when the comment's dims are the node's shape names.
std::string stripRedundantShapeComment(const std::string& src, const std::vector<std::string>& names);

// Overflow is an error, never a wrap: std::overflow_error, saying the model is too large to count.
std::int64_t checkedAdd(std::int64_t a, std::int64_t b);
std::int64_t checkedMul(std::int64_t a, std::int64_t b);

}  // namespace nndna::diagram::detail
