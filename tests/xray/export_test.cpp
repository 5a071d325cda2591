// Trace exports: the trace JSON schema and its round trip, the event-stream reader, Chrome
// trace events, the folded call graph DOT, and escaping in the HTML page.
#include <gtest/gtest.h>

#include <limits>

#include <nlohmann/json.hpp>
#include <nndna/xray.hpp>
#include <nndna/xray_trace.hpp>
#include <array>
#include <set>
#include <sstream>
#include <stdexcept>

#include "support/gunzip.hpp"

namespace {

namespace xr = nndna::xray;
using nlohmann::json;

xr::Trace sampleTrace() {
  xr::Session session;
  {
    XRAY_SPAN("agent", {{"goal", "plan a trip"}}, {.kind = "agent"});
    for (int i = 0; i < 3; ++i) {
      XRAY_SPAN("call_llm", {{"prompt", "</script><script>alert(1)</script>"}}, {.kind = "llm"});
      xr::annotate({.model = "gpt-4o-mini", .promptTokens = 100, .completionTokens = 20});
    }
    try {
      XRAY_SPAN("tool.weather", {{"city", "Paris & \"Lyon\""}}, {.kind = "tool"});
      throw std::runtime_error("<b>timeout</b>");
    } catch (const std::exception&) {
    }
  }
  auto trace = session.finish();
  trace.title = "Trip <planner> & co";
  return trace;
}

TEST(TraceJson, HasTheDocumentedShape) {
  auto doc = xr::toJson(sampleTrace());
  EXPECT_EQ(doc["format"], "nndna-xray-trace");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["summary"]["nodes"], 5);
  EXPECT_EQ(doc["summary"]["errors"], 1);
  EXPECT_EQ(doc["summary"]["total_tokens"], 360);
  ASSERT_EQ(doc["nodes"].size(), 1u);
  const auto& root = doc["nodes"][0];
  std::set<std::string> keys;
  for (const auto& [k, v] : root.items()) keys.insert(k);
  EXPECT_EQ(keys, (std::set<std::string>{"id", "name", "inputs", "output", "error", "start_ms", "latency_ms",
                                         "children", "meta", "kind", "tags", "open", "thread", "rollup"}));
  EXPECT_TRUE(root["id"].is_string());
  EXPECT_TRUE(root["output"].is_null());
  EXPECT_TRUE(root["error"].is_null());
  EXPECT_EQ(root["inputs"]["goal"], "plan a trip");
  EXPECT_EQ(root["kind"], "agent");
  EXPECT_EQ(root["open"], false);
  EXPECT_TRUE(root["start_ms"].is_number());
  EXPECT_GE(root["latency_ms"].get<double>(), 0.0);
  ASSERT_EQ(root["children"].size(), 4u);
  EXPECT_EQ(root["children"][3]["error"], "std::runtime_error: <b>timeout</b>");
  EXPECT_EQ(root["children"][0]["meta"]["total_tokens"], 120);
}

TEST(TraceJson, RoundTripsThroughJson) {
  auto trace = sampleTrace();
  auto doc = xr::toJson(trace);
  auto back = xr::traceFromJson(json::parse(doc.dump()));
  EXPECT_EQ(xr::toJson(back), doc);
}

TEST(TraceJson, ReadsFlowXraySeedShapeWithoutFormatField) {
  json doc = json::parse(R"({"nodes": [{"id": "1", "name": "run", "inputs": {"x": "1"}, "output": "2",
      "error": null, "start_ms": 0, "latency_ms": 3.5, "children": [
        {"id": "2", "name": "step", "inputs": {}, "output": null, "error": "ValueError: bad",
         "start_ms": 1, "latency_ms": 1, "children": [], "meta": {}}], "meta": {}}]})");
  auto trace = xr::traceFromJson(doc);
  ASSERT_EQ(trace.nodes.size(), 2u);
  EXPECT_EQ(trace.nodes[1].error(), "ValueError: bad");
  EXPECT_EQ(*trace.nodes[1].parent, 0u);
}

