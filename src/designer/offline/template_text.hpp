// The offline designer's templates as text: filling a template spec file with sizes and options,
// and reading the sizes a spec declares.
//
// A template (src/designer/templates/*.cpp) is an ordinary spec that compiles as it is. What the
// designer may change in it:
// - a constant's value: a line `constexpr int NAME = <value>;` (or `constexpr double`, or an
//   array `constexpr int NAME[] = {...};`) gets a new value; its comment stays;
// - a variant line: `code  //[opt]` (active in the file) is kept only when `opt` is set,
//   `code  //[!opt]` only when it is not; a line `//[opt] code` (commented out in the file) is
//   uncommented when `opt` is set and dropped otherwise (and `//[!opt] code` the other way round).
//   The markers never reach the filled spec;
// - the label and the description: `.label = "...",` on one line and `.description =` followed
//   by string-literal lines.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nndna::designer {

struct TemplateFill {
  std::map<std::string, std::string, std::less<>> constants;  // NAME -> value text ("12", "{3, 4, 6, 3}")
  std::set<std::string, std::less<>> options;                 // set options ("rmsnorm")
  std::optional<std::string> label;
  std::optional<std::string> description;
};

// A template that cannot take a fill (a constant it does not declare, no label line): a defect
// of nndna's templates, never of the user's text.
class TemplateError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// The template with the fill applied, markers removed. Throws TemplateError.
std::string fillTemplate(std::string_view text, const TemplateFill& fill);

// Every option a template's markers name ("rmsnorm", "swiglu", ...).
std::set<std::string, std::less<>> templateOptions(std::string_view text);

// The integer constants a spec declares (`constexpr int NAME = expr;` at the start of a line),
// each expression evaluated over the constants declared before it (+ - * / << parentheses,
// integer literals, names). Lines it cannot evaluate are left out.
std::map<std::string, std::int64_t, std::less<>> specConstants(std::string_view text);

// Sets one constant of any spec source (the same line shape as above, or a named dim
// `constexpr Dim NAME{"N", value, ...};`); false when the source
// declares no such constant. Used to change a user's spec without a model.
bool setConstant(std::string& source, std::string_view name, std::string_view value);

// A C++ string literal of `text` (quotes, backslashes and control characters escaped).
std::string cppStringLiteral(std::string_view text);

}  // namespace nndna::designer
