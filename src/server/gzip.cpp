#include "server/gzip.hpp"

#include <zlib.h>

#include <cstdlib>
#include <stdexcept>

namespace nndna::server {

std::string gzip(std::string_view data) {
  z_stream stream{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("gzip: deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, static_cast<uLong>(data.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (status != Z_STREAM_END) throw std::runtime_error("gzip: deflate did not finish");
  return out;
}

bool acceptsGzip(std::string_view header) {
  // Each comma-separated coding, with an optional ";q=VALUE"; q=0 means "not acceptable".
  while (!header.empty()) {
    const std::size_t comma = header.find(',');
    std::string_view item = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view{} : header.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    const std::size_t semi = item.find(';');
    std::string_view coding = item.substr(0, semi);
    while (!coding.empty() && coding.back() == ' ') coding.remove_suffix(1);
    if (coding != "gzip" && coding != "*") continue;
    if (semi == std::string_view::npos) return true;
    const std::string_view params = item.substr(semi + 1);
    const std::size_t q = params.find("q=");
    if (q == std::string_view::npos) return true;
    return std::strtod(std::string(params.substr(q + 2)).c_str(), nullptr) > 0;
  }
  return false;
}

}  // namespace nndna::server
