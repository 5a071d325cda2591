// Escaping user text for the pages nndna generates (diagrams and xray viewers alike).
#pragma once

#include <string>
#include <string_view>

namespace nndna::render {

// For XML/HTML text and double- or single-quoted attribute values: & < > " '.
std::string escapeXml(std::string_view text);

// A JSON document made safe to embed in <script type="application/json">: '<', '>', '&' and
// U+2028/U+2029 become \u escapes (they only occur inside JSON strings, where the escape means
// the same), so "</script>" or "<!--" in user text can neither end nor confuse the element.
std::string escapeJsonForScript(std::string_view json);

}  // namespace nndna::render
