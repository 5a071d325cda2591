#include "ir/json_writer.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iterator>

#include "ir/utf8.hpp"

namespace nndna::ir {

JsonWriter::JsonWriter(int indent, Sink sink) : indent_(indent), sink_(std::move(sink)) {
  // A chunk's worth plus the longest token that can follow it (a source text, at most a few MB,
  // grows the buffer once).
  if (sink_) out_.reserve(kSinkChunkBytes + (kSinkChunkBytes >> 2));
}

void JsonWriter::finish() {
  if (sink_ && !out_.empty()) sink_(out_);
  out_.clear();
}

// std::to_chars: the same digits as fmt's "{}", without its formatting machinery (38% of the
// writer's time on a 200k-op IR went to formatting integers through fmt).
template <class Int>
void JsonWriter::integer(Int v) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v);
  out_.append(digits, end);
}

void JsonWriter::newline(std::size_t depth) {
  if (indent_ < 0) return;
  out_ += '\n';
  out_.append(depth * static_cast<std::size_t>(indent_), ' ');
}

void JsonWriter::separate() {
  if (sink_ && out_.size() >= kSinkChunkBytes) {
    sink_(out_);
    out_.clear();
  }
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (levels_.empty()) return;
  Level& level = levels_.back();
  if (!level.empty) out_ += ',';
  level.empty = false;
  newline(levels_.size());
}

void JsonWriter::open(char bracket, bool object) {
  separate();
  out_ += bracket;
  levels_.push_back({object});
}

void JsonWriter::close(char bracket) {
  const bool empty = levels_.back().empty;
  levels_.pop_back();
  if (!empty) newline(levels_.size());
  out_ += bracket;
}

void JsonWriter::key(std::string_view k) {
  separate();
  writeString(k);
  out_ += indent_ < 0 ? ":" : ": ";
  afterKey_ = true;
}

void JsonWriter::value(std::string_view s) {
  separate();
  writeString(s);
}

void JsonWriter::value(std::int64_t v) {
  separate();
  integer(v);
}

void JsonWriter::value(std::uint64_t v) {
  separate();
  integer(v);
}

void JsonWriter::value(double v) {
  separate();
  if (!std::isfinite(v)) {
    out_ += "null";
    return;
  }
  // fmt's default is the shortest representation that reads back exactly, except -0.0: "-0"
  // reads back as the integer 0.
  if (v == 0.0 && std::signbit(v)) {
    out_ += "-0.0";
    return;
  }
  fmt::format_to(std::back_inserter(out_), "{}", v);
}

void JsonWriter::value(bool v) {
  separate();
  out_ += v ? "true" : "false";
}

void JsonWriter::null() {
  separate();
  out_ += "null";
}

template <class Int>
void JsonWriter::integers(std::span<const Int> values) {
  separate();
  out_ += '[';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out_ += indent_ < 0 ? "," : ", ";
    integer(values[i]);
  }
  out_ += ']';
}

void JsonWriter::value(std::span<const std::int64_t> values) { integers(values); }
void JsonWriter::value(std::span<const std::int32_t> values) { integers(values); }

void JsonWriter::value(std::span<const std::string> values) {
  separate();
  out_ += '[';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out_ += indent_ < 0 ? "," : ", ";
    writeString(values[i]);
  }
  out_ += ']';
}


void JsonWriter::writeString(std::string_view s) {
  out_ += '"';
  std::size_t i = 0;
  while (i < s.size()) {
    // A run of printable ASCII that needs no escape is copied in one piece (names, most text).
    std::size_t run = i;
    while (run < s.size()) {
      const auto r = static_cast<unsigned char>(s[run]);
      if (r < 0x20 || r >= 0x80 || r == '"' || r == '\\') break;
      ++run;
    }
    if (run > i) {
      out_.append(s.substr(i, run - i));
      i = run;
      continue;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out_ += "\\\""; ++i; continue;
      case '\\': out_ += "\\\\"; ++i; continue;
      case '\n': out_ += "\\n"; ++i; continue;
      case '\r': out_ += "\\r"; ++i; continue;
      case '\t': out_ += "\\t"; ++i; continue;
      case '\b': out_ += "\\b"; ++i; continue;
      case '\f': out_ += "\\f"; ++i; continue;
      default: break;
    }
    if (c < 0x20) {
      fmt::format_to(std::back_inserter(out_), "\\u{:04x}", c);
      ++i;
      continue;
    }
    const std::size_t n = utf8SequenceLength(s, i);
    if (n == 0) {
      out_ += "\xEF\xBF\xBD";  // U+FFFD for each byte that starts no valid sequence
      ++i;
      continue;
    }
    out_.append(s.substr(i, n));
    i += n;
  }
  out_ += '"';
}

}  // namespace nndna::ir
