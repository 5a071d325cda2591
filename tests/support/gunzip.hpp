// Decoding what nndna compresses, for tests that check it: gzip (the server's responses, the xray
// viewer's data) and base64 (the viewer embeds its gzip as base64). Link ZLIB::ZLIB.
#pragma once

#include <zlib.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace nndna::test {

// The bytes of one gzip member; throws if they are not one.
inline std::string gunzip(std::string_view data) {
  z_stream s{};
  if (inflateInit2(&s, 15 + 16) != Z_OK) throw std::runtime_error("inflateInit2 failed");
  std::string out;
  char buffer[1 << 16];
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  s.avail_in = static_cast<uInt>(data.size());
  int status = Z_OK;
  while (status == Z_OK) {
    s.next_out = reinterpret_cast<Bytef*>(buffer);
    s.avail_out = sizeof buffer;
    status = inflate(&s, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - s.avail_out);
  }
  inflateEnd(&s);
  if (status != Z_STREAM_END) throw std::runtime_error("not a whole gzip member");
  return out;
}

// Standard base64 (RFC 4648, with padding); throws on any other character.
inline std::string base64Decode(std::string_view text) {
  auto value = [](char c) -> unsigned {
    if (c >= 'A' && c <= 'Z') return static_cast<unsigned>(c - 'A');
    if (c >= 'a' && c <= 'z') return static_cast<unsigned>(c - 'a' + 26);
    if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0' + 52);
    if (c == '+') return 62;
    if (c == '/') return 63;
    throw std::runtime_error(std::string("not base64: '") + c + "'");
  };
  std::string out;
  unsigned bits = 0, count = 0;
  for (char c : text) {
    if (c == '=') break;
    bits = (bits << 6) | value(c);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xFF);
    }
  }
  return out;
}

}  // namespace nndna::test
