// A streaming CBOR writer (RFC 8949): the IR's JSON document in binary, token for token, for the
// spec program to hand nndna (ir::writeCbor). Nothing is escaped or lexed: a quarter smaller than
// the text and read in about 0.6 of its time (docs/ir.md, "The CBOR form").
//
// Objects and arrays whose length is not known when they open are written with indefinite
// lengths and closed by a break; arrays given whole, with their count. Text strings are UTF-8
// with each byte that starts no valid sequence replaced by U+FFFD, and a number that is not
// finite is written as null, both as JsonWriter does: the two forms read back to the same values.
// Given a sink, it hands the bytes over in pieces of about kSinkChunkBytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "nndna/export.hpp"

namespace nndna::ir {

// Exported (NNDNA_API) for tests/core/ir_cbor_test.cpp, which checks its bytes.
class NNDNA_API CborWriter {
 public:
  // Receives the bytes in order, in pieces; a piece is valid only during the call.
  using Sink = std::function<void(std::string_view)>;
  static constexpr std::size_t kSinkChunkBytes = std::size_t{1} << 20;

  // Without a sink the whole document is kept (take()); with one, call finish() at the end.
  explicit CborWriter(Sink sink = {});

  void beginObject();
  void endObject();
  void beginArray();
  void endArray();

  // The next member's key (inside an object); its value follows.
  void key(std::string_view k);

  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(std::int64_t v);
  void value(std::int32_t v) { value(static_cast<std::int64_t>(v)); }
  void value(std::uint64_t v);
  void value(double v);
  void value(bool v);
  void null();
  void value(std::span<const std::int64_t> values);
  void value(std::span<const std::int32_t> values);
  void value(std::span<const std::string> values);

  // Members in one call: key(k); value(v).
  template <class T>
  void member(std::string_view k, const T& v) {
    key(k);
    value(v);
  }

  void reserve(std::size_t bytes) { out_.reserve(bytes); }
  std::string take() { return std::move(out_); }
  // Hands what is left to the sink (with a sink; without one it does nothing).
  void finish();

 private:
  // Before each item: with a sink, a full chunk is handed over first.
  void startItem();
  // An item's head: its major type and its argument (a count, a length or an integer).
  void head(std::uint8_t major, std::uint64_t argument);
  void text(std::string_view s);
  // A signed integer: major type 0, or 1 for a negative one.
  void integer(std::int64_t v);
  template <class Int>
  void integers(std::span<const Int> values);

  std::string out_;
  Sink sink_;
};

}  // namespace nndna::ir
