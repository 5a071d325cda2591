#include "specrun/diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace nndna::specrun {

namespace {

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

enum class Severity { none, error, warning, note, context };

// One diagnostic: its header line and the excerpt lines that follow ("   12 |   foo();").
struct Diagnostic {
  Severity severity = Severity::none;
  std::string_view file;  // empty for a line without a location
  std::string_view rest;  // everything after "file:"
  std::vector<std::string_view> lines;
};

// "path:12:3: error: ..." / "path: In function 'f':" / "/usr/bin/ld: ..." -> file + severity.
Diagnostic parseHeader(std::string_view line) {
  Diagnostic d;
  // The assembler's own (an asm(".include ...") or a bad instruction) spell theirs "Error:".
  static constexpr std::pair<std::string_view, Severity> kTags[] = {
      {": fatal error: ", Severity::error}, {": error: ", Severity::error}, {": Error: ", Severity::error},
      {": warning: ", Severity::warning},   {": Warning: ", Severity::warning}, {": note: ", Severity::note}};
  for (const auto& [tag, severity] : kTags) {
    const std::size_t at = line.find(tag);
    if (at == std::string_view::npos) continue;
    // The location is "file[:line[:col]]" before the tag.
    std::string_view location = line.substr(0, at);
    for (int i = 0; i < 2; ++i) {
      const std::size_t colon = location.rfind(':');
      if (colon == std::string_view::npos) break;
      const std::string_view tail = location.substr(colon + 1);
      if (tail.empty() || tail.find_first_not_of("0123456789") != std::string_view::npos) break;
      location = location.substr(0, colon);
    }
    d.severity = severity;
    d.file = location;
    d.rest = line.substr(location.size());
    d.lines.push_back(line);
    return d;
  }
  if (constexpr std::string_view kAssembler = ": Assembler messages:"; line.ends_with(kAssembler)) {
    d.severity = Severity::context;  // "{standard input}: Assembler messages:"
    d.file = line.substr(0, line.size() - kAssembler.size());
    d.rest = line.substr(d.file.size());
    d.lines.push_back(line);
    return d;
  }
  if (const std::size_t at = line.find(": In "); at != std::string_view::npos && line.ends_with(":")) {
    d.severity = Severity::context;  // "model.cpp: In function 'Tensor f(...)':"
    d.file = line.substr(0, at);
    d.rest = line.substr(at);
    d.lines.push_back(line);
  }
  return d;
}

// g++'s words when a spec uses std::string or its functions without <string>: nndna.hpp does not
// include it, and <string_view> declares std::string without defining it, so g++'s own "did you
// forget '#include <string>'?" does not come (docs/specrun.md, "No <string>").
// The function a call of which g++ calls ambiguous ("error: call of overloaded 'relu6(...)' is
// ambiguous", with ASCII or typographic quotes), or "".
std::string ambiguousCallee(std::string_view line) {
  constexpr std::string_view kCall = ": error: call of overloaded ";
  const std::size_t at = line.find(kCall);
  if (at == std::string_view::npos || line.find(" is ambiguous") == std::string_view::npos) return {};
  std::string_view rest = line.substr(at + kCall.size());
  for (std::string_view quote : {"'", "\u2018"}) {
    if (rest.starts_with(quote)) rest.remove_prefix(quote.size());
  }
  const std::size_t paren = rest.find('(');
  return paren == std::string_view::npos ? std::string() : std::string(rest.substr(0, paren));
}

bool needsStringHeader(std::string_view line) {
  if (line.find(": error: ") == std::string_view::npos) return false;
  const bool incomplete = line.find("incomplete") != std::string_view::npos;
  if (incomplete && (line.find("std::string") != std::string_view::npos ||
                     line.find("basic_string<char") != std::string_view::npos)) {
    return true;
  }
  if (line.find("' is not a member of 'std'") == std::string_view::npos) return false;
  for (std::string_view fn : {"'to_string'", "'stoi'", "'stol'", "'stoll'", "'stoul'", "'stoull'", "'stof'",
                              "'stod'", "'stold'", "'getline'"}) {
    if (line.find(fn) != std::string_view::npos) return true;
  }
  return false;
}

bool isIncludeChain(std::string_view line) {
  return line.starts_with("In file included from ") || line.starts_with("                 from ");
}

}  // namespace

