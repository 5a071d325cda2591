#include "server/job_pool.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

namespace nndna::server {

namespace detail {

struct JobState {
  std::string key;
  JobFn fn;
  std::stop_source stop;
  std::mutex mutex;  // guards the fields below; taken after JobPool::mutex_ when both are
  std::condition_variable_any changed;
  std::vector<std::string> events;
  std::optional<JobOutcome> outcome;
  int tickets = 0;
  bool started = false;
  std::optional<std::chrono::steady_clock::time_point> queuedAt;  // set when it had to wait
};

}  // namespace detail

namespace {

JobOutcome cancelledOutcome() {
  return {.status = 409, .body = R"({"ok":false,"error":{"kind":"cancelled","message":"the request was cancelled"}})"};
}

}  // namespace

JobTicket::JobTicket(JobPool* pool, std::shared_ptr<detail::JobState> job, bool joined)
    : pool_(pool), job_(std::move(job)), joined_(joined) {}

JobTicket::JobTicket(JobTicket&& other) noexcept
    : pool_(other.pool_), job_(std::move(other.job_)), joined_(other.joined_) {}

JobTicket::~JobTicket() {
  if (job_) pool_->leave(job_);
}

std::optional<JobOutcome> JobTicket::wait(std::size_t& seen, std::vector<std::string>& events,
                                          std::chrono::steady_clock::time_point until, std::stop_token cancel) {
  std::unique_lock lock(job_->mutex);
  job_->changed.wait_until(lock, cancel, until,
                           [&] { return job_->outcome.has_value() || job_->events.size() > seen; });
  events.insert(events.end(), job_->events.begin() + static_cast<std::ptrdiff_t>(seen), job_->events.end());
  seen = job_->events.size();
  return job_->outcome;
}

JobPool::JobPool(std::size_t workers, std::size_t maxQueued) : maxQueued_(maxQueued) {
  workers = std::max<std::size_t>(workers, 1);
  for (std::size_t i = 0; i < workers; ++i) {
    workers_.emplace_back([this](std::stop_token stop) { workerLoop(stop); });
  }
}

JobPool::~JobPool() {
  {
    std::lock_guard lock(mutex_);
    for (auto& [key, weak] : byKey_) {
      if (auto job = weak.lock()) job->stop.request_stop();
    }
  }
  for (std::jthread& w : workers_) w.request_stop();
  wake_.notify_all();
  workers_.clear();  // joins
}

std::optional<JobTicket> JobPool::submit(const std::string& key, JobFn fn) {
  std::lock_guard lock(mutex_);
  if (auto it = byKey_.find(key); it != byKey_.end()) {
    if (auto job = it->second.lock()) {
      std::lock_guard jobLock(job->mutex);
      if (!job->outcome && !job->stop.stop_requested()) {
        ++job->tickets;
        return JobTicket(this, job, true);
      }
    }
  }
  if (queue_.size() >= maxQueued_) return std::nullopt;
  auto job = std::make_shared<detail::JobState>();
  job->key = key;
  job->fn = std::move(fn);
  job->tickets = 1;
  // Every worker busy: the stream says it waits, and behind how many, until a worker takes it.
  if (running_ + queue_.size() >= workers_.size()) {
    job->queuedAt = std::chrono::steady_clock::now();
    job->events.push_back(fmt::format(R"({{"type":"stage","stage":"queue","state":"start","ahead":{}}})", queue_.size()));
  }
  queue_.push_back(job);
  byKey_[key] = job;
  wake_.notify_one();
  return JobTicket(this, job, false);
}

void JobPool::leave(const std::shared_ptr<detail::JobState>& job) {
  std::lock_guard lock(mutex_);
  std::lock_guard jobLock(job->mutex);
  if (--job->tickets > 0 || job->outcome) return;
  // Nobody waits for it any more: stop it, and let the next identical request start afresh.
  job->stop.request_stop();
  if (auto it = byKey_.find(job->key); it != byKey_.end() && it->second.lock() == job) byKey_.erase(it);
  if (!job->started) std::erase(queue_, job);
}

JobPool::Stats JobPool::stats() const {
  std::lock_guard lock(mutex_);
  return {.running = running_, .queued = queue_.size(), .workers = workers_.size(), .maxQueued = maxQueued_};
}

void JobPool::workerLoop(std::stop_token stop) {
  while (true) {
    std::shared_ptr<detail::JobState> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, stop, [&] { return !queue_.empty(); });
      if (stop.stop_requested()) return;
      job = queue_.front();
      queue_.pop_front();
      std::lock_guard jobLock(job->mutex);
      job->started = true;
      ++running_;
      if (job->queuedAt) {
        const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - *job->queuedAt).count();
        job->events.push_back(fmt::format(R"({{"type":"stage","stage":"queue","state":"done","seconds":{:.3f}}})", waited));
        job->changed.notify_all();
      }
    }
    const ProgressFn progress = [&job](std::string event) {
      {
        std::lock_guard jobLock(job->mutex);
        job->events.push_back(std::move(event));
      }
      job->changed.notify_all();
    };
    JobOutcome outcome;
    if (job->stop.stop_requested()) {
      outcome = cancelledOutcome();
    } else {
      try {
        outcome = job->fn(job->stop.get_token(), progress);
      } catch (const std::exception& e) {
        // The job function answers every error a spec can cause; anything else is a server bug:
        // logged, and answered as one, so the worker and the waiting requests carry on.
        std::cerr << "nndna serve: internal error in a job: " << e.what() << "\n";
        outcome = {.status = 500,
                   .body = R"({"ok":false,"error":{"kind":"internal","message":"internal server error"}})"};
      }
    }
    {
      std::lock_guard lock(mutex_);
      --running_;
      if (auto it = byKey_.find(job->key); it != byKey_.end() && it->second.lock() == job) byKey_.erase(it);
      std::lock_guard jobLock(job->mutex);
      job->outcome = std::move(outcome);
      job->fn = nullptr;
    }
    job->changed.notify_all();
  }
}

}  // namespace nndna::server
