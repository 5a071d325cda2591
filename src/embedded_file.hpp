// A file built into the binary (cmake/EmbedFiles.cmake generates the tables).
#pragma once

#include <string_view>

namespace nndna {

struct EmbeddedFile {
  std::string_view name;   // the file's base name ("design_prompt.md", "app.js")
  std::string_view bytes;  // its content, as built (not NUL-terminated)
};

}  // namespace nndna
