// A real `nndna serve` in the test process, on a free loopback port, for the HTTP tests.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <sstream>
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

// The server answers on 127.0.0.1 with the test's compile cache and the built-in page and
// examples; everything else comes from `options`. Its request log is kept for the tests.
class Server {
 public:
  explicit Server(ServeOptions options) {
    options.host = "127.0.0.1";
    options.port = 0;
    options.jobSettings.cacheDir = std::filesystem::path(NNDNA_TEST_CACHE_DIR);
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
  std::string log() const { return log_.str(); }
  json health() const {
    auto r = client().Get("/api/health");
    return r ? json::parse(r->body) : json();
  }

 private:
  std::ostringstream log_;
  std::unique_ptr<AppServer> app_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace nndna::server::test_support
