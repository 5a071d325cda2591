// Escaping user text for what nndna writes: pages (diagrams and xray viewers alike), Graphviz
// input, and the terminal. Spec-derived text (a source line, a name, an exception's message) may
// hold anything: bytes that are not UTF-8, control characters, markup, terminal escape sequences.
#pragma once

#include <string>
#include <string_view>

namespace nndna::render {

// Text every page and file nndna writes can carry: each byte that does not belong to valid UTF-8
// becomes U+FFFD, and each C0 control character other than tab, newline and carriage return
// becomes its Control Picture (U+0001 -> U+2401 "␁"): XML 1.0 cannot carry those characters at
// all, not even as character references, and an SVG holding one is not well-formed.
std::string cleanText(std::string_view text);

// For XML/HTML text and double- or single-quoted attribute values: cleanText, then & < > " '.
std::string escapeXml(std::string_view text);

// A JSON document made safe to embed in <script type="application/json">: '<', '>', '&' and
// U+2028/U+2029 become \u escapes (they only occur inside JSON strings, where the escape means
// the same), so "</script>" or "<!--" in user text can neither end nor confuse the element.
std::string escapeJsonForScript(std::string_view json);

// For printing to a terminal: every control character but newline and tab (ESC, CR, BEL, DEL,
// the C1 controls U+0080-U+009F, among them CSI) and every byte that is not UTF-8 is shown as
// \xNN, so that escape sequences in a spec's output or message (colours, cursor moves, OSC
// window titles and hyperlinks) reach the terminal as text, never as commands.
std::string escapeForTerminal(std::string_view text);

}  // namespace nndna::render
