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

// JSON to embed as gzip in base64 (the viewer of a large trace: a million spans' columns compress
// about tenfold, and a browser reads an HTML page's bytes far slower than it inflates them). The
// page decodes it with fetch("data:…;base64,") and DecompressionStream("gzip").
std::string gzipBase64ForScript(const nlohmann::json& value);

}  // namespace nndna::xray::detail
