#include "designer/http_client.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <cstdint>
#include <ctime>
#include <memory>
#include <mutex>
#include <optional>

#include "designer/endpoint.hpp"

namespace nndna::designer {
namespace {

// A model's answer is a spec of some kilobytes in a JSON envelope; anything near this is not an
// answer, and the limit keeps a hostile endpoint from filling memory.
constexpr std::size_t kMaxBodyBytes = std::size_t{16} << 20;

void initCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) throw std::runtime_error("libcurl failed to initialise");
  });
}

struct CurlDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

struct Transfer {
  std::string body;
  std::string retryAfter;
  bool tooLarge = false;
  std::stop_token stop;
};

std::size_t onBody(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const std::size_t bytes = size * count;
  if (transfer->body.size() + bytes > kMaxBodyBytes) {
    transfer->tooLarge = true;
    return 0;  // makes curl fail with CURLE_WRITE_ERROR
  }
  transfer->body.append(data, bytes);
  return bytes;
}

bool startsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  return std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::size_t onHeader(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const std::string_view line(data, size * count);
  // A new status line starts a new response (after a 100 Continue): forget the old headers.
  if (line.starts_with("HTTP/")) transfer->retryAfter.clear();
  constexpr std::string_view kRetryAfter = "retry-after:";
  if (startsWithNoCase(line, kRetryAfter)) transfer->retryAfter = std::string(trimmed(line.substr(kRetryAfter.size())));
  return size * count;
}

int onProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<Transfer*>(user)->stop.stop_requested() ? 1 : 0;
}

bool isRetryable(long status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504 ||
         status == 529;  // 529: Anthropic's "overloaded"
}

double seconds(std::chrono::milliseconds ms) { return static_cast<double>(ms.count()) / 1000.0; }

HttpError transferError(CURLcode code, const Transfer& transfer, const char* detail, const std::string& url,
                        const HttpSettings& settings) {
  const std::string shown = displayUrl(url);
  const std::string why = detail[0] != '\0' ? std::string(detail) : std::string(curl_easy_strerror(code));
  switch (code) {
    case CURLE_COULDNT_CONNECT:
      return {HttpError::Kind::connection_refused,
              fmt::format("cannot connect to {}: {} (is the server running, and is the URL right?)", shown, why)};
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return {HttpError::Kind::unresolved_host, fmt::format("cannot reach {}: {}", shown, why)};
    case CURLE_OPERATION_TIMEDOUT:
      return {HttpError::Kind::timeout,
              fmt::format("no answer from {} in time ({}; connect limit {:.0f} s, request limit {:.0f} s)", shown,
                          why, seconds(settings.connectTimeout), seconds(settings.requestTimeout))};
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
      return {HttpError::Kind::tls, fmt::format("TLS failed with {}: {}", shown, why)};
    case CURLE_ABORTED_BY_CALLBACK:
      return {HttpError::Kind::cancelled, fmt::format("request to {} cancelled", shown)};
    case CURLE_WRITE_ERROR:
      if (transfer.tooLarge) {
        return {HttpError::Kind::other,
                fmt::format("the answer of {} is larger than {} MiB: not a model's answer", shown, kMaxBodyBytes >> 20)};
      }
      break;
    default:
      break;
  }
  return {HttpError::Kind::other, fmt::format("request to {} failed: {}", shown, why)};
}

HttpResponse sendOnce(const std::string& url, curl_slist* headers, const std::string& body,
                      const HttpSettings& settings, std::stop_token stop) {
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) throw HttpError(HttpError::Kind::other, "libcurl could not create a handle");
  Transfer transfer;
  transfer.stop = stop;
  char errorBuffer[CURL_ERROR_SIZE] = {};
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  // Only the web: a base URL from the environment must not read file:// or speak other protocols.
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(settings.connectTimeout.count()));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(settings.requestTimeout.count()));
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for DNS timeouts: threads are safe
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // whatever libcurl can decode
  curl_easy_setopt(h, CURLOPT_USERAGENT, "nndna/" NNDNA_VERSION);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errorBuffer);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, onBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, onProgress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, &transfer);
  const CURLcode code = curl_easy_perform(h);
  if (code != CURLE_OK) throw transferError(code, transfer, errorBuffer, url, settings);
  HttpResponse response;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  response.body = std::move(transfer.body);
  response.retryAfter = std::move(transfer.retryAfter);
  return response;
}

// Sleeps for `wait` unless `stop` is requested first (then throws cancelled).
void waitOrStop(std::chrono::milliseconds wait, std::stop_token stop, const std::string& url) {
  std::mutex mutex;
  std::condition_variable_any wake;
  std::unique_lock lock(mutex);
  wake.wait_for(lock, stop, wait, [] { return false; });
  if (stop.stop_requested()) {
    throw HttpError(HttpError::Kind::cancelled, fmt::format("request to {} cancelled", displayUrl(url)));
  }
}

}  // namespace

std::optional<std::chrono::milliseconds> parseRetryAfter(std::string_view value,
                                                         std::chrono::system_clock::time_point now) {
  value = trimmed(value);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    if (value.size() > 9) return std::chrono::hours(24);  // absurdly long: the cap applies anyway
    return std::chrono::seconds(std::stoll(std::string(value)));
  }
  // An HTTP date: "Wed, 21 Oct 2015 07:28:00 GMT".
  std::tm tm{};
  const std::string text(value);
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  // In whole seconds: a date centuries away would overflow the clock's nanoseconds.
  const std::int64_t at = timegm(&tm);
  const std::int64_t nowSeconds = std::chrono::system_clock::to_time_t(now);
  if (at <= nowSeconds) return std::chrono::milliseconds(0);
  return std::chrono::seconds(std::min<std::int64_t>(at - nowSeconds, 24 * 3600));  // the cap applies anyway
}

HttpResponse postJson(const std::string& url, const std::vector<std::string>& headers, const std::string& body,
                      const HttpSettings& settings, std::stop_token stop, const RetryListener& onRetry) {
  initCurlOnce();
  std::unique_ptr<curl_slist, SlistDeleter> list;
  auto append = [&](const std::string& header) {
    curl_slist* grown = curl_slist_append(list.get(), header.c_str());
    if (grown == nullptr) throw HttpError(HttpError::Kind::other, "out of memory building HTTP headers");
    (void)list.release();
    list.reset(grown);
  };
  append("Content-Type: application/json");
  append("Accept: application/json");
  append("Expect:");  // no "100 Continue" round trip for larger bodies
  for (const std::string& header : headers) append(header);

  for (int attempt = 1;; ++attempt) {
    if (stop.stop_requested()) {
      throw HttpError(HttpError::Kind::cancelled, fmt::format("request to {} cancelled", displayUrl(url)));
    }
    HttpResponse response = sendOnce(url, list.get(), body, settings, stop);
    response.attempts = attempt;
    if (!isRetryable(response.status) || attempt > settings.maxRetries) return response;
    RetryEvent event;
    event.status = response.status;
    event.retry = attempt;
    if (auto asked = parseRetryAfter(response.retryAfter, std::chrono::system_clock::now())) {
      event.wait = *asked;
      event.fromRetryAfter = true;
    } else {
      event.wait = settings.backoffBase * (1 << std::min(attempt - 1, 16));
    }
    event.wait = std::min(event.wait, settings.maxRetryWait);
    if (onRetry) onRetry(event);
    waitOrStop(event.wait, stop, url);
  }
}

}  // namespace nndna::designer
