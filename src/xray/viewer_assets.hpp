// Internal: the hand-written CSS and JavaScript of the two HTML pages (inlined: the pages work
// offline as single files).
#pragma once

#include <string_view>

namespace nndna::xray::detail {

std::string_view traceViewerCss();
std::string_view traceViewerJs();
std::string_view diffPageCss();
std::string_view diffPageJs();
std::string_view stepperCss();
std::string_view stepperJs();

}  // namespace nndna::xray::detail
