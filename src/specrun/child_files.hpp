// The parent's only way into what a sandboxed program left behind. The program controls every
// name in its directory: a name may be a symbolic link to a file the program itself could not read
// (the parent's /proc/self/environ, a root-only file), a FIFO that blocks whoever opens it, a
// directory, or a file larger than anything the parent should hold. These functions open one
// name relative to the directory's descriptor without following links and without blocking,
// accept only regular files, and bound what they read (docs/specrun.md, "The parent never
// follows the program's files").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace nndna::specrun {

enum class ChildFileStatus {
  ok,
  missing,      // no such name
  notRegular,   // a symbolic link, FIFO, socket, device or directory
  tooLarge,     // larger than the bound
  unreadable,   // any other error (the error text is in ChildFile::error)
};

struct ChildFile {
  ChildFileStatus status = ChildFileStatus::missing;
  std::string text;       // the whole file, when ok
  std::uint64_t size = 0;  // its size, when ok or tooLarge
  std::string error;      // what went wrong, for messages
};

// Reads `name` (one path component, no '/') in the directory `dirFd`, at most `maxBytes`.
ChildFile readChildFile(int dirFd, std::string_view name, std::uint64_t maxBytes);

// Copies `name` from `dirFd` to `to` (created with mode `mode`, replaced if it exists), at most
// `maxBytes`. Returns the status; only `ok` leaves a file at `to`.
ChildFileStatus copyChildFile(int dirFd, std::string_view name, const std::filesystem::path& to,
                              std::uint64_t maxBytes, unsigned mode = 0644);

// Copies every regular file at the top of `dirFd` into the existing directory `to`, at most
// `maxBytes` in all (for --keep-temp). Links and everything else are skipped.
void copyChildFiles(int dirFd, const std::filesystem::path& to, std::uint64_t maxBytes);

}  // namespace nndna::specrun
