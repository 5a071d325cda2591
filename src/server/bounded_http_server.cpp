#include "server/bounded_http_server.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <string_view>

namespace nndna::server {
namespace {

thread_local bool t_closeAfterResponse = false;
thread_local BoundedHttpServer::CutOff t_cutOff = BoundedHttpServer::CutOff::no;

// poll() for `events` on `sock` for up to `timeout` (EINTR retried): > 0 ready, 0 timed out.
int waitFor(int sock, short events, std::chrono::milliseconds timeout) {
  pollfd p{.fd = sock, .events = events, .revents = 0};
  while (true) {
    const int n = ::poll(&p, 1, static_cast<int>(timeout.count()));
    if (n >= 0 || errno != EINTR) return n;
  }
}

std::chrono::milliseconds toMs(time_t sec, time_t usec) {
  return std::chrono::milliseconds(sec * 1000 + usec / 1000);
}

void addressOf(int sock, bool remote, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t length = sizeof addr;
  auto* a = reinterpret_cast<sockaddr*>(&addr);
  if ((remote ? ::getpeername(sock, a, &length) : ::getsockname(sock, a, &length)) != 0) return;
  if (addr.ss_family == AF_INET) {
    port = ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    port = ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  } else {
    return;
  }
  std::array<char, NI_MAXHOST> host{};
  if (::getnameinfo(a, length, host.data(), host.size(), nullptr, 0, NI_NUMERICHOST) == 0) ip = host.data();
}

// A connection's stream for one request, as cpp-httplib's own socket stream behaves (reads
// buffered, each wait bounded by the server's timeouts), within the request's limits.
class BoundedSocketStream final : public httplib::Stream {
 public:
  BoundedSocketStream(int sock, std::chrono::milliseconds readTimeout, std::chrono::milliseconds writeTimeout,
                      const RequestLimits& limits)
      : sock_(sock),
        readTimeout_(readTimeout),
        writeTimeout_(writeTimeout),
        headLeft_(limits.headBytes),
        bodyLeft_(limits.bodyBytes),
        deadline_(std::chrono::steady_clock::now() + limits.readTime) {}

  bool is_readable() const override {
    const auto left = timeLeft();
    return left.count() > 0 && waitFor(sock_, POLLIN, std::min(readTimeout_, left)) > 0;
  }

  // Writable, and the client has not gone: a closed peer reads as end of file.
  bool is_writable() const override {
    if (waitFor(sock_, POLLOUT, writeTimeout_) <= 0) return false;
    if (waitFor(sock_, POLLIN, std::chrono::milliseconds(0)) == 0) return true;
    char byte = 0;
    return ::recv(sock_, &byte, 1, MSG_PEEK) > 0;
  }

  ssize_t read(char* ptr, std::size_t size) override {
    std::size_t& left = inHead_ ? headLeft_ : bodyLeft_;
    if (left == 0) {
      t_cutOff = BoundedHttpServer::CutOff::tooLarge;
      return -1;
    }
    if (begin_ == end_) {
      // Past the I/O timeout a read fails as the library's would; at the request's deadline the
      // request was too slow.
      const auto left = timeLeft();
      if (left.count() <= 0 || waitFor(sock_, POLLIN, std::min(readTimeout_, left)) <= 0) {
        if (left <= readTimeout_) t_cutOff = BoundedHttpServer::CutOff::tooSlow;
        return -1;
      }
      const ssize_t n = receive(buffer_.data(), buffer_.size());
      if (n <= 0) return n;
      begin_ = 0;
      end_ = static_cast<std::size_t>(n);
    }
    std::size_t n = std::min({size, end_ - begin_, left});
    if (inHead_) n = takeHead(n);
    std::memcpy(ptr, buffer_.data() + begin_, n);
    begin_ += n;
    left -= n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, std::size_t size) override {
    if (!is_writable()) return -1;
    while (true) {
      const ssize_t n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
      if (n >= 0 || errno != EINTR) return n;
    }
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { addressOf(sock_, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { addressOf(sock_, false, ip, port); }
  socket_t socket() const override { return sock_; }

 private:
  // Of the next `n` buffered bytes, how many to hand over while the head lasts: up to and
  // including the blank line that ends it ("\r\n\r\n"), after which the body's limit applies.
  std::size_t takeHead(std::size_t n) {
    constexpr std::string_view kEnd = "\r\n\r\n";
    for (std::size_t i = 0; i < n; ++i) {
      const char c = buffer_[begin_ + i];
      matched_ = c == kEnd[matched_] ? matched_ + 1 : (c == '\r' ? 1 : 0);
      if (matched_ == kEnd.size()) {
        inHead_ = false;
        return i + 1;
      }
    }
    return n;
  }

  std::chrono::milliseconds timeLeft() const {
    return std::chrono::ceil<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
  }

  ssize_t receive(char* into, std::size_t size) const {
    while (true) {
      const ssize_t n = ::recv(sock_, into, size, 0);
      if (n >= 0 || errno != EINTR) return n;
    }
  }

  int sock_;
  std::chrono::milliseconds readTimeout_, writeTimeout_;
  bool inHead_ = true;
  std::size_t matched_ = 0;  // how much of "\r\n\r\n" the head's last bytes were
  std::size_t headLeft_, bodyLeft_;
  std::chrono::steady_clock::time_point deadline_;
  std::array<char, 4096> buffer_{};
  std::size_t begin_ = 0, end_ = 0;
};

}  // namespace

void BoundedHttpServer::closeAfterThisResponse() { t_closeAfterResponse = true; }

BoundedHttpServer::CutOff BoundedHttpServer::requestCutOff() { return t_cutOff; }

// Keep-alive as cpp-httplib serves it: up to keep_alive_max_count_ requests, each next one
// awaited for keep_alive_timeout_sec_, none once the server stops.
bool BoundedHttpServer::process_and_close_socket(socket_t sock) {
  bool ok = false;
  for (std::size_t left = keep_alive_max_count_; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(keep_alive_timeout_sec_);
    int ready = 0;
    while (svr_sock_ != INVALID_SOCKET && (ready = waitFor(sock, POLLIN, std::chrono::milliseconds(10))) == 0 &&
           std::chrono::steady_clock::now() < deadline) {
    }
    if (ready <= 0) break;
    BoundedSocketStream stream(sock, toMs(read_timeout_sec_, read_timeout_usec_),
                               toMs(write_timeout_sec_, write_timeout_usec_), limits_);
    t_closeAfterResponse = false;
    t_cutOff = CutOff::no;
    bool clientClosing = false;
    ok = process_request(stream, /*close_connection=*/left == 1, clientClosing, nullptr);
    if (!ok || clientClosing || t_closeAfterResponse || t_cutOff != CutOff::no) break;
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace nndna::server
