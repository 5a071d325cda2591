// fmt's compiled part, for the statically linked `nndna` (src/cli/CMakeLists.txt): Debian ships fmt
// as a shared library only, which would bring the shared libstdc++ back into the program.
//
// Without FMT_HEADER_ONLY, fmt's implementation header defines its functions out of line; the
// templates its headers declare `extern` (or only declare) are instantiated here, for char and the
// two floating-point types, as libfmt.so does. A use of another instantiation fails to link.
#include <fmt/format-inl.h>

namespace fmt {
inline namespace v9 {
namespace detail {

template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;

}  // namespace detail
}  // namespace v9
}  // namespace fmt
