#include "xray/html_util.hpp"

#include "render/escape.hpp"

namespace nndna::xray::detail {

std::string escapeHtml(std::string_view text) { return render::escapeXml(text); }

std::string jsonForScript(const nlohmann::json& value) {
  return render::escapeJsonForScript(
      value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace nndna::xray::detail
