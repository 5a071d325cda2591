#include "xray/html_util.hpp"

#include <algorithm>
#include <cstdint>

#include "compress/gzip.hpp"
#include "render/escape.hpp"

namespace nndna::xray::detail {

std::string escapeHtml(std::string_view text) { return render::escapeXml(text); }

std::string jsonForScript(const nlohmann::json& value) {
  return render::escapeJsonForScript(
      value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string gzipBase64ForScript(const nlohmann::json& value) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const std::string bytes = compress::gzip(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 3; ++k)
      group = (group << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? kDigits[(group >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

}  // namespace nndna::xray::detail