// A trace read from a file may hold any number under total_tokens: a count is a whole number in
// 0..2^63-1, anything else counts as 0, and sums stop at 2^63-1 (the fuzzer found 1e95 converted
// to an integer: undefined behaviour).
TEST(TraceJson, TokenCountsFromAFileAreWholeNumbersAndTheirSumsSaturate) {
  auto read = [](const std::string& tokens) {
    return xr::traceFromJson(json::parse(R"({"nodes": [{"id": "1", "name": "run", "start_ms": 0, "latency_ms": 1,
        "meta": {"total_tokens": 7}, "children": [{"id": "2", "name": "llm", "start_ms": 0, "latency_ms": 1,
        "meta": {"total_tokens": )" + tokens + R"(}}]}]})"));
  };
  EXPECT_EQ(xr::summarize(read("12")).totalTokens, 19);
  EXPECT_EQ(xr::summarize(read("12.0")).totalTokens, 19);
  for (const char* notACount : {"1.45444e+95", "12.5", "-3", "-1e300", "18446744073709551615", "\"12\"", "null"}) {
    EXPECT_EQ(xr::summarize(read(notACount)).totalTokens, 7) << notACount;
  }
  const auto huge = read("9223372036854775807");
  EXPECT_EQ(xr::summarize(huge).totalTokens, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(xr::toJson(huge)["nodes"][0]["rollup"]["total_tokens"], std::numeric_limits<std::int64_t>::max());
}

// A span's thread number is an int: one past int's range in a file is not read (0), never wrapped.
TEST(TraceJson, AThreadNumberOutsideIntIsNotRead) {
  auto thread = [](const std::string& number) {
    return xr::traceFromJson(json::parse(R"({"nodes": [{"id": "1", "name": "run", "start_ms": 0, "latency_ms": 1,
        "thread": )" + number + "}]}")).nodes.at(0).thread;
  };
  EXPECT_EQ(thread("3"), 3);
  EXPECT_EQ(thread("-2147483648"), -2147483648LL);
  EXPECT_EQ(thread("2147483647"), 2147483647);
  for (const char* outside : {"2147483648", "-2147483649", "4294967297", "18446744073709551615", "1.5", "\"7\""}) {
    EXPECT_EQ(thread(outside), 0) << outside;
  }
}

TEST(TraceJson, RejectsInvalidDocumentsWithAPath) {
  EXPECT_THROW(xr::traceFromJson(json::array()), std::runtime_error);
  EXPECT_THROW(xr::traceFromJson(json{{"format", "other"}, {"version", 1}, {"nodes", json::array()}}), std::runtime_error);
  EXPECT_THROW(xr::traceFromJson(json{{"format", "nndna-xray-trace"}, {"version", 2}, {"nodes", json::array()}}), std::runtime_error);
  try {
    xr::traceFromJson(json::parse(R"({"nodes": [{"id": "1", "name": "a", "start_ms": 0, "latency_ms": 1,
        "children": [{"id": "2", "name": 5, "start_ms": 0, "latency_ms": 1}]}]})"));
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("$.nodes[0].children[0]"), std::string::npos) << e.what();
  }
}

