#include "server/app_server.hpp"

#include <fmt/format.h>
#include <httplib.h>
#include <sys/socket.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <system_error>
#include <map>
#include <functional>
#include <mutex>
#include <regex>
#include <exception>
#include <stop_token>
#include <string_view>
#include <thread>

#include "server/bounded_http_server.hpp"
#include "server/design_job.hpp"
#include "server/examples_catalog.hpp"
#include "compress/gzip.hpp"
#include "server/accept_encoding.hpp"
#include "server/job_pool.hpp"
#include "server/rate_limiter.hpp"
#include "server/static_assets.hpp"
#include "specrun/pch_builder.hpp"
#include "specrun/toolchain.hpp"
#include "specrun/sandbox.hpp"
#include "specrun/sha256.hpp"

namespace nndna::server {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Bodies smaller than this go out as they are.
constexpr std::size_t kGzipAbove = 1024;
// A streamed answer writes at least this often (an empty line) so a client that went away is
// noticed — its write fails — and its job cancelled, even while a stage runs long.
constexpr std::chrono::milliseconds kStreamHeartbeat{500};
// Connections the kernel queues before the server accepts them.
constexpr int kListenBacklog = 1024;

// Seconds a client is told to wait after a 503.
constexpr int kRetryAfterSeconds = 2;

// What the request log needs to know about the request this thread is answering (cpp-httplib
// answers a request on one thread, from routing to the logger).
struct RequestNote {
  Clock::time_point start;
  std::string cache;  // "hit", "miss" or "" (not a compile)
};
thread_local RequestNote t_note;

std::string dumped(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Sends `body` with a length, gzip-compressed when the client takes it. cpp-httplib neither
// compresses nor re-encodes a body given through a sized content provider.
void send(const httplib::Request& req, httplib::Response& res, int status, std::string contentType,
          std::string body) {
  res.status = status;
  auto bytes = std::make_shared<std::string>(std::move(body));
  if (bytes->size() > kGzipAbove && acceptsGzip(req.get_header_value("Accept-Encoding"))) {
    *bytes = compress::gzip(*bytes);
    res.set_header("Content-Encoding", "gzip");
  }
  res.set_header("Vary", "Accept-Encoding");
  res.set_header("Cache-Control", "no-store");
  res.set_content_provider(bytes->size(), contentType,
                           [bytes](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                             return sink.write(bytes->data() + offset, length);
                           });
}

void sendJson(const httplib::Request& req, httplib::Response& res, int status, std::string body) {
  send(req, res, status, "application/json", std::move(body));
}

void sendError(const httplib::Request& req, httplib::Response& res, int status, std::string_view kind,
               std::string_view message) {
  sendJson(req, res, status, errorBody(kind, message));
}

bool validClientId(std::string_view id) {
  return !id.empty() && id.size() <= 64 &&
         std::all_of(id.begin(), id.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; });
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

bool isLoopbackHost(std::string_view host) {
  const std::string name = lowercase(std::string(host));  // host names are case-insensitive
  return name == "localhost" || name == "::1" || name == "[::1]" || name.starts_with("127.");
}

struct AppServer::Impl {
  ServeOptions options;
  StaticAssets assets;
  std::vector<ExampleSpec> examples;
  JobPool pool;
  BoundedHttpServer http;
  // The listening socket, as cpp-httplib made it (see configure()).
  std::atomic<int> listenSocket{-1};
  int port = 0;
  RateLimiter designLimiter;
  std::atomic<std::uint64_t> nextDesign{0};
  std::jthread warmer;  // after the pool: its ticket is released before the pool goes
  std::mutex logMutex;  // request lines are written whole, from many threads

  // The running diagram request of each page (its "client" id): a new one from the same page
  // cancels it.
  std::mutex clientsMutex;
  std::map<std::string, std::shared_ptr<std::stop_source>> clients;

  explicit Impl(ServeOptions o)
      : options(std::move(o)),
        assets(options.webFiles),
        examples(exampleCatalog(options.exampleFiles)),
        pool(options.jobs != 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency()),
             options.maxQueued),
        designLimiter(options.design.perMinute, std::chrono::minutes(1)) {
    // Edits come fast here: a spec's new standard header is precompiled beside its compile.
    if (options.jobSettings.pchBuilder == nullptr) {
      options.jobSettings.pchBuilder = std::make_shared<specrun::PchBuilder>();
    }
    configure();
    routes();
  }

  void configure() {
    const std::size_t connections = std::max<std::size_t>(options.maxConnections, 1);
    // cpp-httplib's API takes ownership of a raw TaskQueue pointer.
    http.new_task_queue = [connections] { return new httplib::ThreadPool(connections); };
    const auto io = static_cast<time_t>(options.ioTimeout.count());
    http.set_read_timeout(io, 0);
    http.set_write_timeout(io, 0);
    http.set_keep_alive_timeout(5);
    // Debian's cpp-httplib 0.11 is compiled with a listen backlog of 5: a burst of connections
    // (100 at once in bench/serve) overflowed the accept queue and some clients read a reset
    // instead of an answer. Its socket is remembered here so that bind() can listen() on it
    // again with a deeper queue.
    http.set_socket_options([this](socket_t sock) {
      httplib::default_socket_options(sock);
      listenSocket = sock;
    });
    http.set_payload_max_length(maxBodyBytes());
    // The request line and headers: 64 KiB is plenty. The body at its limit on the wire: a chunk
    // of n bytes takes n + its size in hex + 4 bytes of framing, so twice the limit covers chunks
    // of 6 bytes and more (a body in smaller chunks is refused as too large).
    http.setRequestLimits({.headBytes = std::size_t{64} << 10,
                           .bodyBytes = 2 * maxBodyBytes(),
                           .readTime = options.readTime});
    // Inline styles are allowed (CodeMirror sets style attributes on its own elements); inline
    // script and every remote origin are not.
    http.set_default_headers({
        {"Content-Security-Policy",
         "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
         "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
        {"X-Content-Type-Options", "nosniff"},
        {"Referrer-Policy", "no-referrer"},
        {"X-Frame-Options", "DENY"},
        {"Cross-Origin-Opener-Policy", "same-origin"},
        {"Cross-Origin-Resource-Policy", "same-origin"},
    });
    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      t_note = {Clock::now(), ""};
      if (!hostAllowed(req.get_header_value("Host"))) {
        sendError(req, res, 421, "bad_host", "this server answers only requests for its own address");
        return httplib::Server::HandlerResponse::Handled;
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    // Errors cpp-httplib answers itself (no route, payload too large, bad request) get a JSON body.
    http.set_error_handler(httplib::Server::HandlerWithResponse(
        [this](const httplib::Request& req, httplib::Response& res) {
          if (res.has_header("Content-Type")) return httplib::Server::HandlerResponse::Unhandled;
          const int status = res.status;
          const std::string_view kind = status == 404 ? "not_found" : status == 413 ? "too_large" : "bad_request";
          const std::string message = status == 404   ? "no such page"
                                      : status == 413 ? tooLargeMessage()
                                                      : "the request could not be read";
          sendError(req, res, status, kind, message);
          return httplib::Server::HandlerResponse::Handled;
        }));
    http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
      if (options.log == nullptr) return;
      const double seconds = std::chrono::duration<double>(Clock::now() - t_note.start).count();
      std::lock_guard lock(logMutex);
      *options.log << fmt::format("{} {} {} {} {:.3f}s{}\n", req.remote_addr, req.method, req.path, res.status,
                                  seconds, t_note.cache.empty() ? "" : " cache=" + t_note.cache)
                   << std::flush;
    });
  }

  // DNS rebinding: a page elsewhere must not reach a loopback server under a name it controls.
  bool hostAllowed(const std::string& header) const {
    if (!isLoopbackHost(options.host)) return true;
    // Host names are case-insensitive (RFC 9110): LOCALHOST is localhost.
    const std::string host = lowercase(header);
    const std::string p = ":" + std::to_string(port);
    return host == "127.0.0.1" + p || host == "localhost" + p || host == "[::1]" + p || host == lowercase(options.host) + p;
  }

  void routes() {
    http.Get("/api/health", [this](const httplib::Request& req, httplib::Response& res) {
      const JobPool::Stats s = pool.stats();
      sendJson(req, res, 200,
               dumped({{"ok", true},
                       {"version", NNDNA_VERSION},
                       {"isolation", specrun::isolationStatus().describe()},
                       {"designer", designerInfo()},
                       {"jobs", {{"running", s.running}, {"queued", s.queued}, {"workers", s.workers},
                                 {"max_queued", s.maxQueued}}}}));
    });
    http.Get("/api/examples", [this](const httplib::Request& req, httplib::Response& res) {
      json list = json::array();
      for (const ExampleSpec& e : examples) {
        list.push_back({{"name", e.name}, {"label", e.label}, {"description", e.description}});
      }
      sendJson(req, res, 200, dumped({{"default", kDefaultExample}, {"examples", list}}));
    });
    http.Get(R"(/api/examples/([A-Za-z0-9_]+))", [this](const httplib::Request& req, httplib::Response& res) {
      const std::string name = req.matches[1];
      for (const ExampleSpec& e : examples) {
        if (e.name == name) {
          sendJson(req, res, 200, dumped({{"name", e.name}, {"label", e.label}, {"source", e.source}}));
          return;
        }
      }
      sendError(req, res, 404, "not_found", "no example named '" + name + "'");
    });
    postWithBody("/api/diagram", [this](const httplib::Request& req, httplib::Response& res) {
      diagramRequest(req, res, DiagramProduct::diagram);
    });
    postWithBody("/api/page", [this](const httplib::Request& req, httplib::Response& res) {
      diagramRequest(req, res, DiagramProduct::page);
    });
    postWithBody("/api/design", [this](const httplib::Request& req, httplib::Response& res) { designRequest(req, res); });
    // The API's other methods: 405 with the methods each path takes (cpp-httplib would say 404).
    const auto wrongMethod = [](const char* allowed) {
      return [allowed](const httplib::Request& req, httplib::Response& res) {
        res.set_header("Allow", allowed);
        sendError(req, res, 405, "method_not_allowed", fmt::format("this path takes {} only", allowed));
      };
    };
    // The page's own files (below) are GET paths too. OPTIONS names the methods (no CORS: the
    // page is served from the same origin).
    const std::string posts = R"(/api/(diagram|page|design))";
    const std::string gets = R"(/api/(health|examples|examples/[A-Za-z0-9_]+))";
    const std::string files = R"(/[A-Za-z0-9._-]*)";
    http.Get(posts, wrongMethod("POST"));
    for (const std::string& path : {posts, gets, files}) {
      const char* allowed = path == posts ? "POST" : "GET";
      http.Put(path, wrongMethod(allowed));
      http.Delete(path, wrongMethod(allowed));
      http.Patch(path, wrongMethod(allowed));
      http.Options(path, [allowed](const httplib::Request&, httplib::Response& res) {
        res.set_header("Allow", fmt::format("{}, OPTIONS", allowed));
        res.status = 204;
      });
    }
    http.Post(gets, wrongMethod("GET"));
    http.Post(files, wrongMethod("GET"));
    http.Get(files, [this](const httplib::Request& req, httplib::Response& res) {
      const StaticAsset* asset = assets.find(req.path);
      if (asset == nullptr) {
        sendError(req, res, 404, "not_found", "no such page");
        return;
      }
      res.set_header("ETag", asset->etag);
      res.set_header("Cache-Control", "no-cache");
      if (req.get_header_value("If-None-Match") == asset->etag) {
        res.status = 304;
        res.set_header("Content-Type", asset->contentType);  // keeps the error handler away
        return;
      }
      const bool zipped = !asset->gzipped.empty() && acceptsGzip(req.get_header_value("Accept-Encoding"));
      const std::string_view bytes = zipped ? std::string_view(asset->gzipped) : asset->bytes;
      if (zipped) res.set_header("Content-Encoding", "gzip");
      res.set_header("Vary", "Accept-Encoding");
      res.set_content_provider(bytes.size(), asset->contentType,
                               [bytes](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                                 return sink.write(bytes.data() + offset, length);
                               });
    });
  }

  // Who designs: the model's name, or the offline designer and why (never the endpoint's key or URL).
  json designerInfo() const {
    if (options.design.endpoint) return {{"offline", false}, {"model", options.design.endpoint->model}};
    return {{"offline", true}, {"reason", options.design.whyOffline}};
  }

  // Queues the job for `source` (or joins the identical one already queued or running).
  std::optional<JobTicket> submit(std::string source, DiagramProduct product) {
    const std::string key = (product == DiagramProduct::page ? "page:" : "diagram:") + specrun::sha256Hex(source);
    return pool.submit(key, [this, source = std::move(source), product](std::stop_token stop,
                                                                         const ProgressFn& progress) {
      return runDiagramJob(source, product, options.jobSettings, stop, progress);
    });
  }

  // Draws the default example once at start-up, so the page's first request (which joins this
  // job, or finds its compile cached) does not wait for a cold compile.
  void startWarmUp() {
    const auto it = std::find_if(examples.begin(), examples.end(),
                                 [](const ExampleSpec& e) { return e.name == kDefaultExample; });
    if (it == examples.end()) return;
    std::optional<JobTicket> ticket = submit(std::string(it->source), DiagramProduct::diagram);
    if (!ticket) return;
    warmer = std::jthread([this, held = std::make_shared<JobTicket>(std::move(*ticket))](std::stop_token stop) {
      std::size_t seen = 0;
      std::vector<std::string> events;
      while (!stop.stop_requested() && !held->wait(seen, events, Clock::now() + std::chrono::seconds(1), stop)) {
        events.clear();
      }
      if (!stop.stop_requested()) precompileCmath();
    });
  }

  // Then, in the background, the PCH with <cmath>: most examples and the designer's specs include
  // it, and their first edit would otherwise compile without a PCH for it.
  void precompileCmath() {
    try {
      const specrun::RunOptions run = runOptions(options.jobSettings);
      const std::string_view cmath[] = {"cmath"};
      run.pchBuilder->request(specrun::toolchain(), specrun::cacheDirectory(run), cmath, run.compileLimits);
    } catch (const std::exception&) {
      // No toolchain: every compile reports that itself.
    }
  }

  // Registers `client`'s new request: the previous one of the same page is cancelled.
  std::shared_ptr<std::stop_source> claimClient(const std::string& client) {
    auto mine = std::make_shared<std::stop_source>();
    if (client.empty()) return mine;
    std::lock_guard lock(clientsMutex);
    auto& slot = clients[client];
    if (slot) slot->request_stop();
    slot = mine;
    return mine;
  }
  void releaseClient(const std::string& client, const std::shared_ptr<std::stop_source>& mine) {
    if (client.empty()) return;
    std::lock_guard lock(clientsMutex);
    if (auto it = clients.find(client); it != clients.end() && it->second == mine) clients.erase(it);
  }

  // A POST route whose handler sees the request with its whole body, of at most the payload
  // limit. cpp-httplib 0.11 refuses a longer body that states its Content-Length (413, in
  // configure()), but appends a chunked one to the request without any limit: here the body is
  // read piece by piece and the request refused as soon as it passes the limit, with the rest
  // left unread and the connection closed (bounded_http_server.hpp bounds the rest: the request
  // line, headers, chunk framing and the time it all takes).
  void postWithBody(const std::string& path, std::function<void(const httplib::Request&, httplib::Response&)> handler) {
    http.Post(path, [this, handler = std::move(handler)](const httplib::Request& req, httplib::Response& res,
                                                         const httplib::ContentReader& readBody) {
      if (req.is_multipart_form_data()) {
        // cpp-httplib reads a form only into a form's receivers (a plain one is called as none:
        // bad_function_call, 500). A form is not JSON: the handler answers 415 from its type,
        // and the unread body goes with the connection.
        BoundedHttpServer::closeAfterThisResponse();
        res.set_header("Connection", "close");
        handler(req, res);
        return;
      }
      httplib::Request whole = req;
      bool tooLarge = false;
      const bool read = readBody([&](const char* data, std::size_t size) {
        if (size > maxBodyBytes() - whole.body.size()) {
          tooLarge = true;
          return false;
        }
        whole.body.append(data, size);
        return true;
      });
      if (tooLarge || !read) {
        BoundedHttpServer::closeAfterThisResponse();
        res.set_header("Connection", "close");
        const BoundedHttpServer::CutOff cutOff = BoundedHttpServer::requestCutOff();
        // cpp-httplib sets 413 itself for a stated length past the limit (nothing read).
        if (tooLarge || res.status == 413 || cutOff == BoundedHttpServer::CutOff::tooLarge) {
          sendError(req, res, 413, "too_large", tooLargeMessage());
        } else if (cutOff == BoundedHttpServer::CutOff::tooSlow) {
          sendError(req, res, 408, "too_slow",
                    fmt::format("the request took longer than {} s to arrive", options.readTime.count()));
        } else {
          sendError(req, res, 400, "bad_request", "the request could not be read");
        }
        return;
      }
      handler(whole, res);
    });
  }

  // The JSON form of a source may be larger than the source (escapes); the source's own limit
  // is checked after decoding.
  std::size_t maxBodyBytes() const { return options.maxSourceBytes * 4 + 4096; }
  std::string tooLargeMessage() const {
    return fmt::format("the request is larger than the server takes: at most {} KiB", (maxBodyBytes() + 1023) / 1024);
  }

  // The request's JSON object, with a string member `required` (UTF-8); nullopt once an error
  // answer was sent. `shape` is the request's form, for the error message.
  std::optional<json> jsonRequest(const httplib::Request& req, httplib::Response& res, std::string_view required,
                                  std::string_view shape) {
    const std::string contentType = lowercase(req.get_header_value("Content-Type"));
    if (!contentType.starts_with("application/json")) {
      sendError(req, res, 415, "unsupported_media_type", fmt::format("send the request as JSON: {}", shape));
      return std::nullopt;
    }
    json body = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
    const std::string key(required);
    if (body.is_discarded() || !body.is_object() || !body.contains(key) || !body[key].is_string()) {
      sendError(req, res, 400, "bad_request", fmt::format("expected a JSON object {} (UTF-8)", shape));
      return std::nullopt;
    }
    return body;
  }

  // The request's optional string member `name` of at most options.maxSourceBytes (413 beyond);
  // nullopt (and `ok` false once an error answer was sent) when it is absent or wrong.
  std::optional<std::string> sourceMember(const httplib::Request& req, httplib::Response& res, const json& body,
                                          const std::string& name, bool& ok) {
    ok = true;
    if (!body.contains(name)) return std::nullopt;
    if (!body[name].is_string()) {
      sendError(req, res, 400, "bad_request", fmt::format("\"{}\" must be a string", name));
      ok = false;
      return std::nullopt;
    }
    std::string source = body[name].get<std::string>();
    if (source.size() > options.maxSourceBytes) {
      sendError(req, res, 413, "too_large",
                fmt::format("the {} is {} bytes; the limit is {} KiB", name, source.size(), options.maxSourceBytes >> 10));
      ok = false;
      return std::nullopt;
    }
    return source;
  }

  // The request's optional "client" id ("" when absent); nullopt once an error answer was sent.
  std::optional<std::string> clientMember(const httplib::Request& req, httplib::Response& res, const json& body) {
    if (!body.contains("client")) return std::string();
    if (!body["client"].is_string() || !validClientId(body["client"].get<std::string>())) {
      sendError(req, res, 400, "bad_request", "\"client\" must be up to 64 letters, digits or '-'");
      return std::nullopt;
    }
    return body["client"].get<std::string>();
  }

  static void sendBusy(const httplib::Request& req, httplib::Response& res, std::string_view what) {
    res.set_header("Retry-After", std::to_string(kRetryAfterSeconds));
    sendError(req, res, 503, "busy", fmt::format("too many {} are waiting; try again shortly", what));
  }

  void diagramRequest(const httplib::Request& req, httplib::Response& res, DiagramProduct product) {
    const std::optional<json> body = jsonRequest(req, res, "source", "{\"source\": \"...\"}");
    if (!body) return;
    bool ok = true;
    std::optional<std::string> source = sourceMember(req, res, *body, "source", ok);
    if (!ok) return;
    const std::optional<std::string> client = clientMember(req, res, *body);
    if (!client) return;

    std::optional<JobTicket> ticket = submit(std::move(*source), product);
    if (!ticket) {
      sendBusy(req, res, "diagrams");
      return;
    }
    auto shared = std::make_shared<Running>(std::move(*ticket), claimClient(*client), *client,
                                            options.requestTimeout, "diagram", this);
    if (product == DiagramProduct::diagram && req.get_header_value("Accept").find("application/x-ndjson") != std::string::npos) {
      stream(res, shared);
      return;
    }
    std::vector<std::string> ignored;
    const JobOutcome outcome = shared->await(ignored);
    t_note.cache = cacheNote(outcome);
    send(req, res, outcome.status, outcome.contentType, outcome.body);
    if (product == DiagramProduct::page) res.set_header("Content-Disposition", "attachment; filename=\"diagram.html\"");
  }

  // A design: plain English (and the editor's spec) in; its attempts streamed as they happen, then
  // the designed spec and its diagram (docs/serve.md). Always streamed: a design takes long.
  void designRequest(const httplib::Request& req, httplib::Response& res) {
    const std::optional<json> body = jsonRequest(req, res, "prompt", "{\"prompt\": \"...\", \"source\": \"...\"}");
    if (!body) return;
    DesignJobRequest request;
    request.prompt = (*body)["prompt"].get<std::string>();
    if (request.prompt.find_first_not_of(" \t\r\n") == std::string::npos) {
      sendError(req, res, 400, "bad_request", "the prompt is empty: say what the neural network should do");
      return;
    }
    if (request.prompt.size() > designer::kMaxPromptBytes) {
      sendError(req, res, 413, "too_large",
                fmt::format("the prompt is {} bytes; the limit is {} KiB", request.prompt.size(),
                            designer::kMaxPromptBytes >> 10));
      return;
    }
    bool ok = true;
    request.source = sourceMember(req, res, *body, "source", ok);
    if (!ok) return;
    const std::optional<std::string> client = clientMember(req, res, *body);
    if (!client) return;
    if (const auto wait = designLimiter.admit(req.remote_addr, Clock::now())) {
      res.set_header("Retry-After", std::to_string(wait->count()));
      sendError(req, res, 429, "rate_limited",
                fmt::format("at most {} designs a minute from one address; try again in {} s",
                            options.design.perMinute, wait->count()));
      return;
    }
    // Every design is its own job (a model answers the same words differently); it waits in the
    // same queue as the diagrams and takes a worker while it runs.
    const std::string key = fmt::format("design:{}", nextDesign.fetch_add(1));
    std::optional<JobTicket> ticket =
        pool.submit(key, [this, request = std::move(request)](std::stop_token stop, const ProgressFn& progress) {
          return runDesignJob(request, options.design, options.jobSettings, stop, progress);
        });
    if (!ticket) {
      sendBusy(req, res, "requests");
      return;
    }
    // A page's new design replaces its running one (its diagram requests are a separate line).
    const std::string slot = client->empty() ? std::string() : "design:" + *client;
    stream(res, std::make_shared<Running>(std::move(*ticket), claimClient(slot), slot,
                                          options.design.timeout, "design", this));
  }

  // One diagram or design request in progress: its ticket on the job, its cancellation, its deadline.
  struct Running {
    JobTicket ticket;
    std::shared_ptr<std::stop_source> superseded;
    std::string client;
    std::chrono::seconds timeout;
    Clock::time_point deadline;
    std::string what;  // "diagram" or "design", for messages
    Impl* server;
    std::size_t seen = 0;

    Running(JobTicket t, std::shared_ptr<std::stop_source> s, std::string c, std::chrono::seconds limit, std::string w,
            Impl* impl)
        : ticket(std::move(t)),
          superseded(std::move(s)),
          client(std::move(c)),
          timeout(limit),
          deadline(Clock::now() + limit),
          what(std::move(w)),
          server(impl) {}
    ~Running() { server->releaseClient(client, superseded); }

    // Waits until `until` for progress events (appended to `events`) or the outcome. The outcome
    // is a 409 once a newer request of the same page arrived, a 504 past the deadline.
    std::optional<JobOutcome> poll(std::vector<std::string>& events, Clock::time_point until) {
      std::optional<JobOutcome> out = ticket.wait(seen, events, std::min(until, deadline), superseded->get_token());
      if (out) return out;
      if (superseded->stop_requested()) {
        return JobOutcome{.status = 409, .body = errorBody("cancelled", fmt::format("a newer {} request replaced this one", what))};
      }
      if (Clock::now() >= deadline) {
        return JobOutcome{.status = 504, .body = errorBody("deadline", fmt::format(
            "the {} took longer than {} s and was stopped", what, timeout.count()))};
      }
      return std::nullopt;
    }
    JobOutcome await(std::vector<std::string>& events) {
      while (true) {
        if (auto out = poll(events, deadline)) return *out;
      }
    }
  };

  static std::string cacheNote(const JobOutcome& outcome) {
    return outcome.status == 200 || outcome.status == 422 ? (outcome.cacheHit ? "hit" : "miss") : "";
  }

  // The progress stream: one JSON object per line — the stages as they start and end (and a
  // design's events) — then {"type":"result","status":N,"body":{...}}, the body the plain request
  // would have had.
  void stream(httplib::Response& res, const std::shared_ptr<Running>& running) {
    res.set_header("Cache-Control", "no-store");
    res.set_chunked_content_provider("application/x-ndjson", [running](std::size_t, httplib::DataSink& sink) {
      std::vector<std::string> events;
      while (true) {
        events.clear();
        std::optional<JobOutcome> out = running->poll(events, Clock::now() + kStreamHeartbeat);
        std::string text;
        for (const std::string& e : events) text += e + "\n";
        if (out) {
          if (running->what == "diagram") t_note.cache = cacheNote(*out);
          text += fmt::format(R"({{"type":"result","status":{},"body":{}}})", out->status, out->body) + "\n";
        }
        if (text.empty()) text = "\n";  // the heartbeat: a client that left makes this fail
        if (!sink.write(text.data(), text.size())) return false;
        if (out) {
          sink.done();
          return true;
        }
      }
    });
  }
};

AppServer::AppServer(ServeOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

AppServer::~AppServer() {
  stop();
}

int AppServer::bind() {
  const int port = impl_->options.port == 0 ? impl_->http.bind_to_any_port(impl_->options.host)
                                            : (impl_->http.bind_to_port(impl_->options.host, impl_->options.port)
                                                   ? impl_->options.port
                                                   : -1);
  if (port < 0) {
    throw std::runtime_error(fmt::format("cannot listen on {}:{} (in use, or not an address of this machine)",
                                         impl_->options.host, impl_->options.port));
  }
  impl_->port = port;
  // Linux takes a second listen() on a listening socket as a new backlog (capped by somaxconn).
  if (const int sock = impl_->listenSocket; sock >= 0 && ::listen(sock, kListenBacklog) != 0) {
    throw std::system_error(errno, std::generic_category(), "listen() with a deeper backlog");
  }
  if (impl_->options.warmUp) impl_->startWarmUp();
  return port;
}

void AppServer::listen() { impl_->http.listen_after_bind(); }

void AppServer::stop() {
  if (impl_) impl_->http.stop();
}

bool AppServer::isRunning() const { return impl_->http.is_running(); }

}  // namespace nndna::server
