// The numbers of Graphviz's SVG, written by nndna.
//
// Graphviz's SVG renderer (its core plugin) writes every coordinate through libgvc's
// gvprintdouble, which formats with snprintf("%.02f"): glibc's printf, exact but slow (its
// multi-precision arithmetic), was 13% of the samples of a 1,501-box diagram's layout and
// drawing. Median CPU of that drawing in one process, Graphviz's numbers against these, 16
// alternating rounds, twice (load 0.9): 0.151 -> 0.129 s and 0.166 -> 0.148 s.
// svg_numbers.cpp defines gvprintdouble itself, writing the same characters with std::to_chars;
// the plugin calls libgvc's exported function through the dynamic linker, which finds this
// library's definition first (it is loaded with the program, before libgvc, which
// graphviz_library.hpp loads when a layout first needs it: ELF symbol interposition, the
// mechanism malloc replacements use). Internal to nndna_render.
#pragma once

#include <cstddef>
#include <span>

namespace nndna::render::detail {

// `num` as Graphviz 2.42's gvprintdouble writes it: "0" when it rounds to zero at two decimals
// (|num| < 0.005), otherwise fixed notation with two decimals, correctly rounded, then "x.y0" ->
// "x.y" and "x.00" -> "x". Returns the number of characters written to `out`, which has room for
// any double (DBL_MAX has 309 digits).
constexpr std::size_t kSvgNumberRoom = 400;
std::size_t formatSvgNumber(double num, std::span<char, kSvgNumberRoom> out);

// Whether the gvprintdouble Graphviz's plugins call is nndna's (false if libgvc came first in
// the process's symbol search order, as when libgvc is preloaded).
bool svgNumbersAreNndnas();

// Makes nndna's gvprintdouble hand every number to libgvc's own, or stop doing so: for the test
// that both draw the same bytes. Returns whether libgvc's own is now used (false when it cannot
// be found). Call with the Graphviz lock held.
bool useGraphvizOwnSvgNumbers(bool own);

}  // namespace nndna::render::detail
