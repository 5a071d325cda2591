// `nndna serve`'s HTTP API over real HTTP on loopback: a server in this process on a free port,
// specs compiled and run in the sandbox (label "spec"-like: not under the sanitizers).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <thread>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/built_in_files.hpp"
#include "specrun/temp_dir.hpp"
#include "test_server.hpp"

namespace nndna::server {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using test_support::exampleSource;
using test_support::Server;

// 1-based number of the first line of `text` containing `needle`.
int lineOf(const std::string& text, std::string_view needle) {
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find(needle) != std::string::npos) return n;
  }
  ADD_FAILURE() << "no line with " << needle;
  return 0;
}

std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string specRequest(const std::string& source) { return json{{"source", source}}.dump(); }

// A spec that never finishes tracing; `tag` makes each variant a different source.
std::string endlessSpec(std::string_view tag) {
  return std::string("// ") + std::string(tag) + R"(
#include <nndna/nndna.hpp>
using namespace nndna;
namespace {
struct M : Module { Linear l{"l", 4, 4}; };
Tensor lossFn(M& m, const Inputs& in) {
  volatile bool forever = true;
  while (forever) {}
  return mean(m.l(in["x"]));
}
NNDNA_SPEC(M) { return {.label = "endless", .loss = lossFn, .inputs = {{"x", {2, 4}}}, .optimizer = Adam{.lr = 1e-3}}; }
}  // namespace
)";
}

// What a raw connection got through: the bytes of `body` sent after `head`, and the answer.
struct Exchange {
  std::size_t bodySent = 0;
  std::string answer;
};

// Sends `head`, then `piece` again and again up to `total` bytes, until the server answers,
// stops reading or closes; then reads its answer until it closes (10 s at most each way).
Exchange sendUntilRefused(int port, const std::string& head, const std::string& piece, std::size_t total) {
  Exchange x;
  const int sock = test_support::connectToLoopback(port);
  if (sock < 0) {
    ADD_FAILURE() << "cannot connect to port " << port;
    return x;
  }
  const timeval limit{.tv_sec = 10, .tv_usec = 0};
  ::setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  EXPECT_EQ(::send(sock, head.data(), head.size(), MSG_NOSIGNAL), static_cast<ssize_t>(head.size()));
  while (x.bodySent < total) {
    pollfd answered{.fd = sock, .events = POLLIN, .revents = 0};
    if (::poll(&answered, 1, 0) > 0) break;
    const ssize_t n = ::send(sock, piece.data(), piece.size(), MSG_NOSIGNAL);
    if (n <= 0) break;
    x.bodySent += static_cast<std::size_t>(n);
  }
  char buf[4096];
  ssize_t n = 0;
  while ((n = ::recv(sock, buf, sizeof buf, 0)) > 0) x.answer.append(buf, static_cast<std::size_t>(n));
  ::close(sock);
  return x;
}

std::string chunk(std::string_view data) { return fmt::format("{:x}\r\n{}\r\n", data.size(), data); }

class ServeHttp : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ServeOptions o;
    o.jobs = 2;
    server_ = new Server(o);
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  static httplib::Result post(const std::string& path, const std::string& body,
                              const std::string& type = "application/json", httplib::Headers headers = {}) {
    return server_->client().Post(path.c_str(), headers, body, type.c_str());
  }
  static Server* server_;
};
Server* ServeHttp::server_ = nullptr;

