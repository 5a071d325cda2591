#include "ir/cbor_writer.hpp"

#include <bit>
#include <cmath>

#include "ir/utf8.hpp"

namespace nndna::ir {

namespace {
// Major types and simple values of RFC 8949, section 3.
constexpr std::uint8_t kUnsigned = 0;
constexpr std::uint8_t kNegative = 1;
constexpr std::uint8_t kText = 3;
constexpr std::uint8_t kArray = 4;
constexpr char kIndefiniteArray = '\x9F';
constexpr char kIndefiniteMap = '\xBF';
constexpr char kBreak = '\xFF';
constexpr char kFalse = '\xF4';
constexpr char kTrue = '\xF5';
constexpr char kNull = '\xF6';
constexpr char kFloat64 = '\xFB';
}  // namespace

CborWriter::CborWriter(Sink sink) : sink_(std::move(sink)) {
  if (sink_) out_.reserve(kSinkChunkBytes + (kSinkChunkBytes >> 2));
}

void CborWriter::finish() {
  if (sink_ && !out_.empty()) sink_(out_);
  out_.clear();
}

void CborWriter::startItem() {
  if (sink_ && out_.size() >= kSinkChunkBytes) {
    sink_(out_);
    out_.clear();
  }
}

void CborWriter::head(std::uint8_t major, std::uint64_t argument) {
  // Built whole and appended once: a document is mostly heads.
  char bytes[9];
  const auto initial = static_cast<unsigned char>(major << 5);
  if (argument < 24) {
    out_ += static_cast<char>(initial | argument);
    return;
  }
  // 24, 25, 26, 27: the argument follows in 1, 2, 4 or 8 bytes, most significant first.
  const int length = argument <= 0xFF ? 1 : argument <= 0xFFFF ? 2 : argument <= 0xFFFFFFFF ? 4 : 8;
  bytes[0] = static_cast<char>(initial | (length == 1 ? 24 : length == 2 ? 25 : length == 4 ? 26 : 27));
  for (int i = 0; i < length; ++i) bytes[1 + i] = static_cast<char>((argument >> (8 * (length - 1 - i))) & 0xFF);
  out_.append(bytes, static_cast<std::size_t>(1 + length));
}

void CborWriter::text(std::string_view s) {
  if (isValidUtf8(s)) {
    head(kText, s.size());
    out_.append(s);
    return;
  }
  std::string valid;
  valid.reserve(s.size() + 16);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8SequenceLength(s, i);
    if (n == 0) {
      valid += "\xEF\xBF\xBD";  // U+FFFD for each byte that starts no valid sequence
      ++i;
    } else {
      valid.append(s.substr(i, n));
      i += n;
    }
  }
  head(kText, valid.size());
  out_.append(valid);
}

void CborWriter::beginObject() {
  startItem();
  out_ += kIndefiniteMap;
}

void CborWriter::endObject() { out_ += kBreak; }

void CborWriter::beginArray() {
  startItem();
  out_ += kIndefiniteArray;
}

void CborWriter::endArray() { out_ += kBreak; }

void CborWriter::key(std::string_view k) {
  startItem();
  text(k);
}

void CborWriter::value(std::string_view s) {
  startItem();
  text(s);
}

void CborWriter::integer(std::int64_t v) {
  if (v >= 0) {
    head(kUnsigned, static_cast<std::uint64_t>(v));
  } else {
    head(kNegative, static_cast<std::uint64_t>(-(v + 1)));  // -1 - v, without overflow at the minimum
  }
}

void CborWriter::value(std::int64_t v) {
  startItem();
  integer(v);
}

void CborWriter::value(std::uint64_t v) {
  startItem();
  head(kUnsigned, v);
}

void CborWriter::value(double v) {
  startItem();
  if (!std::isfinite(v)) {
    out_ += kNull;
    return;
  }
  const auto bits = std::bit_cast<std::uint64_t>(v);
  char bytes[9] = {kFloat64};
  for (int i = 0; i < 8; ++i) bytes[1 + i] = static_cast<char>((bits >> (8 * (7 - i))) & 0xFF);
  out_.append(bytes, sizeof bytes);
}

void CborWriter::value(bool v) {
  startItem();
  out_ += v ? kTrue : kFalse;
}

void CborWriter::null() {
  startItem();
  out_ += kNull;
}

template <class Int>
void CborWriter::integers(std::span<const Int> values) {
  startItem();
  head(kArray, values.size());
  for (const Int v : values) integer(v);
}

void CborWriter::value(std::span<const std::int64_t> values) { integers(values); }
void CborWriter::value(std::span<const std::int32_t> values) { integers(values); }

void CborWriter::value(std::span<const std::string> values) {
  startItem();
  head(kArray, values.size());
  for (const std::string& s : values) text(s);
}

}  // namespace nndna::ir
