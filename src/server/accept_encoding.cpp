#include "server/accept_encoding.hpp"

#include <cstdlib>
#include <string>

namespace nndna::server {

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
