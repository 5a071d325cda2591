// A file of the source tree built into the binary (cmake/EmbedFiles.cmake generates the arrays).
#pragma once

#include <string_view>

namespace nndna {

struct EmbeddedFile {
  std::string_view name;  // the file's base name ("design_prompt.md")
  std::string_view text;  // its bytes, as they were in the source tree
};

}  // namespace nndna
