// HTTP(S) POST of a JSON body with libcurl: timeouts, retries on 429/5xx (Retry-After, else
// exponential backoff), cancellation, and errors that say what went wrong.
//
// Proxies are libcurl's: `http_proxy`, `https_proxy` (or `HTTPS_PROXY`), `all_proxy` and
// `no_proxy` from the environment are honoured as curl(1) honours them.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nndna::designer {

struct HttpSettings {
  std::chrono::milliseconds connectTimeout{10'000};
  // The whole request, answer included: a model writing a long spec takes its time.
  std::chrono::milliseconds requestTimeout{180'000};
  int maxRetries = 3;  // after a 429 or 5xx answer
  // Backoff without Retry-After: base, 2·base, 4·base, ...
  std::chrono::milliseconds backoffBase{1'000};
  // Longest wait between retries, whatever Retry-After asks (a server asking for an hour gets
  // its final error sooner).
  std::chrono::milliseconds maxRetryWait{60'000};
};

struct HttpResponse {
  long status = 0;
  std::string body;
  std::string retryAfter;  // the Retry-After header, as sent ("" when absent)
  int attempts = 1;        // requests sent, retries included
};

class HttpError : public std::runtime_error {
 public:
  enum class Kind {
    connection_refused,  // nothing listens at the host and port
    unresolved_host,     // DNS (or the proxy's name) failed
    timeout,             // connect or whole-request timeout
    tls,                 // certificate or handshake
    cancelled,           // the stop token was triggered
    other,
  };
  HttpError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// A retry about to happen: the status that caused it and how long the client waits.
struct RetryEvent {
  long status = 0;
  std::chrono::milliseconds wait{0};
  bool fromRetryAfter = false;
  int retry = 0;  // 1-based
};
using RetryListener = std::function<void(const RetryEvent&)>;

// POSTs `body` (JSON) to `url` with the extra `headers` ("Name: value"). Retries 429, 500, 502,
// 503, 504 and 529 up to settings.maxRetries times and returns the last answer, whatever its
// status; `onRetry` hears of each wait first. Throws HttpError when no answer arrives (refused,
// unresolved, timed out, TLS) or when `stop` is requested (checked while waiting and during the
// transfer). Messages name the URL as displayUrl() shows it. Thread-safe: each call has its own
// curl handle.
HttpResponse postJson(const std::string& url, const std::vector<std::string>& headers,
                      const std::string& body, const HttpSettings& settings,
                      std::stop_token stop = {}, const RetryListener& onRetry = {});

// How long Retry-After asks to wait: delta-seconds or an HTTP date; nullopt when unreadable.
std::optional<std::chrono::milliseconds> parseRetryAfter(std::string_view value,
                                                         std::chrono::system_clock::time_point now);

}  // namespace nndna::designer
