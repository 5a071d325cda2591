// The server's layouts, each in a worker process of its own (`nndna-layout`,
// src/cli/layout_worker_main.cpp) instead of in the server:
// - Graphviz keeps its state in globals, so one process lays out one graph at a time; workers
//   lay out as many at once as there are of them.
// - A layout can be stopped at once (a cancelled request, the server stopping): its worker is
//   killed and replaced, where a layout in process runs to its end.
// - A crash in Graphviz ends a worker, not the server, and answers that request with an error.
//
// Protocol, over a socket pair that is the worker's stdin and stdout: once warmed up (Graphviz's
// fonts loaded) the worker writes 'R'. The server writes a request (8 bytes little-endian length,
// then the plan as JSON: diagram/layout_plan.hpp); the worker writes 'A' once it has read it all,
// then the answer: one byte ('S' an SVG follows, 'E' an error message follows), 8 bytes length,
// the bytes. A worker lays out requests until its stdin ends. A worker that ends before its 'A'
// never had the plan (it died idle: the OOM killer, a kill): the plan goes to a new worker.
//
// Workers run in a process group of their own (a terminal's Ctrl+C is the server's to handle),
// with no signal blocked and no file of the server's open.
//
// Thread-safety: layOut may be called from any number of threads; each waits for a free worker.
// The destructor must not run while a layOut does.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "diagram/layout_plan.hpp"

namespace nndna::server {

// layOut was stopped; its worker was killed and replaced.
class LayoutCancelled : public std::runtime_error {
 public:
  LayoutCancelled() : std::runtime_error("the layout was cancelled") {}
};

class LayoutWorkers {
 public:
  // Starts `count` (at least 1) workers running `program` and waits until each is ready. Throws
  // std::runtime_error when one cannot be started or ends before it is ready (a program that
  // cannot load its libraries, say).
  LayoutWorkers(std::filesystem::path program, std::size_t count);
  ~LayoutWorkers();  // ends the workers (their stdin closed; killed if they do not exit)
  LayoutWorkers(const LayoutWorkers&) = delete;
  LayoutWorkers& operator=(const LayoutWorkers&) = delete;

  // Lays `plan` out in the next free worker: its SVG (inline, as diagram::detail::layOut gives
  // it). Throws render::RenderError for Graphviz's own error or a worker that died on the plan,
  // LayoutCancelled once `stop` is requested (waiting for a worker, or laying out).
  std::string layOut(const diagram::detail::LayoutPlan& plan, std::stop_token stop);

  // The workers' process ids (-1: to be started at its next plan), for tests.
  std::vector<pid_t> pids() const;
  // How many workers hold a plan they acknowledged (they are laying it out), for tests.
  std::size_t layingOut() const;

 private:
  struct Worker {
    pid_t pid = -1;
    int fd = -1;  // the server's end of the socket pair
    bool busy = false;
    bool ready = false;     // its 'R' was read
    bool hasPlan = false;   // its 'A' was read, its answer not yet
  };
  // The worker's process and socket (pid and fd set under mutex_, as end() clears them). Throws
  // std::runtime_error.
  void start(Worker& w);
  int end(Worker& w);  // kills and reaps it, closes its socket; its wait status
  // Reads one byte from a busy worker, waiting as long as it takes unless `stop` is requested
  // (then kills the worker and throws LayoutCancelled); nullopt when the worker's output ended.
  std::optional<char> nextByte(Worker& w, std::stop_token stop);
  std::string exchange(Worker& w, const std::string& request, std::stop_token stop);

  std::filesystem::path program_;
  mutable std::mutex mutex_;
  std::condition_variable_any freed_;
  std::vector<Worker> workers_;
};

}  // namespace nndna::server
