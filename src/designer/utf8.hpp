// Texts from outside (an endpoint's answers and errors, compiler output about a model's code) may
// hold any bytes; everything the designer emits is valid UTF-8, so that an event or a trace can
// always be written as JSON (nlohmann::json::dump throws on invalid UTF-8).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace nndna::designer {

// `text` with each invalid UTF-8 sequence (a stray continuation byte, a truncated, overlong or
// surrogate sequence, a code point past U+10FFFF) replaced by U+FFFD, one per maximal invalid
// prefix as the Unicode standard recommends.
std::string validUtf8(std::string_view text);

// The longest prefix of `text` of at most `maxBytes` bytes that does not end inside a character.
std::string_view utf8Prefix(std::string_view text, std::size_t maxBytes);

}  // namespace nndna::designer
