#include "render/escape.hpp"

namespace nndna::render {

namespace {

// The length of the valid UTF-8 sequence at the start of `text` (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF), or 0 if its first byte starts none.
std::size_t utf8Length(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80;  // the second byte's range
  unsigned char high = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) low = 0xA0;
    if (b0 == 0xED) high = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) low = 0x90;
    if (b0 == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (text.size() < length || byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

// Calls emit(sequence) for each valid UTF-8 sequence of `text` and invalid(byte) for each byte
// that starts none.
template <class Emit, class Invalid>
void forEachCharacter(std::string_view text, Emit emit, Invalid invalid) {
  while (!text.empty()) {
    const std::size_t length = utf8Length(text);
    if (length == 0) {
      invalid(static_cast<unsigned char>(text.front()));
      text.remove_prefix(1);
    } else {
      emit(text.substr(0, length));
      text.remove_prefix(length);
    }
  }
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool isKeptControl(char c) { return c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

std::string cleanText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  forEachCharacter(
      text,
      [&](std::string_view ch) {
        const auto c = static_cast<unsigned char>(ch.front());
        if (ch.size() == 1 && c < 0x20 && !isKeptControl(ch.front())) {
          // U+2400 + c, in UTF-8: E2 90 (80 + c).
          out += "\xE2\x90";
          out += static_cast<char>(0x80 + c);
        } else {
          out += ch;
        }
      },
      [&](unsigned char) { out += kReplacement; });
  return out;
}

std::string escapeXml(std::string_view text) {
  const std::string clean = cleanText(text);
  std::string out;
  out.reserve(clean.size());
  for (char c : clean) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string escapeJsonForScript(std::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 16);
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xe2' && i + 2 < json.size() && json[i + 1] == '\x80' &&
               (json[i + 2] == '\xa8' || json[i + 2] == '\xa9')) {
      out += json[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string escapeForTerminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto hex = [&](unsigned char b) {
    constexpr std::string_view kDigits = "0123456789abcdef";
    out += "\\x";
    out += kDigits[b >> 4];
    out += kDigits[b & 0xF];
  };
  forEachCharacter(
      text,
      [&](std::string_view ch) {
        const auto c0 = static_cast<unsigned char>(ch.front());
        if (ch.size() == 1 && (c0 < 0x20 || c0 == 0x7F) && ch.front() != '\n' && ch.front() != '\t') {
          hex(c0);
        } else if (ch.size() == 2 && c0 == 0xC2 && static_cast<unsigned char>(ch[1]) < 0xA0) {
          for (char b : ch) hex(static_cast<unsigned char>(b));  // a C1 control, U+0080-U+009F
        } else {
          out += ch;
        }
      },
      hex);
  return out;
}

}  // namespace nndna::render
