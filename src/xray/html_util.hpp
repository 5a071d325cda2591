// Internal: escaping user text for the contexts of a generated HTML page.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace nndna::xray::detail {

// For HTML text and double- or single-quoted attribute values.
std::string escapeHtml(std::string_view text);

// JSON to embed in <script type="application/json">: '<', '>', '&' and U+2028/U+2029 become
// \u escapes (so "</script>" or "<!--" in user text cannot end or confuse the script element),
// invalid UTF-8 is replaced.
std::string jsonForScript(const nlohmann::json& value);

}  // namespace nndna::xray::detail
