// The offline designer end to end: every test description's spec compiles and traces in the
// sandbox, and its diagram shows the named structure (loops, heads, widths) and, where the case
// gives one, the exact parameter count (the presets' published counts among them).
#include <gtest/gtest.h>

#include <algorithm>

#include "designer/designer.hpp"
#include "offline_cases.hpp"

namespace nndna::designer {
namespace {

using testcases::OfflineCase;

specrun::RunOptions testRunOptions() {
  specrun::RunOptions run;
  run.cacheDir = NNDNA_TEST_CACHE_DIR;  // never the user's cache
  return run;
}

class OfflineDesign : public ::testing::TestWithParam<OfflineCase> {};

TEST_P(OfflineDesign, CompilesTracesAndDrawsTheNamedStructure) {
  const OfflineCase& c = GetParam();
  DesignRequest request;
  request.prompt = std::string(c.description);
  request.offline = true;
  request.run = testRunOptions();
  std::vector<DesignEvent> events;
  const DesignResult result = design(request, [&](const DesignEvent& e) { events.push_back(e); });
  ASSERT_TRUE(result.ok) << result.error << "\n" << result.source;
  ASSERT_TRUE(result.offline);
  ASSERT_TRUE(result.offlineChoice);
  EXPECT_EQ(result.offlineChoice->templateName, c.templateName);
  ASSERT_EQ(result.attempts.size(), 1u);
  ASSERT_TRUE(result.diagram);
  const diagram::Diagram& d = *result.diagram;

  if (c.loops) {
    std::vector<std::string> loops;
    for (const diagram::Cluster& cluster : d.clusters) {
      if (cluster.kind == diagram::Cluster::Kind::loop) loops.push_back(cluster.label);
    }
    std::sort(loops.begin(), loops.end());
    EXPECT_EQ(loops, std::vector<std::string>(c.loops->begin(), c.loops->end()));
  }
  for (const auto& [name, size] : c.dims) {
    const auto it = std::find_if(d.legend.begin(), d.legend.end(),
                                 [&](const diagram::LegendItem& item) { return item.name == name; });
    ASSERT_NE(it, d.legend.end()) << "no dim " << name << " in the legend";
    EXPECT_EQ(it->size, size) << "dim " << name;
  }
  if (c.params) {
    ASSERT_TRUE(d.metrics.train);
    const auto params = std::find_if(d.metrics.train->begin(), d.metrics.train->end(),
                                     [](const diagram::Metric& m) { return m.key == "params"; });
    ASSERT_NE(params, d.metrics.train->end());
    EXPECT_EQ(params->value, *c.params);
  }
  // The events: designing offline, the choice, the check, the metrics line, finished.
  std::vector<EventKind> kinds;
  for (const DesignEvent& e : events) kinds.push_back(e.kind);
  EXPECT_EQ(kinds, (std::vector<EventKind>{EventKind::designing_offline, EventKind::offline_choice,
                                           EventKind::check_result, EventKind::metrics, EventKind::finished}));
}

INSTANTIATE_TEST_SUITE_P(Descriptions, OfflineDesign, ::testing::ValuesIn(testcases::offlineCases()),
                         [](const auto& info) { return std::string(info.param.name); });

// Changing a spec without a model: the offline designer's spec for a small GPT, then "use RMSNorm
// and 6 layers" on it.
TEST(OfflineChange, ChangesAGeneratedSpecAndItStillCompiles) {
  DesignRequest first;
  first.prompt = "a GPT with 2 layers";
  first.offline = true;
  first.run = testRunOptions();
  const DesignResult v1 = design(first);
  ASSERT_TRUE(v1.ok) << v1.error;

  DesignRequest change = first;
  change.prompt = "use RMSNorm and 6 layers";
  change.source = v1.source;
  const DesignResult v2 = design(change);
  ASSERT_TRUE(v2.ok) << v2.error;
  EXPECT_NE(v2.source.find("using Norm = RMSNorm;"), std::string::npos);
  EXPECT_NE(v2.source.find("constexpr int N_LAYERS = 6;"), std::string::npos);
  std::vector<std::string> loops;
  for (const diagram::Cluster& c : v2.diagram->clusters) {
    if (c.kind == diagram::Cluster::Kind::loop) loops.push_back(c.label);
  }
  EXPECT_EQ(loops, std::vector<std::string>{"×6"});
}

// A broken spec given with --from and no model: the offline designer cannot fix code; the error
// and its line come back.
TEST(OfflineChange, ABrokenSpecReportsItsError) {
  DesignRequest request;
  request.prompt = "use 4 layers";
  request.offline = true;
  request.run = testRunOptions();
  request.sourceName = "broken.cpp";
  request.source =
      "#include <nndna/nndna.hpp>\n"
      "using namespace nndna;\n"
      "constexpr int N_LAYERS = 2;\n"
      "struct M : Module { Linear l{\"l\", 4, 4}; };\n"
      "Tensor lossFn(M& m, const Inputs& in) { return mean(m.l(in[\"x\"]) }\n"  // line 5: missing ';'
      "NNDNA_SPEC(M) { return {.label = \"m\", .loss = lossFn, .inputs = {{\"x\", {2, 4}}}}; }\n";
  const DesignResult result = design(request);
  ASSERT_FALSE(result.ok);
  EXPECT_EQ(result.errorLine, 5);
  EXPECT_NE(result.error.find("broken.cpp:5:"), std::string::npos) << result.error;
  EXPECT_NE(result.source.find("constexpr int N_LAYERS = 4;"), std::string::npos);  // the change was made
  ASSERT_EQ(result.attempts.size(), 1u);
  EXPECT_EQ(result.attempts[0].check->errorKind, "compile_error");
}


// A stop requested while the spec is compiled kills the compiler: the design ends cancelled.
TEST(OfflineCancel, AStopKillsTheCompile) {
  DesignRequest request;
  request.prompt = "a tiny GPT";
  request.offline = true;
  request.run = testRunOptions();
  request.run.useCache = false;  // a real compile to stop
  std::stop_source stop;
  std::vector<EventKind> kinds;
  const DesignResult result = design(
      request,
      [&](const DesignEvent& e) {
        kinds.push_back(e.kind);
        if (e.kind == EventKind::offline_choice) stop.request_stop();  // just before the compile
      },
      stop.get_token());
  EXPECT_TRUE(result.cancelled);
  EXPECT_FALSE(result.ok);
  EXPECT_FALSE(result.diagram);
  EXPECT_EQ(kinds, (std::vector<EventKind>{EventKind::designing_offline, EventKind::offline_choice,
                                           EventKind::check_result, EventKind::finished}));
  ASSERT_EQ(result.attempts.size(), 1u);
  EXPECT_EQ(result.attempts[0].check->errorKind, "cancelled");
}
}  // namespace
}  // namespace nndna::designer
