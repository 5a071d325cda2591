// How often one client may start an expensive request (a design asks a paid model): at most
// `limit` requests in any window of `window`, per key (the client's address).
//
// Thread-safety: admit() may be called from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace nndna::server {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // limit 0: no limit.
  RateLimiter(std::size_t limit, Clock::duration window);

  // Counts a request of `key` at `now` and returns nullopt, or, when `key` already made `limit`
  // requests in the window before `now`, counts nothing and returns how long until one of them
  // leaves the window (rounded up to whole seconds, at least 1).
  std::optional<std::chrono::seconds> admit(const std::string& key, Clock::time_point now);

 private:
  const std::size_t limit_;
  const Clock::duration window_;
  std::mutex mutex_;
  std::map<std::string, std::deque<Clock::time_point>> recent_;  // each key's requests in the window
};

}  // namespace nndna::server