TEST_F(ServeHttp, HealthAndSecurityHeaders) {
  auto r = server_->client().Get("/api/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  const json h = json::parse(r->body);
  EXPECT_TRUE(h["ok"].get<bool>());
  EXPECT_EQ(h["jobs"]["workers"], 2);
  EXPECT_NE(h["isolation"].get<std::string>().find("isolation"), std::string::npos);
  for (const char* path : {"/api/health", "/", "/no-such-page"}) {
    auto res = server_->client().Get(path);
    ASSERT_TRUE(res) << path;
    const std::string csp = res->get_header_value("Content-Security-Policy");
    EXPECT_NE(csp.find("default-src 'none'"), std::string::npos) << path;
    EXPECT_NE(csp.find("script-src 'self';"), std::string::npos) << path;  // no inline script
    EXPECT_EQ(csp.find("unsafe-eval"), std::string::npos) << path;
    EXPECT_EQ(csp.find("http"), std::string::npos) << path;  // no remote origin
    EXPECT_EQ(res->get_header_value("X-Content-Type-Options"), "nosniff") << path;
    EXPECT_EQ(res->get_header_value("Referrer-Policy"), "no-referrer") << path;
  }
}

// Debian's cpp-httplib listens with a backlog of 5, and a burst of 100 connections lost requests
// to the overflowing accept queue (bench/serve): the server listens again with 1,024. `ss` (from
// iproute2) shows a listening socket's backlog as its Send-Q.
TEST_F(ServeHttp, ListensWithADeepAcceptQueue) {
  const std::string command = "ss -Hltn 'sport = :" + std::to_string(server_->port()) + "'";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  ASSERT_TRUE(pipe) << command;
  std::string out;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe.get()) != nullptr) out += buffer;
  std::istringstream fields(out);
  std::string state;
  long queued = -1, backlog = -1;
  fields >> state >> queued >> backlog;
  EXPECT_EQ(state, "LISTEN") << command << " printed: " << out;
  EXPECT_EQ(backlog, 1024) << command << " printed: " << out;
}

