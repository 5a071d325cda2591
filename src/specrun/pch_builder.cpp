#include "specrun/pch_builder.hpp"

#include <exception>

#include "specrun/cache_pruning.hpp"
#include "specrun/compile_cache.hpp"

namespace nndna::specrun {

PchBuilder::PchBuilder() : thread_([this](std::stop_token stop) { run(stop); }) {}

PchBuilder::~PchBuilder() {
  thread_.request_stop();
  changed_.notify_all();
}  // thread_ joins here, before the members it uses go

void PchBuilder::request(const Toolchain& toolchain, const std::filesystem::path& cache,
                         std::span<const std::string_view> standardHeaders, const SandboxLimits& limits) {
  Job job{.key = cache.string(), .toolchain = toolchain, .cache = cache, .headers = {}, .limits = limits};
  for (const std::string_view name : standardHeaders) {
    job.key += '\n';
    job.key += name;
    job.headers.emplace_back(name);
  }
  {
    std::lock_guard lock(mutex_);
    if (!pending_.insert(job.key).second) return;
    // Bounded: the sets come from texts a server is sent. The oldest request gives way (its
    // spec has most likely been edited since).
    if (queue_.size() == kMaxQueued) {
      pending_.erase(queue_.front().key);
      queue_.pop_front();
    }
    queue_.push_back(std::move(job));
  }
  changed_.notify_all();
}

void PchBuilder::waitIdle() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return pending_.empty(); });
}

void PchBuilder::run(std::stop_token stop) {
  while (true) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      if (!changed_.wait(lock, stop, [this] { return !queue_.empty(); }) || stop.stop_requested()) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    const std::vector<std::string_view> names(job.headers.begin(), job.headers.end());
    try {
      // Pruned as after a compile: a server's visitors could otherwise fill pch/ between compiles.
      if (const auto header = precompiledHeader(job.toolchain, job.cache, names, job.limits, nullptr, stop)) {
        pruneCache(job.cache, header->parent_path());
      }
    } catch (const std::exception&) {
      // A cache that cannot be written: the compiles that asked for it use the PCH of nndna.hpp
      // alone, and the next one that finds this PCH missing asks again.
    }
    {
      std::lock_guard lock(mutex_);
      pending_.erase(job.key);
    }
    changed_.notify_all();
  }
}

}  // namespace nndna::specrun
