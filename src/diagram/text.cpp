#include "diagram/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <stdexcept>

namespace nndna::diagram::detail {

std::string trim(std::string_view s) {
  const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return std::string(s);
}

namespace {

// How far `line` moves the depth of round and square brackets, skipping literals and a `//`
// comment.
int bracketBalance(std::string_view line) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    else if (c == '/' && i + 1 < line.size() && line[i + 1] == '/') break;
    else if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') --depth;
  }
  return depth;
}

}  // namespace

std::string statementAt(const std::vector<std::string_view>& lines, std::size_t first, std::size_t maxLines) {
  if (first >= lines.size()) return "";
  std::string text = trim(lines[first]);
  int depth = bracketBalance(lines[first]);
  for (std::size_t i = first + 1; depth > 0 && i < lines.size() && i < first + maxLines; ++i) {
    const std::string next = trim(lines[i]);
    if (next.empty()) break;
    // No space inside an opening bracket: `m.b(` + `x))` reads `m.b(x))`.
    if (!text.empty() && text.back() != '(' && text.back() != '[') text += ' ';
    text += next;
    depth += bracketBalance(lines[i]);
  }
  return text;
}

std::size_t characterCount(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const auto pos = s.find(sep);
    out.push_back(s.substr(0, pos));
    if (pos == std::string_view::npos) break;
    s.remove_prefix(pos + 1);
  }
  return out;
}

bool isListIndex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

std::string escapeHtmlLabel(std::string_view s) {
  // escapeXml on the whole text: it checks UTF-8 sequences, which byte by byte would all fail.
  const std::string escaped = escapeXml(s);
  std::string out;
  out.reserve(escaped.size());
  for (char c : escaped) {
    switch (c) {
      case '[': out += "&#91;"; break;
      case ']': out += "&#93;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string escapeDotString(std::string_view s) {
  // Graphviz copies a DOT string into the SVG, escaping markup but not control characters or
  // bytes that are not UTF-8: cleaned here.
  std::string out;
  out.reserve(s.size());
  for (char c : render::cleanText(s)) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

std::string wrapForLabel(std::string_view text, std::size_t maxChars) {
  std::vector<std::string> tokens;
  std::string buf;
  for (char ch : text) {
    // A dot after a name (`m.fc`) may end a line, as in the seed; a designated initializer's
    // (`{.stride = 2, .padding = 1}`) stays with its field's name.
    // (A token ends at a space, comma or parenthesis, so the buffer is empty after those.)
    const bool memberDot = ch == '.' && !buf.empty() && buf.back() != '{';
    buf += ch;
    if (ch == ' ' || ch == ',' || ch == '(' || memberDot) {
      tokens.push_back(std::move(buf));
      buf.clear();
    }
  }
  if (!buf.empty()) tokens.push_back(std::move(buf));
  const auto trimEnd = [](std::string s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  };
  const auto trimStart = [](const std::string& s) {
    std::size_t i = 0;
    while (i < s.size() && s[i] == ' ') ++i;
    return s.substr(i);
  };
  std::vector<std::string> lines;
  std::string line;
  for (const std::string& t : tokens) {
    // A line starts at a word: the rest of a run of spaces (a comment aligned far to the right)
    // that a wrap fell in is dropped, not carried to the next line as indentation.
    if (trim(line).empty() && t.find_first_not_of(' ') == std::string::npos) continue;
    if (line.size() + t.size() > maxChars && !line.empty()) {
      lines.push_back(trimEnd(line));
      line = trimStart(t);
    } else {
      line += t;
    }
  }
  if (!trim(line).empty()) lines.push_back(trimEnd(line));
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i) out += "<BR/>";
    out += escapeHtmlLabel(lines[i]);
  }
  return out;
}

namespace {

// isspace in the C locale.
bool isSpaceC(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// A line that ends in a comment holding only a bracketed list, `code  // [B, T, D]`: the code
// before the comment's first `//` that is followed by nothing but such a list (its spaces
// dropped), and the list's text. The pattern ^(.*?)\s*//\s*\[([^\]]*)\]\s*$ as std::regex_match
// reads it, without std::regex (its matcher showed in the command's profile); the code holds no
// line break, as the pattern's `.` matches none.
struct ShapeComment {
  std::string_view code;
  std::string_view list;
};
std::optional<ShapeComment> trailingShapeComment(std::string_view src) {
  for (std::size_t slashes = src.find("//"); slashes != std::string_view::npos;
       slashes = src.find("//", slashes + 1)) {
    std::size_t i = slashes + 2;
    while (i < src.size() && isSpaceC(src[i])) ++i;
    if (i == src.size() || src[i] != '[') continue;
    const std::size_t close = src.find(']', i + 1);
    if (close == std::string_view::npos) continue;
    std::size_t end = close + 1;
    while (end < src.size() && isSpaceC(src[end])) ++end;
    if (end != src.size()) continue;
    std::size_t codeEnd = slashes;
    while (codeEnd > 0 && isSpaceC(src[codeEnd - 1])) --codeEnd;
    const std::string_view code = src.substr(0, codeEnd);
    if (code.find_first_of("\n\r") != std::string_view::npos) return std::nullopt;
    return ShapeComment{code, src.substr(i + 1, close - i - 1)};
  }
  return std::nullopt;
}

}  // namespace

std::string stripRedundantShapeComment(const std::string& src,
                                       const std::vector<std::string>& names) {
  const std::optional<ShapeComment> comment = trailingShapeComment(src);
  if (!comment) return src;
  std::vector<std::string> dims;
  for (std::string_view d : split(comment->list, ',')) {
    std::string t = trim(d);
    if (!t.empty()) dims.push_back(std::move(t));
  }
  if (dims != names) return src;
  return std::string(comment->code);
}

// A legal spec can count past 64 bits (a width of 10^8 gives 10^18 FLOPs per matmul): the user's
// to fix, so the server answers 422, not 500.
constexpr std::string_view kTooLargeToCount =
    ": the model's parameter, FLOP or memory counts pass 2^63 (about 9.2·10^18); draw it with smaller sizes";

std::int64_t checkedAdd(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    throw std::overflow_error(fmt::format("{} + {} overflows 64 bits{}", a, b, kTooLargeToCount));
  }
  return r;
}

std::int64_t checkedMul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    throw std::overflow_error(fmt::format("{} * {} overflows 64 bits{}", a, b, kTooLargeToCount));
  }
  return r;
}

}  // namespace nndna::diagram::detail