TEST_F(ServeHttp, StaticAssetsWithEtagAndGzip) {
  auto page = server_->client().Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("<script src=\"/app.js\" defer></script>"), std::string::npos);
  EXPECT_EQ(page->body.find("<script>"), std::string::npos);  // no inline script

  auto js = server_->client().Get("/app.js", {{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  EXPECT_EQ(js->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(js->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  ASSERT_GE(js->body.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(js->body[0]), 0x1f);
  const std::string etag = js->get_header_value("ETag");
  ASSERT_EQ(etag.size(), 34u);

  auto plain = server_->client().Get("/app.js");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->has_header("Content-Encoding"));
  EXPECT_GT(plain->body.size(), js->body.size() * 2);
  EXPECT_EQ(plain->get_header_value("ETag"), etag);

  auto again = server_->client().Get("/app.js", {{"If-None-Match", etag}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());

  EXPECT_EQ(server_->client().Get("/app.css")->status, 200);
  EXPECT_EQ(server_->client().Get("/favicon.svg")->get_header_value("Content-Type"), "image/svg+xml");
  auto missing = server_->client().Get("/secret.txt");
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(json::parse(missing->body)["error"]["kind"], "not_found");
  EXPECT_EQ(server_->client().Get("/../etc/passwd")->status, 404);
}

TEST_F(ServeHttp, Examples) {
  auto r = server_->client().Get("/api/examples");
  ASSERT_TRUE(r);
  const json list = json::parse(r->body);
  EXPECT_EQ(list["default"], "diffusion_denoiser");
  // One per examples/*.cpp (13 today, docs/examples.md), sorted by name.
  EXPECT_EQ(list["examples"].size(), exampleSourceFiles().size());
  EXPECT_EQ(list["examples"].size(), 13u);
  EXPECT_EQ(list["examples"][0]["name"], "char_transformer");
  bool found = false;
  for (const json& e : list["examples"]) {
    if (e["name"] == "gpt2_small") {
      found = true;
      EXPECT_EQ(e["label"], "GPT-2 small (124M)");
    }
  }
  EXPECT_TRUE(found);
  auto one = server_->client().Get("/api/examples/diffusion_denoiser");
  ASSERT_TRUE(one);
  EXPECT_EQ(json::parse(one->body)["source"], exampleSource("diffusion_denoiser"));
  EXPECT_EQ(server_->client().Get("/api/examples/nope")->status, 404);
  EXPECT_EQ(server_->client().Get("/api/examples/..%2Fsecret")->status, 404);
}

TEST_F(ServeHttp, DefaultModelDiagram) {
  auto r = post("/api/diagram", specRequest(exampleSource("diffusion_denoiser")));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json a = json::parse(r->body);
  EXPECT_TRUE(a["ok"].get<bool>());
  const json& d = a["diagram"];
  EXPECT_EQ(d["format"], "nndna-diagram");
  EXPECT_EQ(d["label"], "Iterative diffusion denoiser");
  EXPECT_EQ(d["layer_count"], 4);  // l1, gelu... one line: 4 boxes (docs/diagram.md)
  EXPECT_TRUE(d["merged"].get<bool>());
  EXPECT_EQ(d["metrics"]["train"][0]["display"], "24.9K parameters");
  EXPECT_NE(a["svg"].get<std::string>().find("×12 (inference)"), std::string::npos);
  EXPECT_TRUE(a["svg"].get<std::string>().starts_with("<svg"));
  for (const char* stage : {"diagram", "layout"}) EXPECT_TRUE(a["timings"].contains(stage)) << stage;
  // Boxes name the file as the editor knows it, never the server's cache path.
  for (const json& n : d["nodes"]) {
    if (!n["input"].get<bool>()) {
      EXPECT_EQ(n["file"], "model.cpp");
    }
  }
  EXPECT_EQ(r->body.find(NNDNA_TEST_CACHE_DIR), std::string::npos);
  // The same source again: the compile is cached, and the log says so.
  auto again = post("/api/diagram", specRequest(exampleSource("diffusion_denoiser")));
  ASSERT_EQ(again->status, 200);
  EXPECT_TRUE(json::parse(again->body)["cache_hit"].get<bool>());
  const std::string log = server_->logOnceItHolds("cache=hit");
  EXPECT_NE(log.find("POST /api/diagram 200"), std::string::npos) << log;
  EXPECT_NE(log.find("cache=hit"), std::string::npos) << log;
}

TEST_F(ServeHttp, ProgressStream) {
  auto r = post("/api/diagram", specRequest(exampleSource("diffusion_denoiser")), "application/json",
                {{"Accept", "application/x-ndjson"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/x-ndjson");
  std::vector<std::string> stages;
  json result;
  std::istringstream lines(r->body);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const json e = json::parse(line);
    if (e["type"] == "stage") stages.push_back(e["stage"].get<std::string>() + ":" + e["state"].get<std::string>());
    if (e["type"] == "result") result = e;
  }
  const std::vector<std::string> expected{"compile:start", "compile:done", "run:start", "run:done", "read:start",
                                          "read:done",     "diagram:start", "diagram:done", "layout:start", "layout:done"};
  EXPECT_EQ(stages, expected);
  EXPECT_EQ(result["status"], 200);
  EXPECT_EQ(result["body"]["diagram"]["layer_count"], 4);
}

TEST_F(ServeHttp, EditedSpecDrawsItsOwnLoopCount) {
  const std::string five = replaced(exampleSource("diffusion_denoiser"), "N_STEPS = 12", "N_STEPS = 5");
  auto r = post("/api/diagram", specRequest(five));
  ASSERT_EQ(r->status, 200) << r->body;
  const std::string svg = json::parse(r->body)["svg"];
  EXPECT_NE(svg.find("×5 (inference)"), std::string::npos);
  EXPECT_EQ(svg.find("×12"), std::string::npos);
}

TEST_F(ServeHttp, ShapeErrorNamesTheLine) {
  const std::string source = exampleSource("diffusion_denoiser");
  const std::string bad = replaced(source, R"(Linear l2{"l2", HIDDEN, HIDDEN};)", R"(Linear l2{"l2", HIDDEN + 1, HIDDEN};)");
  auto r = post("/api/diagram", specRequest(bad));
  ASSERT_EQ(r->status, 422) << r->body;
  const json e = json::parse(r->body)["error"];
  EXPECT_EQ(e["kind"], "trace_error");
  ASSERT_EQ(e["diagnostics"].size(), 2u) << e.dump();
  // l2 is called by the line of denoise() that calls the layers; the loss's line that
  // called denoise() is marked as the call that led there.
  EXPECT_EQ(e["diagnostics"][0]["line"], lineOf(bad, "Tensor denoise("));
  EXPECT_EQ(e["diagnostics"][0]["column"], 0);
  EXPECT_EQ(e["diagnostics"][0]["severity"], "error");
  EXPECT_NE(e["diagnostics"][0]["message"].get<std::string>().find("Linear: layer 'l2': the input's last axis"),
            std::string::npos);
  EXPECT_EQ(e["diagnostics"][1]["line"], lineOf(bad, "Tensor predNoise = denoise("));
  EXPECT_EQ(e["diagnostics"][1]["severity"], "info");
}

// A legal spec too large to count (the default model 10^6 times wider): the user's to fix, 422
// with what to do, not a 500.
TEST_F(ServeHttp, AModelTooLargeToCountIsTheSpecsError) {
  const std::string huge = replaced(exampleSource("diffusion_denoiser"), "HIDDEN = 128", "HIDDEN = 100000000");
  auto r = post("/api/diagram", specRequest(huge));
  ASSERT_EQ(r->status, 422) << r->body;
  const json e = json::parse(r->body)["error"];
  EXPECT_EQ(e["kind"], "diagram_error");
  EXPECT_NE(e["message"].get<std::string>().find("pass 2^63 (about 9.2·10^18); draw it with smaller sizes"),
            std::string::npos)
      << e.dump();
}

TEST_F(ServeHttp, CompileErrorNamesLineAndColumn) {
  const std::string bad = replaced(exampleSource("diffusion_denoiser"), "constexpr int N_STEPS = 12;",
                                   "constexpr int N_STEPS = 12;\nint broken = no_such_name;");
  auto r = post("/api/diagram", specRequest(bad));
  ASSERT_EQ(r->status, 422) << r->body;
  const json e = json::parse(r->body)["error"];
  EXPECT_EQ(e["kind"], "compile_error");
  ASSERT_GE(e["diagnostics"].size(), 1u);
  EXPECT_EQ(e["diagnostics"][0]["line"], lineOf(bad, "int broken = no_such_name;"));
  EXPECT_EQ(e["diagnostics"][0]["column"], 14);  // "int broken = " is 13 characters
  EXPECT_EQ(e["diagnostics"][0]["severity"], "error");
  EXPECT_NE(e["message"].get<std::string>().find("no_such_name"), std::string::npos);
}

TEST_F(ServeHttp, RequestLimits) {
  // A source of 256 KiB + 1 byte.
  EXPECT_EQ(post("/api/diagram", specRequest(std::string((256 << 10) + 1, ' ')))->status, 413);
  // A body too large to read at all.
  EXPECT_EQ(post("/api/diagram", std::string(2 << 20, ' '))->status, 413);
  auto notJson = post("/api/diagram", "source=x", "text/plain");
  EXPECT_EQ(notJson->status, 415);
  EXPECT_EQ(json::parse(notJson->body)["error"]["kind"], "unsupported_media_type");
  // A form (multipart) is not JSON either, and is not read.
  httplib::MultipartFormDataItems form{{"source", "x", "", ""}};
  auto multipart = server_->client().Post("/api/diagram", form);
  ASSERT_TRUE(multipart);
  EXPECT_EQ(multipart->status, 415);
  EXPECT_EQ(json::parse(multipart->body)["error"]["kind"], "unsupported_media_type");
  EXPECT_EQ(post("/api/diagram", "{not json")->status, 400);
  EXPECT_EQ(post("/api/diagram", R"({"text": "x"})")->status, 400);
  EXPECT_EQ(post("/api/diagram", R"({"source": 3})")->status, 400);
  EXPECT_EQ(post("/api/diagram", R"(["source"])")->status, 400);
  EXPECT_EQ(post("/api/diagram", R"({"source": "x", "client": "a b"})")->status, 400);
  EXPECT_EQ(post("/api/diagram", "{\"source\": \"\xff\xfe\"}")->status, 400);  // not UTF-8
}

// cpp-httplib 0.11 reads a request line or a chunked body into memory however long it is; the
// server stops reading a request at its limit (bounded_http_server.hpp). 64 MiB is far past it
// (2 MiB and the sockets' buffers): a server that read on would take it all.
TEST_F(ServeHttp, ARequestLineWithoutEndIsCutOff) {
  constexpr std::size_t kFlood = std::size_t{64} << 20;
  const Exchange x = sendUntilRefused(server_->port(), "GET /", std::string(64 << 10, 'a'), kFlood);
  EXPECT_LT(x.bodySent, kFlood);
  auto health = server_->client().Get("/api/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

// Headers count toward the head's 64 KiB, not the body's limit: 100 KiB of short headers (about
// 20,000 of them, each a map entry in cpp-httplib) are refused, where a shared budget took them.
TEST_F(ServeHttp, AHeadPastItsLimitIsRefused) {
  std::string head = fmt::format("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n", server_->port());
  while (head.size() < (100 << 10)) head += "a:b\r\n";
  const Exchange x = sendUntilRefused(server_->port(), head + "\r\n", "", 0);
  EXPECT_TRUE(x.answer.starts_with("HTTP/1.1 400 ")) << x.answer.substr(0, 200);
  // A head within the limit, with the same headers, is served.
  std::string fine = fmt::format("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n",
                                 server_->port());
  while (fine.size() < (32 << 10)) fine += "a:b\r\n";
  EXPECT_TRUE(sendUntilRefused(server_->port(), fine + "\r\n", "", 0).answer.starts_with("HTTP/1.1 200 "));
}

TEST_F(ServeHttp, AChunkedBodyPastTheLimitIsRefusedUnread) {
  constexpr std::size_t kFlood = std::size_t{64} << 20;
  const std::string head = fmt::format(
      "POST /api/diagram HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n{}",
      server_->port(), chunk("{\"source\": \""));
  const Exchange x = sendUntilRefused(server_->port(), head, chunk(std::string(64 << 10, 'a')), kFlood);
  EXPECT_LT(x.bodySent, kFlood);
  EXPECT_TRUE(x.answer.starts_with("HTTP/1.1 413 ")) << x.answer.substr(0, 200);
  EXPECT_NE(x.answer.find("\"too_large\""), std::string::npos);
  // The limit is named: 4 × the 256 KiB source limit, and 4 KiB of the request's own JSON.
  EXPECT_NE(x.answer.find("the request is larger than the server takes: at most 1028 KiB"), std::string::npos)
      << x.answer;
}

TEST_F(ServeHttp, AChunkedBodyWithinTheLimitIsRead) {
  // A source in three chunks, without NNDNA_SPEC: the spec's own error, so the body was read whole.
  const std::string body = chunk("{\"source\": \"int ") + chunk("x;") + chunk("\"}") + "0\r\n\r\n";
  const Exchange x = sendUntilRefused(
      server_->port(),
      fmt::format("POST /api/diagram HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n"
                  "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n{}",
                  server_->port(), body),
      "", 0);
  EXPECT_TRUE(x.answer.starts_with("HTTP/1.1 422 ")) << x.answer.substr(0, 200);
  EXPECT_NE(x.answer.find("no NNDNA_SPEC"), std::string::npos) << x.answer;
}

TEST_F(ServeHttp, ForeignHostNamesAreRefused) {
  auto r = server_->client().Get("/api/health", {{"Host", "evil.example:" + std::to_string(server_->port())}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 421);
  auto ok = server_->client().Get("/api/health", {{"Host", "localhost:" + std::to_string(server_->port())}});
  EXPECT_EQ(ok->status, 200);
  // Host names are case-insensitive.
  auto upper = server_->client().Get("/api/health", {{"Host", "LocalHost:" + std::to_string(server_->port())}});
  ASSERT_TRUE(upper);
  EXPECT_EQ(upper->status, 200);
}

// A path of the API asked with a method it does not take: 405 and the method it does (Allow).
TEST_F(ServeHttp, TheWrongMethodIs405WithTheRightOne) {
  auto get = server_->client().Get("/api/diagram");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST");
  EXPECT_EQ(json::parse(get->body)["error"]["kind"], "method_not_allowed");
  auto put = server_->client().Put("/api/design", "{}", "application/json");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 405);
  EXPECT_EQ(put->get_header_value("Allow"), "POST");
  auto post = server_->client().Post("/api/health", "{}", "application/json");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->get_header_value("Allow"), "GET");
  auto example = server_->client().Delete("/api/examples/mlp_sin");
  ASSERT_TRUE(example);
  EXPECT_EQ(example->status, 405);
  EXPECT_EQ(server_->client().Get("/api/nothing")->status, 404);
  // The page's own files are GET paths as well.
  for (const char* file : {"/", "/app.js"}) {
    auto wrong = server_->client().Post(file, "{}", "application/json");
    ASSERT_TRUE(wrong);
    EXPECT_EQ(wrong->status, 405) << file;
    EXPECT_EQ(wrong->get_header_value("Allow"), "GET") << file;
    auto gone = server_->client().Delete(file);
    ASSERT_TRUE(gone);
    EXPECT_EQ(gone->status, 405) << file;
  }
  // OPTIONS says what a path takes.
  auto options = server_->client().Options("/api/diagram");
  ASSERT_TRUE(options);
  EXPECT_EQ(options->status, 204);
  EXPECT_EQ(options->get_header_value("Allow"), "POST, OPTIONS");
  auto fileOptions = server_->client().Options("/app.js");
  ASSERT_TRUE(fileOptions);
  EXPECT_EQ(fileOptions->get_header_value("Allow"), "GET, OPTIONS");
}

TEST_F(ServeHttp, SelfContainedPage) {
  auto r = post("/api/page", specRequest(exampleSource("diffusion_denoiser")));
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(r->get_header_value("Content-Disposition").find("attachment"), std::string::npos);
  EXPECT_TRUE(r->body.starts_with("<!doctype html>"));
  EXPECT_NE(r->body.find("×12 (inference)"), std::string::npos);
}

// Host files stay out of reach: the compiler cannot include them, the spec cannot read them, and
// their content appears nowhere in the answer.
TEST_F(ServeHttp, IncludeOfAHostFileIsRejected) {
  std::ifstream passwd("/etc/passwd");
  std::string firstLine;
  std::getline(passwd, firstLine);
  ASSERT_FALSE(firstLine.empty());
  const std::string spec = "#include \"/etc/passwd\"\n" + exampleSource("diffusion_denoiser");
  for (const char* accept : {"application/json", "application/x-ndjson"}) {
    auto r = post("/api/diagram", specRequest(spec), "application/json", {{"Accept", accept}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body.find(firstLine), std::string::npos) << r->body;
    EXPECT_EQ(r->body.find("root:x:0"), std::string::npos);
    EXPECT_EQ(r->body.find("\"ok\":true"), std::string::npos);
  }
}

TEST_F(ServeHttp, SpecReadingAHostFileIsRejected) {
  std::ifstream file("/etc/hostname");
  std::string hostname;
  std::getline(file, hostname);
  const std::string spec = R"(
#include <nndna/nndna.hpp>
#include <fstream>
#include <sstream>
#include <stdexcept>
using namespace nndna;
namespace {
struct M : Module { Linear l{"l", 4, 4}; };
Tensor lossFn(M& m, const Inputs& in) { return mean(m.l(in["x"])); }
std::string stolen() {
  std::ifstream f("/etc/hostname");
  if (!f) throw std::runtime_error("cannot open /etc/hostname");
  std::stringstream s;
  s << f.rdbuf();
  return "hostname:[" + s.str() + "]";
}
NNDNA_SPEC(M) { return {.label = stolen(), .loss = lossFn, .inputs = {{"x", {2, 4}}}, .optimizer = Adam{.lr = 1e-3}}; }
}  // namespace
)";
  auto r = post("/api/diagram", specRequest(spec));
  ASSERT_TRUE(r);
  EXPECT_NE(r->status, 200) << r->body;
  EXPECT_EQ(r->body.find("hostname:[" + hostname), std::string::npos) << r->body;
}

// One worker and a queue of one: the third distinct spec is told to come back; a request past
// its deadline answers 504 and its run is killed.
// After drawing the default example at start-up, the server precompiles the header with <cmath>
// in the background (most examples and the designer's specs include it).
TEST(ServeWarmUp, PrecompilesCmathAfterTheDefaultExample) {
  specrun::TempDir cache(std::filesystem::temp_directory_path(), "nndna-test-fresh-cache-");
  ServeOptions o;
  o.jobs = 1;
  o.jobSettings.cacheDir = cache.path();
  Server server(o);
  auto cmathPchBuilt = [&] {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(cache.path() / "pch", ec)) {
      std::ifstream in(entry.path() / "nndna_pch.hpp");
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (text.find("#include <cmath>\n") != std::string::npos &&
          std::filesystem::exists(entry.path() / "nndna_pch.hpp.gch")) {
        return true;
      }
    }
    return false;
  };
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  while (!cmathPchBuilt() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(cmathPchBuilt());
  EXPECT_FALSE(std::filesystem::is_empty(cache.path() / "bin")) << "after the default example's compile";
}

TEST(ServeHttpLimits, BusyAnswers503AndDeadlineAnswers504) {
  ServeOptions o;
  o.jobs = 1;
  o.maxQueued = 1;
  o.warmUp = false;  // the one worker is the test's
  o.requestTimeout = std::chrono::seconds(4);
  Server server(o);
  auto send = [&](const std::string& source) {
    return std::async(std::launch::async, [&server, source] {
      auto r = server.client().Post("/api/diagram", specRequest(source), "application/json");
      return r ? r->status : -1;
    });
  };
  auto waitUntil = [&](auto predicate) {
    for (int i = 0; i < 400 && !predicate(server.health()); ++i) std::this_thread::sleep_for(25ms);
    return predicate(server.health());
  };
  auto first = send(endlessSpec("first"));
  ASSERT_TRUE(waitUntil([](const json& h) { return h["jobs"]["running"] == 1; }));
  auto second = send(endlessSpec("second"));
  ASSERT_TRUE(waitUntil([](const json& h) { return h["jobs"]["queued"] == 1; }));
  auto third = server.client().Post("/api/diagram", specRequest(endlessSpec("third")), "application/json");
  ASSERT_TRUE(third);
  EXPECT_EQ(third->status, 503);
  EXPECT_EQ(third->get_header_value("Retry-After"), "2");
  EXPECT_EQ(json::parse(third->body)["error"]["kind"], "busy");
  EXPECT_EQ(first.get(), 504);
  EXPECT_EQ(second.get(), 504);
  // Nothing keeps running once nobody waits.
  EXPECT_TRUE(waitUntil([](const json& h) { return h["jobs"]["running"] == 0 && h["jobs"]["queued"] == 0; }));
}

TEST(ServeHttpLimits, ANewerRequestOfThePageCancelsTheRunningOne) {
  ServeOptions o;
  o.jobs = 2;
  Server server(o);
  auto first = std::async(std::launch::async, [&server] {
    auto r = server.client().Post("/api/diagram", json{{"source", endlessSpec("superseded")}, {"client", "page-1"}}.dump(),
                                  "application/json");
    return r ? std::make_pair(r->status, r->body) : std::make_pair(-1, std::string());
  });
  for (int i = 0; i < 400 && server.health()["jobs"]["running"] != 1; ++i) std::this_thread::sleep_for(25ms);
  auto second = server.client().Post(
      "/api/diagram", json{{"source", exampleSource("diffusion_denoiser")}, {"client", "page-1"}}.dump(), "application/json");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 200);
  const auto [status, body] = first.get();
  EXPECT_EQ(status, 409);
  EXPECT_EQ(json::parse(body)["error"]["kind"], "cancelled");
  for (int i = 0; i < 400 && server.health()["jobs"]["running"] != 0; ++i) std::this_thread::sleep_for(25ms);
  EXPECT_EQ(server.health()["jobs"]["running"], 0);
}

// A client that sends half a request and stalls is dropped after the I/O timeout; with one
// connection allowed, the next client is served only then.
// Each read waits at most the I/O timeout, but a request must also arrive whole within its read
// time: a client sending a byte of its head every 200 ms (within the 1 s I/O timeout) is dropped
// after 2 s, long before its 100 bytes are through (20 s); one trickling its body gets 408.
TEST(ServeHttpLimits, ARequestThatTricklesInIsDropped) {
  ServeOptions o;
  o.ioTimeout = std::chrono::seconds(1);
  o.readTime = std::chrono::seconds(2);
  o.warmUp = false;
  Server server(o);
  auto trickle = [&](const std::string& head, const std::string& body) {
    const int sock = test_support::connectToLoopback(server.port());
    EXPECT_GE(sock, 0);
    ::send(sock, head.data(), head.size(), MSG_NOSIGNAL);
    const auto t0 = std::chrono::steady_clock::now();
    std::size_t sent = 0;
    for (; sent < body.size(); ++sent) {
      pollfd closed{.fd = sock, .events = POLLIN, .revents = 0};
      if (::poll(&closed, 1, 200) > 0) break;  // answered or closed
      if (::send(sock, body.data() + sent, 1, MSG_NOSIGNAL) != 1) break;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(sent, body.size());
    EXPECT_LT(seconds, 15.0);
    std::string answer;
    char buf[512];
    for (ssize_t n; (n = ::recv(sock, buf, sizeof buf, 0)) > 0;) answer.append(buf, static_cast<std::size_t>(n));
    ::close(sock);
    return answer;
  };
  trickle("", fmt::format("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nX-Padding: {}\r\n\r\n",
                          server.port(), std::string(40, 'p')));
  const std::string body = R"({"source": ")" + std::string(100, ' ') + R"("})";
  const std::string answer = trickle(
      fmt::format("POST /api/diagram HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n"
                  "Content-Length: {}\r\n\r\n",
                  server.port(), body.size()),
      body);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 408 ")) << answer.substr(0, 200);
  EXPECT_NE(answer.find("\"too_slow\""), std::string::npos) << answer;
}

TEST(ServeHttpLimits, SlowClientIsDroppedAndConnectionsAreBounded) {
  ServeOptions o;
  o.maxConnections = 1;
  o.ioTimeout = std::chrono::seconds(1);
  o.warmUp = false;
  Server server(o);
  const int sock = test_support::connectToLoopback(server.port());
  ASSERT_GE(sock, 0);
  const std::string partial = "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n";  // never finished
  ASSERT_EQ(::send(sock, partial.data(), partial.size(), 0), static_cast<ssize_t>(partial.size()));
  std::this_thread::sleep_for(100ms);  // the one connection thread now waits on it

  const auto t0 = std::chrono::steady_clock::now();
  auto other = server.client().Get("/api/health");
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 200);
  EXPECT_GE(waited, 0.5);  // served once the stalled client was dropped (1 s after it connected)
  EXPECT_LT(waited, 10.0);

  // The server closed the stalled connection (after an error answer, if any): reads reach its
  // end well before this socket's own 5 s receive timeout.
  timeval limit{.tv_sec = 5, .tv_usec = 0};
  ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  char buf[512];
  ssize_t n = 0;
  while ((n = ::recv(sock, buf, sizeof buf, 0)) > 0) {
  }
  EXPECT_TRUE(n == 0 || errno == ECONNRESET) << "errno " << errno;
  ::close(sock);
}

}  // namespace
}  // namespace nndna::server
