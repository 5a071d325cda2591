// The HTML page's stylesheet and script: small, hand-written, no build step, no network.
#pragma once

#include <string_view>

namespace nndna::diagram::detail {

extern const std::string_view kPageCss;
extern const std::string_view kPageScript;

}  // namespace nndna::diagram::detail
