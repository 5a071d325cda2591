#include "server/rate_limiter.hpp"

#include <algorithm>

namespace nndna::server {

RateLimiter::RateLimiter(std::size_t limit, Clock::duration window) : limit_(limit), window_(window) {}

std::optional<std::chrono::seconds> RateLimiter::admit(const std::string& key, Clock::time_point now) {
  if (limit_ == 0) return std::nullopt;
  std::lock_guard lock(mutex_);
  // Forget every key's requests that left the window, so the map holds only recent clients.
  for (auto it = recent_.begin(); it != recent_.end();) {
    std::deque<Clock::time_point>& times = it->second;
    while (!times.empty() && times.front() + window_ <= now) times.pop_front();
    it = times.empty() ? recent_.erase(it) : std::next(it);
  }
  std::deque<Clock::time_point>& times = recent_[key];
  if (times.size() < limit_) {
    times.push_back(now);
    return std::nullopt;
  }
  const Clock::duration wait = times.front() + window_ - now;
  const auto seconds = std::chrono::ceil<std::chrono::seconds>(wait);
  return std::max(seconds, std::chrono::seconds(1));
}

}  // namespace nndna::server
