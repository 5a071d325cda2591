#include "designer/offline/template_text.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>

namespace nndna::designer {
namespace {

std::vector<std::string_view> linesOf(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string_view trimRight(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::size_t indentOf(std::string_view line) {
  std::size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return n;
}

bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

struct Condition {
  std::string option;
  bool negated = false;
  bool holds(const std::set<std::string, std::less<>>& options) const {
    return options.contains(option) != negated;
  }
};

// "[!opt]" / "[opt]" at `at` (pointing at '['); the position after ']' or npos.
std::size_t readCondition(std::string_view s, std::size_t at, Condition& out) {
  if (at >= s.size() || s[at] != '[') return std::string_view::npos;
  std::size_t i = at + 1;
  out.negated = i < s.size() && s[i] == '!';
  if (out.negated) ++i;
  const std::size_t nameStart = i;
  while (i < s.size() && isNameChar(s[i])) ++i;
  if (i == nameStart || i >= s.size() || s[i] != ']') return std::string_view::npos;
  out.option = std::string(s.substr(nameStart, i - nameStart));
  return i + 1;
}

// `//[opt] code`: the condition and the code.
std::optional<std::pair<Condition, std::string_view>> prefixMarker(std::string_view line) {
  const std::size_t indent = indentOf(line);
  if (line.substr(indent, 2) != "//") return std::nullopt;
  Condition condition;
  std::size_t after = readCondition(line, indent + 2, condition);
  if (after == std::string_view::npos) return std::nullopt;
  if (after < line.size() && line[after] == ' ') ++after;
  return std::make_pair(condition, line.substr(after));
}

// `code  //[opt]`: the condition and the code without the marker.
std::optional<std::pair<Condition, std::string_view>> suffixMarker(std::string_view line) {
  const std::string_view trimmed = trimRight(line);
  const auto at = trimmed.rfind("//[");
  if (at == std::string_view::npos) return std::nullopt;
  Condition condition;
  if (readCondition(trimmed, at + 2, condition) != trimmed.size()) return std::nullopt;
  return std::make_pair(condition, trimRight(trimmed.substr(0, at)));
}

// A `constexpr TYPE NAME = VALUE;` line: where the value starts and ends, and the name.
struct ConstantLine {
  std::string name;
  std::size_t valueStart = 0, valueEnd = 0;
  bool isInt = false;  // int / std::int64_t / long (not double, not an array)
};

std::optional<ConstantLine> constantLine(std::string_view line) {
  const std::size_t indent = indentOf(line);
  constexpr std::string_view kConstexpr = "constexpr ";
  if (line.substr(indent, kConstexpr.size()) != kConstexpr) return std::nullopt;
  const auto eq = line.find(" = ", indent);
  if (eq == std::string_view::npos) return std::nullopt;
  std::string_view left = trimRight(line.substr(indent + kConstexpr.size(), eq - indent - kConstexpr.size()));
  const bool array = left.ends_with("[]");
  if (array) left.remove_suffix(2);
  std::size_t nameStart = left.size();
  while (nameStart > 0 && isNameChar(left[nameStart - 1])) --nameStart;
  if (nameStart == left.size() || nameStart == 0) return std::nullopt;
  const std::string_view type = trimRight(left.substr(0, nameStart));
  const auto semicolon = line.find(';', eq);
  if (semicolon == std::string_view::npos) return std::nullopt;
  ConstantLine c;
  c.name = std::string(left.substr(nameStart));
  c.valueStart = eq + 3;
  c.valueEnd = semicolon;
  c.isInt = !array && (type == "int" || type == "std::int64_t" || type == "long" || type == "int64_t");
  return c;
}

// A named dim, `constexpr Dim NAME{"N", VALUE, "description"};` (the description optional): where
// its value starts and ends, and the name.
std::optional<ConstantLine> dimLine(std::string_view line) {
  const std::size_t indent = indentOf(line);
  std::string_view rest = line.substr(indent);
  for (std::string_view prefix : {"constexpr nndna::Dim ", "constexpr Dim "}) {
    if (!rest.starts_with(prefix)) continue;
    const std::size_t nameStart = indent + prefix.size();
    std::size_t nameEnd = nameStart;
    while (nameEnd < line.size() && isNameChar(line[nameEnd])) ++nameEnd;
    if (nameEnd == nameStart || nameEnd >= line.size() || line[nameEnd] != '{') return std::nullopt;
    // The quoted name, then the value up to the next ',' or '}'.
    const auto open = line.find('"', nameEnd);
    const auto close = open == std::string_view::npos ? open : line.find('"', open + 1);
    const auto comma = close == std::string_view::npos ? close : line.find(',', close);
    if (comma == std::string_view::npos) return std::nullopt;
    const auto end = line.find_first_of(",}", comma + 1);
    if (end == std::string_view::npos) return std::nullopt;
    ConstantLine c;
    c.name = std::string(line.substr(nameStart, nameEnd - nameStart));
    c.valueStart = line.find_first_not_of(' ', comma + 1);
    c.valueEnd = end;
    c.isInt = true;
    if (c.valueStart >= c.valueEnd) return std::nullopt;
    return c;
  }
  return std::nullopt;
}

// The line with the constant's value replaced; a comment after it keeps its column where the
// new value leaves room (the constants of a template are aligned).
std::string withValue(std::string_view line, const ConstantLine& c, std::string_view value) {
  std::string out = std::string(line.substr(0, c.valueStart)) + std::string(value) + ";";
  std::string_view rest = line.substr(c.valueEnd + 1);
  const std::size_t spaces = rest.find_first_not_of(' ');
  if (spaces != std::string_view::npos && rest.substr(spaces).starts_with("//")) {
    const std::size_t column = c.valueEnd + 1 + spaces;  // where the comment was
    out.append(column > out.size() + 1 ? column - out.size() : 2, ' ');
    out += rest.substr(spaces);
  } else {
    out += rest;
  }
  return out;
}

// Words of the description wrapped into string-literal lines.
std::vector<std::string> wrapLiteral(std::string_view text, std::size_t width) {
  std::vector<std::string> lines;
  std::string current;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    if (!current.empty() && current.size() + 1 + word.size() > width) {
      lines.push_back(current + " ");
      current.clear();
    }
    if (!current.empty()) current += ' ';
    current += word;
    start = end + 1;
  }
  if (!current.empty()) lines.push_back(current);
  for (std::string& line : lines) line = cppStringLiteral(line);
  return lines;
}

// Integer expressions of constant declarations: + - * / << ( ) literals and known names.
class Evaluator {
 public:
  Evaluator(std::string_view text, const std::map<std::string, std::int64_t, std::less<>>& names)
      : text_(text), names_(names) {}

  std::optional<std::int64_t> evaluate() {
    ok_ = true;
    const std::int64_t value = shift();
    skipSpace();
    if (!ok_ || pos_ != text_.size()) return std::nullopt;
    return value;
  }

 private:
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(std::string_view op) {
    skipSpace();
    if (text_.substr(pos_, op.size()) != op) return false;
    pos_ += op.size();
    return true;
  }
  // Every step is checked: a value past 64 bits makes the expression unreadable, as a division
  // by zero does (the constant is then left out of the values).
  std::int64_t checked(bool overflowed, const std::int64_t& result) {
    if (overflowed) ok_ = false;
    return overflowed ? 0 : result;
  }
  std::int64_t shift() {
    std::int64_t v = additive();
    while (ok_ && eat("<<")) {
      const std::int64_t by = additive();
      if (by < 0 || by > 62) {
        ok_ = false;
        break;
      }
      std::int64_t r = 0;
      const bool overflowed = __builtin_mul_overflow(v, std::int64_t{1} << by, &r);
      v = checked(overflowed, r);
    }
    return v;
  }
  std::int64_t additive() {
    std::int64_t v = multiplicative();
    while (ok_) {
      const bool plus = eat("+");
      if (!plus && !eat("-")) break;
      const std::int64_t rhs = multiplicative();
      std::int64_t r = 0;
      const bool overflowed = plus ? __builtin_add_overflow(v, rhs, &r) : __builtin_sub_overflow(v, rhs, &r);
      v = checked(overflowed, r);
    }
    return v;
  }
  std::int64_t multiplicative() {
    std::int64_t v = unary();
    while (ok_) {
      if (eat("*")) {
        const std::int64_t rhs = unary();
        std::int64_t r = 0;
        const bool overflowed = __builtin_mul_overflow(v, rhs, &r);
        v = checked(overflowed, r);
      } else if (eat("/")) {
        const std::int64_t d = unary();
        if (d == 0 || (d == -1 && v == INT64_MIN)) ok_ = false;
        else v /= d;
      } else {
        break;
      }
    }
    return v;
  }
  std::int64_t unary() {
    if (eat("-")) {
      const std::int64_t operand = unary();
      std::int64_t r = 0;
      const bool overflowed = __builtin_sub_overflow(std::int64_t{0}, operand, &r);
      return checked(overflowed, r);
    }
    return primary();
  }
  std::int64_t primary() {
    skipSpace();
    if (eat("(")) {
      const std::int64_t v = shift();
      if (!eat(")")) ok_ = false;
      return v;
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && isNameChar(text_[pos_])) ++pos_;
    const std::string_view token = text_.substr(start, pos_ - start);
    if (token.empty()) {
      ok_ = false;
      return 0;
    }
    if (std::isdigit(static_cast<unsigned char>(token[0]))) {
      std::int64_t v = 0;
      for (char c : token) {
        if (!std::isdigit(static_cast<unsigned char>(c)) || v > 1'000'000'000'000LL) {
          ok_ = false;
          return 0;
        }
        v = v * 10 + (c - '0');
      }
      return v;
    }
    const auto it = names_.find(token);
    if (it == names_.end()) {
      ok_ = false;
      return 0;
    }
    return it->second;
  }

  std::string_view text_;
  const std::map<std::string, std::int64_t, std::less<>>& names_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace

std::string cppStringLiteral(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string fillTemplate(std::string_view text, const TemplateFill& fill) {
  std::string out;
  std::set<std::string, std::less<>> usedConstants;
  bool labelDone = !fill.label, descriptionDone = !fill.description;
  const std::vector<std::string_view> lines = linesOf(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string line(lines[i]);
    if (auto prefix = prefixMarker(line)) {
      if (!prefix->first.holds(fill.options)) continue;
      line = std::string(lines[i].substr(0, indentOf(lines[i]))) + std::string(prefix->second);
    } else if (auto suffix = suffixMarker(line)) {
      if (!suffix->first.holds(fill.options)) continue;
      line = std::string(suffix->second);
    }
    if (auto constant = constantLine(line)) {
      if (auto it = fill.constants.find(constant->name); it != fill.constants.end()) {
        line = withValue(line, *constant, it->second);
        usedConstants.insert(constant->name);
      }
    }
    const std::size_t indent = indentOf(line);
    const std::string_view body = std::string_view(line).substr(indent);
    if (fill.label && body.starts_with(".label = \"")) {
      line = line.substr(0, indent) + ".label = " + cppStringLiteral(*fill.label) + ",";
      labelDone = true;
    } else if (fill.description && body.starts_with(".description =")) {
      // The literal lines that follow (or the rest of this line) are the old description.
      if (body.find('"') == std::string_view::npos) {
        while (i + 1 < lines.size() && lines[i + 1].substr(indentOf(lines[i + 1])).starts_with("\"")) ++i;
      }
      const std::string pad(indent + 4, ' ');
      line = line.substr(0, indent) + ".description =";
      for (const std::string& literal : wrapLiteral(*fill.description, 88)) line += "\n" + pad + literal;
      line += ",";
      descriptionDone = true;
    }
    out += line;
    out += '\n';
  }
  for (const auto& [name, value] : fill.constants) {
    if (!usedConstants.contains(name)) throw TemplateError(fmt::format("the template declares no constant {}", name));
  }
  if (!labelDone) throw TemplateError("the template has no `.label = \"...\",` line");
  if (!descriptionDone) throw TemplateError("the template has no `.description =` line");
  return out;
}

std::set<std::string, std::less<>> templateOptions(std::string_view text) {
  std::set<std::string, std::less<>> options;
  for (std::string_view line : linesOf(text)) {
    if (auto prefix = prefixMarker(line)) options.insert(prefix->first.option);
    else if (auto suffix = suffixMarker(line)) options.insert(suffix->first.option);
  }
  return options;
}

std::map<std::string, std::int64_t, std::less<>> specConstants(std::string_view text) {
  std::map<std::string, std::int64_t, std::less<>> values;
  for (std::string_view line : linesOf(text)) {
    const auto constant = constantLine(line);
    if (!constant || !constant->isInt) continue;
    Evaluator evaluator(line.substr(constant->valueStart, constant->valueEnd - constant->valueStart), values);
    if (auto value = evaluator.evaluate()) values[constant->name] = *value;
  }
  return values;
}

bool setConstant(std::string& source, std::string_view name, std::string_view value) {
  std::size_t start = 0;
  while (start < source.size()) {
    auto end = source.find('\n', start);
    if (end == std::string::npos) end = source.size();
    const std::string_view line = std::string_view(source).substr(start, end - start);
    auto constant = constantLine(line);
    if (!constant) constant = dimLine(line);
    if (constant && constant->name == name) {
      source.replace(start + constant->valueStart, constant->valueEnd - constant->valueStart, value);
      return true;
    }
    start = end + 1;
  }
  return false;
}

}  // namespace nndna::designer
