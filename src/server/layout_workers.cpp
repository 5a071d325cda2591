#include "server/layout_workers.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "render/svg_render.hpp"

extern char** environ;

namespace nndna::server {

namespace {

// How often a layout's wait looks at its stop token.
constexpr int kStopPollMs = 50;
// How long the destructor gives a worker to exit after its stdin closed.
constexpr auto kExitWait = std::chrono::seconds(2);

// Writes all of `bytes`; false when the worker's end is gone. MSG_NOSIGNAL: a dead worker is an
// error here, not a SIGPIPE for the server.
bool sendAll(int fd, const void* bytes, std::size_t size) {
  const char* p = static_cast<const char*>(bytes);
  while (size > 0) {
    const ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Reads exactly `size` bytes; false at the end of the stream or on an error.
bool receiveAll(int fd, void* bytes, std::size_t size) {
  char* p = static_cast<char*>(bytes);
  while (size > 0) {
    const ssize_t n = ::recv(fd, p, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

std::array<unsigned char, 8> littleEndian(std::uint64_t v) {
  std::array<unsigned char, 8> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
  return out;
}

std::uint64_t fromLittleEndian(const unsigned char* bytes) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
  return v;
}

// What became of a worker that stopped answering, from its wait status.
std::string howItEnded(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return fmt::format("killed by signal {} ({})", sig, ::strsignal(sig));
  }
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return "ended";
}

}  // namespace

LayoutWorkers::LayoutWorkers(std::filesystem::path program, std::size_t count)
    : program_(std::move(program)), workers_(std::max<std::size_t>(count, 1)) {
  try {
    for (Worker& w : workers_) start(w);
  } catch (...) {
    for (Worker& w : workers_) end(w);
    throw;
  }
}

LayoutWorkers::~LayoutWorkers() {
  // A worker reads the end of its stdin and exits; one still laying out is killed.
  for (Worker& w : workers_) {
    if (w.fd >= 0) ::shutdown(w.fd, SHUT_WR);
  }
  const auto deadline = std::chrono::steady_clock::now() + kExitWait;
  for (Worker& w : workers_) {
    while (w.pid > 0 && ::waitpid(w.pid, nullptr, WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (w.pid > 0 && ::waitpid(w.pid, nullptr, WNOHANG) == 0) {
      end(w);
    } else {
      w.pid = -1;  // reaped above
      if (w.fd >= 0) ::close(w.fd);
      w.fd = -1;
    }
  }
}

void LayoutWorkers::start(Worker& w) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    throw std::runtime_error(fmt::format("layout worker: socketpair: {}", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // The worker's end becomes its stdin and stdout (dup2 clears close-on-exec on those); nothing
  // else of the server's is open in it: a client's socket held by a worker would keep that
  // connection open after the server closed it.
  posix_spawn_file_actions_adddup2(&actions, pair[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pair[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
  const std::string path = program_.string();
  char* argv[] = {const_cast<char*>(path.c_str()), nullptr};
  pid_t pid = -1;
  const int error = ::posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pair[1]);
  if (error != 0) {
    ::close(pair[0]);
    throw std::runtime_error(fmt::format("layout worker: cannot start {}: {}", path, std::strerror(error)));
  }
  w.pid = pid;
  w.fd = pair[0];
}

void LayoutWorkers::end(Worker& w) {
  if (w.pid > 0) {
    ::kill(w.pid, SIGKILL);
    ::waitpid(w.pid, nullptr, 0);
  }
  if (w.fd >= 0) ::close(w.fd);
  w.pid = -1;
  w.fd = -1;
}

std::string LayoutWorkers::layOut(const diagram::detail::LayoutPlan& plan, std::stop_token stop) {
  const std::string request = diagram::detail::planToJson(plan);
  std::unique_lock lock(mutex_);
  Worker* free = nullptr;
  freed_.wait(lock, stop, [&] {
    for (Worker& w : workers_) {
      if (!w.busy) {
        free = &w;
        return true;
      }
    }
    return false;
  });
  if (free == nullptr) throw LayoutCancelled();
  Worker& w = *free;
  w.busy = true;
  lock.unlock();
  struct Release {
    LayoutWorkers& self;
    Worker& w;
    ~Release() {
      {
        const std::lock_guard guard(self.mutex_);
        w.busy = false;
      }
      self.freed_.notify_one();
    }
  } release{*this, w};
  return exchange(w, request, stop);
}

std::string LayoutWorkers::exchange(Worker& w, const std::string& request, std::stop_token stop) {
  const auto length = littleEndian(request.size());
  auto sent = [&] { return sendAll(w.fd, length.data(), length.size()) && sendAll(w.fd, request.data(), request.size()); };
  if (!sent()) {
    // It died while idle (a crash on the last plan ends it after answering, or it was killed):
    // this plan never reached it, so it goes to a new one.
    end(w);
    start(w);
    if (!sent()) {
      end(w);
      start(w);
      throw render::RenderError("the layout process did not take the graph");
    }
  }
  pollfd readable{w.fd, POLLIN, 0};
  for (;;) {
    if (stop.stop_requested()) {
      end(w);
      start(w);
      throw LayoutCancelled();
    }
    const int ready = ::poll(&readable, 1, kStopPollMs);
    if (ready > 0) break;
    if (ready < 0 && errno != EINTR) break;  // the read below says what became of it
  }
  unsigned char head[9];
  std::string body;
  bool whole = receiveAll(w.fd, head, sizeof head);
  if (whole) {
    body.resize(fromLittleEndian(head + 1));
    whole = receiveAll(w.fd, body.data(), body.size());
  }
  if (!whole) {
    int status = 0;
    const pid_t pid = w.pid;
    ::kill(pid, SIGKILL);  // no-op when it already ended; ends one that merely closed its output
    ::waitpid(pid, &status, 0);
    w.pid = -1;
    ::close(w.fd);
    w.fd = -1;
    start(w);
    throw render::RenderError(fmt::format("the layout process ended on this diagram: {}", howItEnded(status)));
  }
  if (head[0] == 'S') return body;
  throw render::RenderError(std::move(body));
}

std::vector<pid_t> LayoutWorkers::pids() const {
  const std::lock_guard guard(mutex_);
  std::vector<pid_t> out;
  for (const Worker& w : workers_) out.push_back(w.pid);
  return out;
}

}  // namespace nndna::server
