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
// How long the constructor waits for a worker's ready mark (Graphviz's fonts load in well under a
// second; a sanitizer build on a loaded machine takes longer).
constexpr auto kReadyWait = std::chrono::seconds(60);

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
    const char* name = ::sigdescr_np(sig);
    return fmt::format("killed by signal {} ({})", sig, name != nullptr ? name : "unknown");
  }
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return "ended";
}

// The largest answer read from a worker: an SVG is far smaller; a larger length is a garbled
// stream, not an answer.
constexpr std::uint64_t kMaxAnswerBytes = std::uint64_t{1} << 32;

}  // namespace

LayoutWorkers::LayoutWorkers(std::filesystem::path program, std::size_t count)
    : program_(std::move(program)), workers_(std::max<std::size_t>(count, 1)) {
  try {
    for (Worker& w : workers_) start(w);
    // Ready, or why not: a program that cannot load its libraries exits 127 here, not at the
    // first diagram; one that hangs is given up after kReadyWait.
    std::stop_source giveUp;
    const std::jthread timer([&giveUp](std::stop_token done) {
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock lock(m);
      cv.wait_for(lock, done, kReadyWait, [&] { return done.stop_requested(); });
      if (!done.stop_requested()) giveUp.request_stop();
    });
    for (Worker& w : workers_) {
      std::optional<char> ready;
      try {
        ready = nextByte(w, giveUp.get_token());
      } catch (const LayoutCancelled&) {
        throw std::runtime_error(fmt::format("layout worker {} was not ready within {} s", program_.string(),
                                             kReadyWait.count()));
      }
      if (ready != 'R') {
        throw std::runtime_error(fmt::format("layout worker {} did not start: {}", program_.string(),
                                             ready ? "it wrote something else than its ready mark" : howItEnded(end(w))));
      }
      w.ready = true;
    }
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
    bool reaped = w.pid <= 0;
    while (!reaped && std::chrono::steady_clock::now() < deadline) {
      reaped = ::waitpid(w.pid, nullptr, WNOHANG) != 0;
      if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (reaped) w.pid = -1;  // end() then only closes its socket
    end(w);
  }
}

void LayoutWorkers::start(Worker& w) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    throw std::runtime_error(fmt::format("layout worker: socketpair: {}", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  // The worker's end becomes its stdin and stdout (dup2 clears close-on-exec on those); nothing
  // else of the server's is open in it: a client's socket held by a worker would keep that
  // connection open after the server closed it. Its own process group: a terminal's Ctrl+C goes
  // to the server, which ends the workers itself. No signal blocked, whichever thread starts it.
  sigset_t none;
  sigemptyset(&none);
  const bool set = posix_spawn_file_actions_adddup2(&actions, pair[1], STDIN_FILENO) == 0 &&
                   posix_spawn_file_actions_adddup2(&actions, pair[1], STDOUT_FILENO) == 0 &&
                   posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1) == 0 &&
                   posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK) == 0 &&
                   posix_spawnattr_setpgroup(&attributes, 0) == 0 && posix_spawnattr_setsigmask(&attributes, &none) == 0;
  const std::string path = program_.string();
  char* argv[] = {const_cast<char*>(path.c_str()), nullptr};
  pid_t pid = -1;
  const int error = set ? ::posix_spawn(&pid, path.c_str(), &actions, &attributes, argv, environ) : ENOMEM;
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(pair[1]);
  if (error != 0) {
    ::close(pair[0]);
    throw std::runtime_error(fmt::format("layout worker: cannot start {}: {}", path, std::strerror(error)));
  }
  const std::lock_guard guard(mutex_);
  w.pid = pid;
  w.fd = pair[0];
  w.ready = false;
  w.hasPlan = false;
}

int LayoutWorkers::end(Worker& w) {
  int status = 0;
  if (w.pid > 0) {
    ::kill(w.pid, SIGKILL);  // no-op when it already ended; ends one that merely closed its output
    ::waitpid(w.pid, &status, 0);
  }
  if (w.fd >= 0) ::close(w.fd);
  const std::lock_guard guard(mutex_);
  w.pid = -1;
  w.fd = -1;
  w.ready = false;
  w.hasPlan = false;
  return status;
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
  if (free == nullptr || stop.stop_requested()) throw LayoutCancelled();
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

std::optional<char> LayoutWorkers::nextByte(Worker& w, std::stop_token stop) {
  pollfd readable{w.fd, POLLIN, 0};
  for (;;) {
    if (stop.stop_requested()) {
      end(w);  // the next plan starts a new one
      throw LayoutCancelled();
    }
    const int ready = ::poll(&readable, 1, kStopPollMs);
    if (ready > 0) break;
    if (ready < 0 && errno != EINTR) break;  // the read below says what became of it
  }
  char byte = 0;
  if (!receiveAll(w.fd, &byte, 1)) return std::nullopt;
  return byte;
}

std::string LayoutWorkers::exchange(Worker& w, const std::string& request, std::stop_token stop) {
  const auto length = littleEndian(request.size());
  // A worker that ends before it has taken the plan (killed while idle) is replaced and the plan
  // sent again, once; one that ends after taking it ended on this plan.
  for (int attempt = 0;; ++attempt) {
    if (w.pid < 0) {
      try {
        start(w);
      } catch (const std::runtime_error& e) {
        throw render::RenderError(e.what());
      }
    }
    if (!w.ready) {
      const std::optional<char> ready = nextByte(w, stop);
      if (ready != 'R') {
        throw render::RenderError(fmt::format("the layout process did not start: {}", howItEnded(end(w))));
      }
      w.ready = true;
    }
    const bool sent = sendAll(w.fd, length.data(), length.size()) && sendAll(w.fd, request.data(), request.size());
    const std::optional<char> taken = sent ? nextByte(w, stop) : std::nullopt;
    if (taken == 'A') break;
    end(w);
    if (attempt == 1) throw render::RenderError("the layout process did not take the graph");
  }
  {
    const std::lock_guard guard(mutex_);
    w.hasPlan = true;
  }
  const std::optional<char> kind = nextByte(w, stop);
  unsigned char size[8];
  std::string body;
  bool whole = kind.has_value() && receiveAll(w.fd, size, sizeof size);
  if (whole) {
    const std::uint64_t n = fromLittleEndian(size);
    whole = n <= kMaxAnswerBytes;
    if (whole) {
      body.resize(n);
      whole = receiveAll(w.fd, body.data(), body.size());
    }
  }
  {
    const std::lock_guard guard(mutex_);
    w.hasPlan = false;
  }
  if (!whole || (kind != 'S' && kind != 'E')) {
    throw render::RenderError(fmt::format("the layout process ended on this diagram: {}", howItEnded(end(w))));
  }
  if (kind == 'S') return body;
  throw render::RenderError(std::move(body));
}

std::vector<pid_t> LayoutWorkers::pids() const {
  const std::lock_guard guard(mutex_);
  std::vector<pid_t> out;
  for (const Worker& w : workers_) out.push_back(w.pid);
  return out;
}

std::size_t LayoutWorkers::layingOut() const {
  const std::lock_guard guard(mutex_);
  std::size_t n = 0;
  for (const Worker& w : workers_) n += w.hasPlan ? 1 : 0;
  return n;
}

}  // namespace nndna::server