TEST(EventStream, SpansWithoutAnEndLineAreOpenAndATornLastLineIsIgnored) {
  std::istringstream in(
      R"({"format":"nndna-xray-events","version":1,"pid":1,"start_unix_ms":0}
{"ev":"B","id":"s1","parent":null,"name":"main","t":0.0,"thread":0,"inputs":{}}
{"ev":"B","id":"s2","parent":"s1","name":"step","t":1.0,"thread":0,"inputs":{"i":"0"}}
{"ev":"E","id":"s2","t":2.5,"output":"ok"}
{"ev":"B","id":"s3","parent":"s1","name":"crashing","t":3.0,"thread":0,"inputs":{}}
{"ev":"B","id":"s4","parent":"s3","name":"inner","t":4.0,"thread":0,"inputs":{}}
{"ev":"E","id":"s4","t":6.0,"error":"std::bad_alloc: std::bad_alloc"}
{"ev":"B","id":"s5","par)");
  auto trace = xr::readEventStream(in);
  ASSERT_EQ(trace.nodes.size(), 4u);
  EXPECT_EQ(trace.nodes[0].name, "main");
  EXPECT_TRUE(trace.nodes[0].open);
  EXPECT_DOUBLE_EQ(trace.nodes[0].latencyMs, 6.0);
  EXPECT_EQ(trace.nodes[1].name, "step");
  EXPECT_FALSE(trace.nodes[1].open);
  EXPECT_DOUBLE_EQ(trace.nodes[1].latencyMs, 1.5);
  EXPECT_EQ(trace.nodes[1].output(), "ok");
  EXPECT_TRUE(trace.nodes[2].open);
  EXPECT_EQ(trace.nodes[3].error(), "std::bad_alloc: std::bad_alloc");
  EXPECT_EQ(*trace.nodes[3].parent, 2u);
  EXPECT_NE(trace.exitNote.find("no exit record"), std::string::npos);
  EXPECT_EQ(xr::summarize(trace).open, 2u);
}

TEST(EventStream, RejectsMissingHeaderAndCorruptMiddleLines) {
  std::istringstream noHeader(R"({"ev":"B","id":"s1","name":"x","t":0})" "\n");
  EXPECT_THROW(xr::readEventStream(noHeader), std::runtime_error);
  std::istringstream corrupt("{\"format\":\"nndna-xray-events\",\"version\":1}\nnot json\n{\"ev\":\"exit\",\"t\":1}\n");
  EXPECT_THROW(xr::readEventStream(corrupt), std::runtime_error);
  std::istringstream terminated(
      "{\"format\":\"nndna-xray-events\",\"version\":1}\n{\"ev\":\"terminate\",\"t\":1,\"error\":\"std::logic_error: x\"}\n");
  EXPECT_EQ(xr::readEventStream(terminated).exitNote, "terminated: std::logic_error: x");
}

TEST(ChromeTrace, OneCompleteEventPerSpanInMicroseconds) {
  auto trace = sampleTrace();
  auto chrome = xr::toChromeTrace(trace);
  std::size_t complete = 0;
  for (const auto& e : chrome["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++complete;
    EXPECT_TRUE(e["ts"].is_number());
    EXPECT_TRUE(e["dur"].is_number());
    EXPECT_EQ(e["pid"], 1);
  }
  EXPECT_EQ(complete, 5u);
  const auto& first = chrome["traceEvents"][0];
  EXPECT_EQ(first["name"], "agent");
  EXPECT_EQ(first["cat"], "agent");
  EXPECT_DOUBLE_EQ(first["ts"].get<double>(), trace.nodes[0].startMs * 1000);
  EXPECT_EQ(first["args"]["input.goal"], "plan a trip");
}

TEST(CallGraphDot, FoldsRepeatedCallsAndColoursErrors) {
  std::string dot = xr::toDot(sampleTrace());
  EXPECT_NE(dot.find("call_llm \u00d73"), std::string::npos) << dot;
  EXPECT_NE(dot.find("class=\"call err\""), std::string::npos);
  EXPECT_NE(dot.find("color=\"#f85149\", penwidth=3"), std::string::npos);  // an error: a red border
  EXPECT_NE(dot.find("fillcolor=\"#8250df\""), std::string::npos);          // llm boxes: their kind's fill
  EXPECT_NE(dot.find("360 tok"), std::string::npos);
  int edges = 0;
  for (auto p = dot.find(" -> "); p != std::string::npos; p = dot.find(" -> ", p + 1)) ++edges;
  EXPECT_EQ(edges, 2);  // agent -> call_llm x3, agent -> tool.weather
}

// The viewer's data: JSON, gzip-compressed, in base64.
json pageData(const std::string& html) {
  const std::string marker = "id=\"xray-data\" data-encoding=\"gzip+base64\">";
  auto start = html.find(marker);
  if (start == std::string::npos) throw std::runtime_error("no xray-data script");
  start += marker.size();
  return json::parse(nndna::test::gunzip(nndna::test::base64Decode(html.substr(start, html.find("</script>", start) - start))));
}

TEST(TraceHtml, IsSelfContainedAndKeepsUserTextAsText) {
  std::string html = xr::toHtml(sampleTrace());
  // The payload string never appears raw: not in the data, not in the SVG.
  EXPECT_EQ(html.find("</script><script>alert(1)"), std::string::npos);
  EXPECT_EQ(html.find("<b>timeout</b>"), std::string::npos);
  // The data is base64 (gzip inside): nothing in it can end its script element.
  {
    const std::string marker = "data-encoding=\"gzip+base64\">";
    auto at = html.find(marker) + marker.size();
    std::string_view payload(html.data() + at, html.find("</script>", at) - at);
    EXPECT_GT(payload.size(), 100u);
    EXPECT_EQ(payload.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="), std::string_view::npos);
  }
  EXPECT_NE(html.find("<title>Trip &lt;planner&gt; &amp; co</title>"), std::string::npos);
  // Exactly two script elements: the JSON data and the viewer code.
  std::size_t scripts = 0;
  for (auto p = html.find("<script"); p != std::string::npos; p = html.find("<script", p + 1)) ++scripts;
  EXPECT_EQ(scripts, 2u);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("id=\"g0\""), std::string::npos);
  EXPECT_NE(html.find("id=\"stat-errors\" class=\"err\">1<"), std::string::npos);
  EXPECT_NE(html.find("id=\"stat-tokens\">360<"), std::string::npos);
  // The embedded data parses back and carries every node.
  json data = pageData(html);
  EXPECT_EQ(data["count"], 5);  // spans as columns
  EXPECT_EQ(data["details"]["1"]["inputs"]["prompt"], "</script><script>alert(1)</script>");
  EXPECT_EQ(data["groups"].size(), 3u);
  EXPECT_EQ(data["overview"]["error_count"], 1);
}

// A root "a" (id s10) with three "b" children; times in ms.
xr::Trace fourSpans(std::array<std::string, 4> ids) {
  xr::Trace t;
  t.nodes.resize(4);
  const double starts[] = {0.0, 0.0001, 0.6, 0.9}, latencies[] = {1.0, 0.5, 0.25, 0.05};
  for (std::size_t i = 0; i < 4; ++i) {
    t.nodes[i].id = ids[i];
    t.nodes[i].name = i == 0 ? "a" : "b";
    t.nodes[i].startMs = starts[i];
    t.nodes[i].latencyMs = latencies[i];
    if (i > 0) {
      t.nodes[i].parent = 0;
      t.nodes[0].children.push_back(i);
    }
  }
  t.nodes[2].setError("boom");
  t.nodes[3].thread = 1;
  t.roots = {0};
  return t;
}

TEST(TraceHtml, ColumnsAreEncodedCompactly) {
  json data = pageData(xr::toHtml(fourSpans({"s10", "s11", "s13", "s14"})));
  EXPECT_EQ(data["count"], 4);
  // Ids: one prefix, numbers as differences from the row before (10, 11, 13, 14).
  EXPECT_EQ(data["id"], json::parse(R"({"prefix": "s", "numbers": [10, 1, 2, 1]})"));
  EXPECT_EQ(data["names"], json::parse(R"(["a", "b"])"));
  // Runs [0,1, 1,3] are no shorter than the 4 values: the plain column.
  EXPECT_EQ(data["name"], json::parse("[0, 1, 1, 1]"));
  EXPECT_EQ(data["kind"], json::parse(R"({"runs": [0, 4]})"));  // one run of 4 zeros
  // Start times in units of 0.1 µs (0, 1, 6000, 9000), as differences.
  EXPECT_EQ(data["start"], json::parse("[0, 1, 5999, 3000]"));
  EXPECT_EQ(data["lat"], json::parse("[10000, 5000, 2500, 500]"));
  EXPECT_EQ(data["parent"], json::parse("[0, 1, 2, 3]"));  // row - parent's row; 0: a root
  EXPECT_EQ(data["thread"], json::parse("[0, 0, 0, 1]"));
  EXPECT_EQ(data["flags"], json::parse("[0, 0, 1, 0]"));  // 1: error
  EXPECT_EQ(data["group"], json::parse("[0, 1, 1, 1]"));  // "b" ×3 is one box

  // An id with a leading zero, or another prefix, cannot be rebuilt from a number: ids as they are.
  EXPECT_EQ(pageData(xr::toHtml(fourSpans({"s10", "s011", "s13", "s14"})))["id"],
            json::parse(R"(["s10", "s011", "s13", "s14"])"));
  EXPECT_EQ(pageData(xr::toHtml(fourSpans({"s10", "t11", "s13", "s14"})))["id"],
            json::parse(R"(["s10", "t11", "s13", "s14"])"));
}

TEST(TraceHtml, LineSeparatorsInUserTextAreEscaped) {
  xr::Session session;
  {
    XRAY_SPAN("x", {{"s", "a\u2028b\u2029c"}});
  }
  std::string html = xr::toHtml(session.finish());
  EXPECT_EQ(html.find("\u2028"), std::string::npos);  // the data is base64: none in the page itself
  EXPECT_EQ(pageData(html)["details"]["0"]["inputs"]["s"], "a\u2028b\u2029c");
}

TEST(TraceHtml, EmptyTraceStillMakesAPage) {
  std::string html = xr::toHtml(xr::Trace{});
  EXPECT_NE(html.find("No spans were recorded"), std::string::npos);
}

}  // namespace
