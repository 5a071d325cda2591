// Well-formed UTF-8 (Unicode's Table 3-7), for the IR's writers, which replace what is not, and
// its CBOR reader, which rejects it (JSON's lexer checks its own strings).
#pragma once

#include <cstddef>
#include <string_view>

namespace nndna::ir {

// The length of the well-formed UTF-8 sequence at s[i], or 0 when none starts there.
std::size_t utf8SequenceLength(std::string_view s, std::size_t i);

// Whether all of `s` is well-formed UTF-8.
bool isValidUtf8(std::string_view s);

}  // namespace nndna::ir
