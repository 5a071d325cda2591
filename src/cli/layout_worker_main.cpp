// nndna-layout: the layout worker `nndna serve` starts (src/server/layout_workers.hpp has the
// protocol): reads layout plans from stdin, writes their SVG (or Graphviz's error) to stdout, one
// after the other, until stdin ends: 'R' once ready, 'A' once it has a plan, then the answer. Not
// a command for people: it reads binary frames.
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <exception>
#include <string>

#include "diagram/layout_plan.hpp"
#include "diagram/warm_up.hpp"

namespace {

// A plan is a diagram's DOT: far below this, which only guards against a garbled length.
constexpr std::uint64_t kMaxPlanBytes = std::uint64_t{1} << 32;

// The protocol's output: stdout as started, moved aside so that nothing a library prints can
// fall into it (stdout then goes where stderr goes).
int g_protocolOut = STDOUT_FILENO;

bool readAll(void* bytes, std::size_t size) {
  char* p = static_cast<char*>(bytes);
  while (size > 0) {
    const ssize_t n = ::read(STDIN_FILENO, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool writeAll(const void* bytes, std::size_t size) {
  const char* p = static_cast<const char*>(bytes);
  while (size > 0) {
    const ssize_t n = ::write(g_protocolOut, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool writeMark(char mark) { return writeAll(&mark, 1); }

}  // namespace

int main() {
  g_protocolOut = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (g_protocolOut < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return 2;
  // Pango and the fonts load before the first plan arrives, not while a user waits for it.
  nndna::diagram::warmUpRenderer();
  if (!writeMark('R')) return 0;
  for (;;) {
    std::array<unsigned char, 8> head{};
    if (!readAll(head.data(), head.size())) return 0;  // the server closed our stdin: done
    std::uint64_t size = 0;
    for (std::size_t i = 0; i < head.size(); ++i) size |= static_cast<std::uint64_t>(head[i]) << (8 * i);
    if (size > kMaxPlanBytes) return 2;
    std::string request(size, '\0');
    if (!readAll(request.data(), request.size()) || !writeMark('A')) return 0;
    char status = 'S';
    std::string answer;
    try {
      answer = nndna::diagram::detail::layOut(nndna::diagram::detail::planFromJson(request));
    } catch (const std::exception& e) {
      status = 'E';
      answer = e.what();
    }
    std::array<unsigned char, 9> reply{};
    reply[0] = static_cast<unsigned char>(status);
    for (std::size_t i = 0; i < 8; ++i) reply[1 + i] = static_cast<unsigned char>(std::uint64_t{answer.size()} >> (8 * i));
    if (!writeAll(reply.data(), reply.size()) || !writeAll(answer.data(), answer.size())) return 0;
  }
}