std::string trimCompilerOutput(std::string_view output, const DiagnosticPaths& paths, int maxErrors) {
  std::vector<Diagnostic> diagnostics;
  for (std::string_view line : splitLines(output)) {
    if (isIncludeChain(line) || line == "compilation terminated." ||
        line.starts_with("collect2: error: ld returned")) {
      continue;
    }
    Diagnostic header = parseHeader(line);
    if (header.severity != Severity::none) {
      diagnostics.push_back(std::move(header));
    } else if (!diagnostics.empty()) {
      diagnostics.back().lines.push_back(line);  // an excerpt or caret line
    } else if (!line.empty()) {
      diagnostics.push_back(Diagnostic{Severity::none, {}, line, {line}});
    }
  }

  auto inSpec = [&](const Diagnostic& d) { return d.file == paths.compiledPath; };
  auto render = [&](const Diagnostic& d) {
    std::string text;
    for (std::size_t i = 0; i < d.lines.size(); ++i) {
      if (i == 0 && inSpec(d)) {
        text += paths.displayPath;
        text += d.rest;
      } else {
        text += d.lines[i];
      }
      text += '\n';
    }
    return text;
  };

  int specErrors = 0;
  for (const Diagnostic& d : diagnostics) specErrors += d.severity == Severity::error && inSpec(d);

  std::string out;
  int shown = 0;
  int hidden = 0;
  bool keepingNotes = false;  // notes that follow a shown error
  bool missingString = false;  // a shown error says std::string is missing: hint at <string>
  std::string ambiguous;        // the function a shown error calls ambiguously
  std::vector<std::string> apiClashes;  // ... when one of the candidates is nndna's own
  std::string_view pendingContext;
  for (const Diagnostic& d : diagnostics) {
    if (d.severity == Severity::context) {
      if (inSpec(d)) pendingContext = d.rest;
      continue;
    }
    if (d.severity == Severity::error) {
      const bool eligible = specErrors > 0 ? inSpec(d) : shown == 0;
      if (!eligible || shown >= maxErrors) {
        hidden += eligible || specErrors == 0;
        keepingNotes = false;
        continue;
      }
      if (!pendingContext.empty()) {
        out += paths.displayPath;
        out += pendingContext;
        out += '\n';
        pendingContext = {};
      }
      out += render(d);
      ++shown;
      keepingNotes = true;
      missingString = missingString || needsStringHeader(d.lines.front());
      ambiguous = ambiguousCallee(d.lines.front());
    } else if (d.severity == Severity::note) {
      if (keepingNotes && inSpec(d)) out += render(d);
      // The user's own function of the same name as one of nndna's, both in scope through
      // `using namespace nndna;`: g++ lists both as candidates.
      const std::string_view line = d.lines.front();
      if (keepingNotes && !ambiguous.empty() && line.find("note: candidate: ") != std::string::npos &&
          line.find("nndna::" + ambiguous + "(") != std::string::npos &&
          std::find(apiClashes.begin(), apiClashes.end(), ambiguous) == apiClashes.end()) {
        apiClashes.push_back(ambiguous);
      }
    } else if (d.severity == Severity::none && specErrors == 0 && shown < maxErrors) {
      out += render(d);  // a line with no location (a linker message) when nothing better exists
      ++shown;
    }
  }
  if (hidden > 0) out += fmt::format("({} more error{} not shown)\n", hidden, hidden == 1 ? "" : "s");
  if (missingString) {
    out += "hint: nndna/nndna.hpp does not include <string>: add `#include <string>` to use std::string "
           "or std::to_string\n";
  }
  for (const std::string& name : apiClashes) {
    out += fmt::format("hint: nndna has its own `{0}` (nndna::{0}), which `using namespace nndna;` brings in beside "
                       "yours: use nndna's and drop yours, or give yours another name\n",
                       name);
  }
  if (out.empty()) out = std::string(output.substr(0, 4000));
  return out;
}

}  // namespace nndna::specrun
