// The bounded pool that runs compile-and-draw jobs: at most `workers` at once, at most
// `maxQueued` waiting, and one job per key — a request for a source that is already queued or
// running joins that job instead of starting another (the seed's single flight). A job that must
// wait for a worker has the stage `queue` as its first progress events:
// `{"type":"stage","stage":"queue","state":"start","ahead":N}` (N jobs queued before it), then
// `..."state":"done","seconds":S}` when a worker takes it.
//
// Thread-safety: every member is safe to call from any thread. A JobTicket must not outlive its
// JobPool. A job is cancelled (its stop token triggered; a queued job never starts) as soon as the
// last ticket for it is gone before it finished.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace nndna::server {

// What a job answers: an HTTP status and body.
struct JobOutcome {
  int status = 500;
  std::string body;
  std::string contentType = "application/json";
  bool cacheHit = false;  // the spec's compile came from the cache (for the request log)
};

// Reports one progress event (one line of the progress stream: a JSON object, no newline).
using ProgressFn = std::function<void(std::string event)>;
using JobFn = std::function<JobOutcome(std::stop_token stop, const ProgressFn& progress)>;

class JobPool;

namespace detail {
struct JobState;
}

// A request's hold on a job: it sees the job's progress and outcome. Move-only.
class JobTicket {
 public:
  JobTicket(JobTicket&& other) noexcept;
  JobTicket& operator=(JobTicket&&) = delete;
  JobTicket(const JobTicket&) = delete;
  ~JobTicket();

  // Waits until the job has progress events past `seen` (appended to `events`, `seen` advanced),
  // has finished, `until` has passed, or `cancel` was requested. Returns the outcome once the job
  // finished, else nullopt.
  std::optional<JobOutcome> wait(std::size_t& seen, std::vector<std::string>& events,
                                 std::chrono::steady_clock::time_point until, std::stop_token cancel);
  // Whether this request joined a job another request had started.
  bool joined() const { return joined_; }

 private:
  friend class JobPool;
  JobTicket(JobPool* pool, std::shared_ptr<detail::JobState> job, bool joined);
  JobPool* pool_;
  std::shared_ptr<detail::JobState> job_;
  bool joined_ = false;
};

class JobPool {
 public:
  JobPool(std::size_t workers, std::size_t maxQueued);
  ~JobPool();  // cancels every job and joins the workers
  JobPool(const JobPool&) = delete;
  JobPool& operator=(const JobPool&) = delete;

  // Joins the queued or running job with this key, or queues `fn` as a new one. nullopt when
  // the queue already holds maxQueued jobs (the caller answers 503).
  std::optional<JobTicket> submit(const std::string& key, JobFn fn);

  struct Stats {
    std::size_t running = 0, queued = 0, workers = 0, maxQueued = 0;
  };
  Stats stats() const;

 private:
  friend class JobTicket;
  void workerLoop(std::stop_token stop);
  void leave(const std::shared_ptr<detail::JobState>& job);

  const std::size_t maxQueued_;
  mutable std::mutex mutex_;
  std::condition_variable_any wake_;
  std::deque<std::shared_ptr<detail::JobState>> queue_;
  std::map<std::string, std::weak_ptr<detail::JobState>> byKey_;  // queued or running
  std::size_t running_ = 0;
  std::vector<std::jthread> workers_;  // last: joined before the rest is destroyed
};

}  // namespace nndna::server
