// Builds precompiled headers on a thread of its own, so that a compile need not wait for one:
// in `nndna serve`, an edit that adds `#include <cmath>` is drawn at once with the PCH of
// nndna.hpp alone, while the PCH with <cmath> is built for the edits after it. See
// docs/specrun.md, "Standard headers in the PCH".
#pragma once

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "specrun/sandbox.hpp"
#include "specrun/toolchain.hpp"

namespace nndna::specrun {

class PchBuilder {
 public:
  PchBuilder();
  // Stops the build in progress (its compiler is killed, nothing of it is kept) and drops the
  // queued ones.
  ~PchBuilder();
  PchBuilder(const PchBuilder&) = delete;
  PchBuilder& operator=(const PchBuilder&) = delete;

  // Queues the PCH of `standardHeaders` in `cache` (precompiledHeader's arguments). A request
  // for one already queued or being built is dropped; one built already returns at once. At
  // most kMaxQueued wait: beyond that the oldest is dropped.
  void request(const Toolchain& toolchain, const std::filesystem::path& cache,
               std::span<const std::string_view> standardHeaders, const SandboxLimits& limits);

  // Blocks until nothing is queued or being built (tests, benchmarks).
  void waitIdle();

  static constexpr std::size_t kMaxQueued = 4;

 private:
  struct Job {
    std::string key;  // the cache and the headers: requests with the same key are one build
    Toolchain toolchain;
    std::filesystem::path cache;
    std::vector<std::string> headers;
    SandboxLimits limits;
  };
  void run(std::stop_token stop);

  std::mutex mutex_;
  std::condition_variable_any changed_;
  std::deque<Job> queue_;
  std::set<std::string> pending_;  // keys queued or being built
  std::jthread thread_;  // last: started after the members it uses, stopped first
};

}  // namespace nndna::specrun
