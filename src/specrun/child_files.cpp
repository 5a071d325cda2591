#include "specrun/child_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "ir/huge_pages.hpp"
#include "specrun/unique_fd.hpp"

namespace nndna::specrun {

namespace {

struct Opened {
  UniqueFd fd;
  ChildFileStatus status = ChildFileStatus::ok;
  std::uint64_t size = 0;
  std::string error;
};

// O_NOFOLLOW: a symbolic link fails (ELOOP) instead of being followed. O_NONBLOCK: a FIFO opens
// at once instead of waiting for a writer (and is then refused as not regular). A file with a
// second hard link could be a name for a file outside the directory (possible where the
// directory is the host's, without the sandbox's own filesystem): refused as well.
Opened openChildFile(int dirFd, std::string_view name, std::uint64_t maxBytes) {
  Opened opened;
  if (name.empty() || name.find('/') != std::string_view::npos || name == "." || name == "..") {
    opened.status = ChildFileStatus::unreadable;
    opened.error = "not a plain file name";
    return opened;
  }
  const std::string path(name);
  opened.fd.reset(::openat(dirFd, path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!opened.fd) {
    const int error = errno;
    opened.status = error == ENOENT ? ChildFileStatus::missing
                    : error == ELOOP || error == ENXIO || error == EISDIR || error == ENODEV
                        ? ChildFileStatus::notRegular
                        : ChildFileStatus::unreadable;
    opened.error = error == ELOOP ? "a symbolic link" : std::strerror(error);
    return opened;
  }
  struct stat st {};
  if (::fstat(opened.fd.get(), &st) != 0) {
    opened.status = ChildFileStatus::unreadable;
    opened.error = std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    opened.status = ChildFileStatus::notRegular;
    opened.error = "not a regular file";
  } else if (st.st_nlink != 1) {
    opened.status = ChildFileStatus::notRegular;
    opened.error = "a file with several hard links";
  } else if (static_cast<std::uint64_t>(st.st_size) > maxBytes) {
    opened.status = ChildFileStatus::tooLarge;
    opened.size = static_cast<std::uint64_t>(st.st_size);
    opened.error = "larger than " + std::to_string(maxBytes) + " bytes";
  } else {
    opened.size = static_cast<std::uint64_t>(st.st_size);
  }
  if (opened.status != ChildFileStatus::ok) opened.fd.reset();
  return opened;
}

}  // namespace

ChildFile readChildFile(int dirFd, std::string_view name, std::uint64_t maxBytes) {
  Opened opened = openChildFile(dirFd, name, maxBytes);
  ChildFile file;
  file.status = opened.status;
  file.size = opened.size;
  file.error = std::move(opened.error);
  if (file.status != ChildFileStatus::ok) return file;
  // The size was checked on the open file; reading stops at the bound even if it grew since.
  file.text.reserve(static_cast<std::size_t>(opened.size));
  ir::adviseHugePages(file.text.data(), file.text.capacity());  // an IR may be hundreds of MB
  file.text.resize(static_cast<std::size_t>(opened.size));
  std::size_t got = 0;
  while (got < file.text.size()) {
    const ssize_t n = ::read(opened.fd.get(), file.text.data() + got, file.text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      file.status = ChildFileStatus::unreadable;
      file.error = std::strerror(errno);
      file.text.clear();
      return file;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  file.text.resize(got);
  return file;
}

ChildFileStatus copyChildFile(int dirFd, std::string_view name, const std::filesystem::path& to,
                              std::uint64_t maxBytes, unsigned mode) {
  Opened opened = openChildFile(dirFd, name, maxBytes);
  if (opened.status != ChildFileStatus::ok) return opened.status;
  ::unlink(to.c_str());
  const UniqueFd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
  if (!out) return ChildFileStatus::unreadable;
  std::array<char, 1 << 16> buffer{};
  std::uint64_t copied = 0;
  for (;;) {
    const ssize_t n = ::read(opened.fd.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    if (n == 0) return ChildFileStatus::ok;
    copied += static_cast<std::uint64_t>(n);
    if (copied > maxBytes) break;
    for (ssize_t written = 0; written < n;) {
      const ssize_t w = ::write(out.get(), buffer.data() + written, static_cast<std::size_t>(n - written));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        ::unlink(to.c_str());
        return ChildFileStatus::unreadable;
      }
      written += w;
    }
  }
  ::unlink(to.c_str());
  return copied > maxBytes ? ChildFileStatus::tooLarge : ChildFileStatus::unreadable;
}

void copyChildFiles(int dirFd, const std::filesystem::path& to, std::uint64_t maxBytes) {
  // A duplicate: closedir closes the descriptor it was given.
  DIR* dir = ::fdopendir(::fcntl(dirFd, F_DUPFD_CLOEXEC, 0));
  if (dir == nullptr) return;
  ::rewinddir(dir);
  std::uint64_t left = maxBytes;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == ".." || entry->d_type != DT_REG) continue;
    if (copyChildFile(dirFd, name, to / std::string(name), left) == ChildFileStatus::ok) {
      std::error_code ec;
      left -= std::min<std::uint64_t>(left, std::filesystem::file_size(to / std::string(name), ec));
    }
  }
  ::closedir(dir);
}

}  // namespace nndna::specrun
