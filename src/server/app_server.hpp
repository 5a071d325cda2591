// `nndna serve`: the HTTP API and the web app (docs/serve.md).
//
// Thread-safety: bind() and listen() from one thread; stop() from any thread (a signal handler's
// thread, a test). listen() returns once stop() was called and the open requests ended.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <ostream>
#include <span>
#include <string>

#include "server/built_in_files.hpp"
#include "server/design_job.hpp"
#include "server/diagram_job.hpp"

namespace nndna::server {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;             // 0: any free port (bind() returns it)
  std::size_t jobs = 0;        // compile-and-draw jobs at once; 0: the number of cores
  std::size_t maxQueued = 32;  // jobs waiting beyond those; more answer 503 with Retry-After
  std::size_t maxConnections = 32;  // connections served at once (more wait to be accepted)
  std::chrono::seconds requestTimeout{180};  // a diagram request's deadline (504 beyond)
  std::chrono::seconds ioTimeout{10};        // each read of a request, each write of an answer
  std::chrono::seconds readTime{120};        // a request's whole arrival, head and body (slow clients)
  std::size_t maxSourceBytes = 256 << 10;    // a larger source answers 413
  DiagramJobSettings jobSettings;
  DesignSettings design;  // POST /api/design: the endpoint (or offline), its limits
  std::span<const EmbeddedFile> webFiles;      // the page: index.html, app.js, app.css, ...
  std::span<const EmbeddedFile> exampleFiles;  // examples/*.cpp
  std::ostream* log = nullptr;  // one line per request; nullptr: no log
  bool warmUp = true;  // draw the default example at start-up (its compile cached for the page)
};

class AppServer {
 public:
  explicit AppServer(ServeOptions options);
  ~AppServer();
  AppServer(const AppServer&) = delete;
  AppServer& operator=(const AppServer&) = delete;

  // Binds the listening socket; returns the port. Throws std::runtime_error when it cannot.
  int bind();
  // Serves until stop(). Call after bind().
  void listen();
  void stop();
  bool isRunning() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Whether `host` names a loopback address (127.0.0.0/8, ::1, localhost): anything else exposes
// the server, and its compiles, to the network.
bool isLoopbackHost(std::string_view host);

}  // namespace nndna::server
