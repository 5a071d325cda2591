// A real `nndna serve` in the test process, on a free loopback port, for the HTTP tests.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/app_server.hpp"
#include "server/built_in_files.hpp"

namespace nndna::server::test_support {

using nlohmann::json;
using namespace std::chrono_literals;

inline std::string exampleSource(std::string_view name) {
  for (const EmbeddedFile& f : exampleSourceFiles()) {
    if (f.name == std::string(name) + ".cpp") return std::string(f.bytes);
  }
  ADD_FAILURE() << "no example " << name;
  return {};
}

// A plain TCP connection to 127.0.0.1:`port` (for requests no HTTP client would send, or
// abandon); -1 when it fails. The caller closes it.
inline int connectToLoopback(int port) {
  const int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  if (sock < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(sock);
    return -1;
  }
  return sock;
}

// The server's request log, written by its threads and read by the test's: a stream buffer with
// no put area, so every character written goes through a call that takes the lock.
class LockedLog : public std::streambuf {
 public:
  std::string text() const {
    std::lock_guard lock(mutex_);
    return text_;
  }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    std::lock_guard lock(mutex_);
    text_ += traits_type::to_char_type(c);
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::lock_guard lock(mutex_);
    text_.append(s, static_cast<std::size_t>(n));
    return n;
  }

 private:
  mutable std::mutex mutex_;
  std::string text_;
};

// The server answers on 127.0.0.1 with the built-in page and examples, and the test's compile
// cache unless `options` names one; everything else comes from `options`. Its request log is kept for the tests.
class Server {
 public:
  explicit Server(ServeOptions options) {
    options.host = "127.0.0.1";
    options.port = 0;
    if (!options.jobSettings.cacheDir) options.jobSettings.cacheDir = std::filesystem::path(NNDNA_TEST_CACHE_DIR);
    options.webFiles = webAssetFiles();
    options.exampleFiles = exampleSourceFiles();
    options.log = &log_;
    app_ = std::make_unique<AppServer>(options);
    port_ = app_->bind();
    thread_ = std::thread([this] { app_->listen(); });
    for (int i = 0; i < 500 && !app_->isRunning(); ++i) std::this_thread::sleep_for(10ms);
  }
  ~Server() {
    app_->stop();
    thread_.join();
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(300, 0);
    c.set_decompress(false);
    return c;
  }
  int port() const { return port_; }
  std::string log() const { return logBuffer_.text(); }
  // The log once it holds `text`, or after 5 s as it is: a request's line is written after its
  // response has gone out, so a client can have its answer before the line is there.
  std::string logOnceItHolds(std::string_view text) const {
    for (int i = 0; i < 200 && log().find(text) == std::string::npos; ++i) std::this_thread::sleep_for(25ms);
    return log();
  }
  json health() const {
    auto r = client().Get("/api/health");
    return r ? json::parse(r->body) : json();
  }

 private:
  LockedLog logBuffer_;
  std::ostream log_{&logBuffer_};
  std::unique_ptr<AppServer> app_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace nndna::server::test_support
