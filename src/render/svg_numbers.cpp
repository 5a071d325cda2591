#include "render/svg_numbers.hpp"

#include <dlfcn.h>
#include <graphviz/gvcext.h>

#include <array>
#include <charconv>
#include <cstdio>

#include "render/graphviz_library.hpp"

// libgvc's output function for renderers (its gvio.h, not installed by Debian), defined below.
extern "C" void gvprintdouble(GVJ_t* job, double num);

namespace nndna::render::detail {
namespace {

using PrintDouble = void (*)(GVJ_t*, double);

bool g_graphvizOwn = false;

// libgvc's gvprintdouble: the next definition after this library's in the search order, once
// libgvc is loaded (into the global scope).
PrintDouble graphvizPrintDouble() {
  static const auto own = [] {
    (void)graphvizLibrary();
    return reinterpret_cast<PrintDouble>(::dlsym(RTLD_NEXT, "gvprintdouble"));
  }();
  return own;
}

}  // namespace

std::size_t formatSvgNumber(double num, std::span<char, kSvgNumberRoom> out) {
  // Graphviz writes "0" here, which also keeps "-0" out of the drawing.
  if (num > -0.005 && num < 0.005) {
    out[0] = '0';
    return 1;
  }
  // to_chars with a precision rounds the exact binary value, ties to even, as glibc's printf does.
  const auto [end, error] = std::to_chars(out.data(), out.data() + out.size(), num, std::chars_format::fixed, 2);
  auto length = static_cast<std::size_t>(end - out.data());
  if (error != std::errc()) length = static_cast<std::size_t>(std::snprintf(out.data(), out.size(), "%.02f", num));
  // Only "digits.dd" ends in '0' (not "inf" or "nan"): drop a zero hundredth, then a zero tenth
  // with its point.
  if (length >= 4 && out[length - 1] == '0' && out[length - 3] == '.') length -= out[length - 2] == '0' ? 3 : 1;
  return length;
}

bool svgNumbersAreNndnas() {
  return ::dlsym(RTLD_DEFAULT, "gvprintdouble") == reinterpret_cast<void*>(&::gvprintdouble);
}

bool useGraphvizOwnSvgNumbers(bool own) {
  g_graphvizOwn = own && graphvizPrintDouble() != nullptr;
  return g_graphvizOwn;
}

}  // namespace nndna::render::detail

// Replaces libgvc's gvprintdouble (svg_numbers.hpp says why and how).
extern "C" void gvprintdouble(GVJ_t* job, double num) {
  using namespace nndna::render::detail;
  if (g_graphvizOwn) {
    graphvizPrintDouble()(job, num);
    return;
  }
  std::array<char, kSvgNumberRoom> text;
  graphvizLibrary().gvwrite(job, text.data(), formatSvgNumber(num, text));
}
