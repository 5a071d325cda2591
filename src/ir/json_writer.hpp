// A streaming JSON writer: appends tokens to a string as they are given, with no document tree in
// between (a 1M-op IR would take ~1 GB as an nlohmann::json tree). Strings are escaped and
// invalid UTF-8 is replaced by U+FFFD, so the output is always valid JSON in valid UTF-8.
// Given a sink, it hands the text over in pieces of about kSinkChunkBytes instead of keeping it
// all (the spec child writes an 80 MB IR through one small buffer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nndna::ir {

class JsonWriter {
 public:
  // Receives the text in order, in pieces; a piece is valid only during the call.
  using Sink = std::function<void(std::string_view)>;
  // A sink is handed the text each time this much has collected (and the rest by finish()).
  static constexpr std::size_t kSinkChunkBytes = std::size_t{1} << 20;

  // indent < 0: compact; otherwise newlines and `indent` spaces per level (nlohmann's layout).
  // Without a sink the whole text is kept (text(), take()); with one, call finish() at the end.
  explicit JsonWriter(int indent = -1, Sink sink = {});

  void beginObject() { open('{', true); }
  void endObject() { close('}'); }
  void beginArray() { open('[', false); }
  void endArray() { close(']'); }

  // The next member's key (inside an object); its value follows.
  void key(std::string_view k);

  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(std::int64_t v);
  void value(std::int32_t v) { value(static_cast<std::int64_t>(v)); }
  void value(std::uint64_t v);
  // The shortest text that reads back as `v`; null when it is not finite (JSON has no infinity).
  void value(double v);
  void value(bool v);
  void null();
  // An array of integers on one line.
  void value(std::span<const std::int64_t> values);
  void value(std::span<const std::int32_t> values);
  // An array of strings on one line (a tensor's axis names).
  void value(std::span<const std::string> values);

  // Members in one call: key(k); value(v).
  template <class T>
  void member(std::string_view k, const T& v) {
    key(k);
    value(v);
  }

  // Room for `bytes` of output up front: a large document then grows without copying itself.
  void reserve(std::size_t bytes) { out_.reserve(bytes); }

  const std::string& text() const { return out_; }
  std::string take() { return std::move(out_); }
  // Hands what is left to the sink (with a sink; without one it does nothing).
  void finish();

 private:
  struct Level {
    bool object;
    bool empty = true;
  };
  void open(char bracket, bool object);
  void close(char bracket);
  // Before a value or a key: the comma and the line break it needs (and, with a sink, a full
  // chunk handed over first).
  void separate();
  void newline(std::size_t depth);
  void writeString(std::string_view s);
  template <class Int>
  void integers(std::span<const Int> values);
  template <class Int>
  void integer(Int v);

  std::string out_;
  int indent_;
  Sink sink_;
  std::vector<Level> levels_;
  bool afterKey_ = false;
};

}  // namespace nndna::ir
